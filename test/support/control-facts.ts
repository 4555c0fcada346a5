import type { DomainEvent } from "../../domain/events.ts";

type Fact<T extends DomainEvent["type"]> = Extract<DomainEvent, { type: T }>;

/** Team `t`, created by user `u`: the first fact of most control-plane decider tests. */
export const aTeamCreated = (fields: Partial<Fact<"TeamCreated">> = {}): DomainEvent => ({
  type: "TeamCreated",
  v: 1,
  team_id: "t",
  name: "Team",
  slug: "team",
  created_by: "u",
  for_new_user: false,
  ...fields,
});

/** Project `p` ("web") of team `t`, with the default retention. */
export const aProjectCreated = (fields: Partial<Fact<"ProjectCreated">> = {}): DomainEvent => ({
  type: "ProjectCreated",
  v: 1,
  project_id: "p",
  team_id: "t",
  name: "Web",
  slug: "web",
  color: "#4F46E5",
  retention_days_events: null,
  retention_days_metrics: null,
  retention_days_funnels: null,
  replaces_project_ids: [],
  ...fields,
});
