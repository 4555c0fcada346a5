import { describe, expect, it } from "vitest";
import { usersQueryOf, usersViewOf } from "./filters.ts";

const project = "0b6c3c1e-6a5e-4c43-9d39-1d6b1c1f5e10";

describe("the users list's view in the URL", () => {
  it("is the API's defaults when the URL says nothing", () => {
    expect(usersQueryOf(project, usersViewOf(new URLSearchParams()))).toEqual({
      project_id: project,
      search: undefined,
      is_anonymous: undefined,
      billing_status: undefined,
      data_mode: "production",
      since: undefined,
      app_id: undefined,
      cursor: undefined,
      limit: 50,
    });
  });

  it("becomes the API's filters", () => {
    const view = usersViewOf(new URLSearchParams("search=ad&kind=anonymous&billing=paid,trial&mode=all&seen=7d&app=a1&cursor=2026-11-26T07:00:00.000Z|u1"));
    expect(usersQueryOf(project, view)).toMatchObject({
      search: "ad",
      is_anonymous: "true",
      billing_status: "paid,trial",
      data_mode: "all",
      since: "7d",
      app_id: "a1",
      cursor: "2026-11-26T07:00:00.000Z|u1",
    });
    expect(usersQueryOf(project, usersViewOf(new URLSearchParams("kind=identified"))).is_anonymous).toBe("false");
  });

  it("drops values the API would refuse rather than asking with them", () => {
    const view = usersViewOf(new URLSearchParams("kind=robots&billing=gold,free&mode=staging&seen=3y"));
    expect(view).toMatchObject({ kind: "all", billing: ["free"], dataMode: "production", seen: "" });
  });
});
