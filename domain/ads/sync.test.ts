import { describe, expect, it } from "vitest";
import type { AdEntity } from "./events.ts";
import { adsPeriod, adsSyncFacts, ENTITIES_PER_FACT } from "./sync.ts";

const keyword = (id: number, name = `kw ${id}`): AdEntity => ({ id: String(id), campaign_id: "1", ad_group_id: "2", name, status: "ACTIVE", start_date: null, spend: "1.50" });
const pull = (keywords: AdEntity[]) => ({
  projectId: "p",
  teamId: "t",
  syncId: "s",
  syncedAt: "2026-11-26T04:45:00.000Z",
  currency: "USD",
  period: { startTime: "2025-12-02", endTime: "2026-11-26" },
  entities: { campaign: [{ id: "1", campaign_id: "1", ad_group_id: null, name: "C", status: "ENABLED", start_date: "2026-01-01", spend: "10" }], ad_group: [], keyword: keywords, ad: [] },
});

describe("adsSyncFacts", () => {
  it("chunks each level and closes with the account's currency and distinct counts", () => {
    const keywords = Array.from({ length: ENTITIES_PER_FACT + 5 }, (_, index) => keyword(index));
    const facts = adsSyncFacts(pull([...keywords, keyword(3, "renamed")]));
    expect(facts.map((fact) => (fact.type === "AdEntitiesSynced" ? `${fact.level}:${fact.entities.length}` : fact.type))).toEqual([
      "campaign:1",
      `keyword:${ENTITIES_PER_FACT}`,
      "keyword:5",
      "AdMetricsSynced",
    ]);
    const last = facts.at(-1);
    expect(last).toMatchObject({ currency: "USD", counts: { campaign: 1, ad_group: 0, keyword: ENTITIES_PER_FACT + 5, ad: 0 } });
    const second = facts[1];
    expect(second?.type === "AdEntitiesSynced" && second.entities.find((entity) => entity.id === "3")?.name).toBe("renamed");
  });
});

describe("adsPeriod", () => {
  it("spans 360 UTC days ending today", () => {
    expect(adsPeriod(new Date("2026-11-26T04:45:00Z"))).toEqual({ startTime: "2025-12-02", endTime: "2026-11-26" });
  });
});
