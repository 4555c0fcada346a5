import { describe, it } from "vitest";
import { given } from "../../test/support/decider.ts";
import type { DomainEvent } from "../events.ts";
import { userDecider } from "./decider.ts";

const registered: DomainEvent = { type: "UserRegistered", v: 1, user_id: "u", email: "ada@example.test", name: "ada" };
const joined = (teamId: string, userId = "u"): DomainEvent => ({ type: "MemberAdded", v: 1, team_id: teamId, user_id: userId, role: "member" });
const user = given(userDecider);

describe("RegisterUser", () => {
  it("registers a new account", () => {
    user().when({ type: "RegisterUser", userId: "u", email: "ada@example.test", name: "ada" }).then(registered);
  });

  it("refuses to register an account twice", () => {
    user(registered).when({ type: "RegisterUser", userId: "u", email: "ada@example.test", name: "ada" }).thenFails("conflict");
  });
});

describe("RenameUser", () => {
  it("records the previous name and the teams the user is in at the time", () => {
    user(registered, joined("t1"), joined("t2"), joined("t3", "someone-else"), { type: "MemberRemoved", v: 1, team_id: "t1", user_id: "u", role: "member", revoked_agent_key_ids: [] })
      .when({ type: "RenameUser", name: "Ada" })
      .then({ type: "UserRenamed", v: 1, user_id: "u", name: "Ada", previous_name: "ada", team_ids: ["t2"] });
  });

  it("leaves deleted teams out", () => {
    user(registered, joined("t1"), joined("t2"), { type: "TeamDeleted", v: 1, team_id: "t2" })
      .when({ type: "RenameUser", name: "Ada" })
      .then({ type: "UserRenamed", v: 1, user_id: "u", name: "Ada", previous_name: "ada", team_ids: ["t1"] });
  });

  it("records nothing when the name does not change", () => {
    user(registered, { type: "UserRenamed", v: 1, user_id: "u", name: "Ada", previous_name: "ada", team_ids: [] }).when({ type: "RenameUser", name: "Ada" }).then();
  });

  it("answers not found for an account that does not exist", () => {
    user().when({ type: "RenameUser", name: "Ada" }).thenFails("not_found");
  });
});
