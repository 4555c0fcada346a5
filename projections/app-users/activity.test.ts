import { describe, expect, it } from "vitest";
import type { EventsIngested, IngestedEvent } from "../../domain/ingest/events.ts";
import { anIngestedEvent } from "../../test/support/ingested-event.ts";
import { ActivityFold, baseLanguage } from "./activity.ts";

const PROJECT = "00000000-0000-4000-8000-000000000001";

function batch(fields: Partial<EventsIngested>, events: Partial<IngestedEvent>[]): EventsIngested {
  return {
    type: "EventsIngested",
    v: 1,
    id: "00000000-0000-4000-8000-0000000000aa",
    mode: "ingest",
    team_id: PROJECT,
    project_id: PROJECT,
    app_id: "00000000-0000-4000-8000-000000000002",
    platform: "apple",
    api_key_id: PROJECT,
    received_at: "2024-05-01T00:00:00.000Z",
    country_code: null,
    ...fields,
    events: events.map((event) =>
      anIngestedEvent({ id: PROJECT, session_id: PROJECT, user_id: "u", message: "m", timestamp: "2024-05-01T00:00:00.000Z", ...event }),
    ),
  };
}

const at = (minute: number) => `2024-05-01T00:${String(minute).padStart(2, "0")}:00.000Z`;

describe("ActivityFold", () => {
  it("keeps the latest value of each event field by event time, not by arrival; country by the later request", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({ country_code: "DE" }, [{ timestamp: at(30), app_version: "2.0", locale: "de_DE", sdk_name: "swift", sdk_version: "2" }]));
    fold.add(batch({ country_code: "FR" }, [{ timestamp: at(10), app_version: "1.0", locale: "fr_FR", sdk_name: "swift", sdk_version: "1" }, { timestamp: at(40) }]));
    const user = fold.users.get(`${PROJECT}\nu`)!;
    expect(user).toMatchObject({ first_seen_at: at(10), last_seen_at: at(40), country: { value: "FR", at: at(0) } });
    expect(user.app_version).toEqual({ value: "2.0", at: at(30) });
    expect(user.locale).toEqual({ value: "de_DE", at: at(30) });
    expect(user.sdk).toEqual({ value: { name: "swift", version: "2" }, at: at(30) });
  });

  it("takes country and is_dev from the latest request, even one of older events", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({ country_code: "DE", received_at: at(50) }, [{ timestamp: at(45), is_dev: false }]));
    fold.add(batch({ country_code: "FR", received_at: at(55) }, [{ timestamp: at(10), is_dev: true }]));
    fold.add(batch({ country_code: null, received_at: at(58) }, [{ timestamp: at(12), is_dev: true }]));
    const user = fold.users.get(`${PROJECT}\nu`)!;
    expect(user.country).toEqual({ value: "FR", at: at(55) });
    expect(user.is_dev).toEqual({ value: true, at: at(58) });
  });

  it("places an import's is_dev at its events' times, behind later requests", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({ received_at: at(50) }, [{ timestamp: at(45), is_dev: false }]));
    fold.add(batch({ mode: "import", received_at: at(55) }, [{ timestamp: at(10), is_dev: true }]));
    expect(fold.users.get(`${PROJECT}\nu`)!.is_dev).toEqual({ value: false, at: at(50) });
  });

  it("takes country and is_dev from client platforms only", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({ platform: "backend", country_code: "US" }, [{ timestamp: at(50), is_dev: true, environment: "backend" }]));
    const user = fold.users.get(`${PROJECT}\nu`)!;
    expect(user.country).toBeNull();
    expect(user.is_dev).toBeNull();
  });

  it("resolves claimed ids and skips events without a user", () => {
    const fold = new ActivityFold((_, userId) => (userId === "svc_anon_1" ? "known" : userId));
    fold.add(batch({}, [{ user_id: "svc_anon_1" }, { user_id: null }]));
    expect([...fold.users.values()].map((user) => [user.user_id, user.is_anonymous])).toEqual([["known", false]]);
  });

  it("reads the preferred language and the app's languages from custom attributes", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({}, [{ timestamp: at(1), custom_attributes: { preferred_language: " pt-BR ", supported_languages: "en, pt_BR,zh-Hant-TW,bad!" } }]));
    expect(fold.users.get(`${PROJECT}\nu`)!.preferred_language).toEqual({ value: "pt-BR", at: at(1) });
    expect([...fold.languages.values()][0]!.languages).toEqual(["en", "pt", "zh"]);
  });

  it("takes the base language of a locale", () => {
    expect(["de_DE", "de-AT", "zh-Hant-TW", "EN"].map(baseLanguage)).toEqual(["de", "de", "zh", "en"]);
  });

  it("treats text Postgres cannot store as not reported", () => {
    const fold = new ActivityFold((_, userId) => userId);
    fold.add(batch({}, [{ user_id: "bad\u0000id" }, { user_id: "ok", locale: "x\ud800", app_version: "1.0" }]));
    expect([...fold.users.keys()]).toEqual([`${PROJECT}\nok`]);
    expect(fold.users.get(`${PROJECT}\nok`)).toMatchObject({ locale: null, app_version: { value: "1.0" } });
  });
});
