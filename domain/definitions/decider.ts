import type { DomainEvent } from "../events.ts";
import { changesOf } from "../shared/changes.ts";
import type { Decider } from "../shared/decider.ts";
import { conflict, notFound } from "../shared/errors.ts";
import type { FunnelStep } from "./events.ts";

export type MetricValues = {
  name: string;
  description: string | null;
  documentation: string | null;
  schema_definition: Record<string, unknown> | null;
  aggregation_rules: Record<string, unknown> | null;
};

export type FunnelValues = { name: string; description: string | null; steps: FunnelStep[] };

/** A definition as decisions need it: soft-deleted ones stay, their slugs decide what a create does. */
export type Definition<Values> = { id: string; projectId: string; slug: string; deleted: boolean; values: Values };

/**
 * The metric (or funnel) definitions of one team, the aggregate whose subject carries them. A
 * command names one project and never looks at another's definitions, so the API loads only that
 * project's (projections/directory/definition-queries.ts).
 */
export type TeamDefinitions<Values> = { teamId: string; definitions: Definition<Values>[] };
export type TeamMetrics = TeamDefinitions<MetricValues>;
export type TeamFunnels = TeamDefinitions<FunnelValues>;

/** An existing definition as the routes name it: by its slug in a project. */
export type DefinitionRef = { projectId: string; slug: string };

export type MetricCommand =
  | { type: "DefineMetric"; metricId: string; projectId: string; slug: string; values: MetricValues }
  | ({ type: "UpdateMetric"; patch: Partial<MetricValues> } & DefinitionRef)
  | ({ type: "DeleteMetric" } & DefinitionRef);

export type FunnelCommand =
  | { type: "CreateFunnel"; funnelId: string; projectId: string; slug: string; values: FunnelValues }
  | ({ type: "UpdateFunnel"; patch: Partial<FunnelValues> } & DefinitionRef)
  | ({ type: "DeleteFunnel" } & DefinitionRef);

/** Every definition of the project with the slug, soft-deleted ones included. */
const withSlug = <V>(state: TeamDefinitions<V>, { projectId, slug }: DefinitionRef) =>
  state.definitions.filter((definition) => definition.projectId === projectId && definition.slug === slug);

/** The active definition `ref` names. @throws DomainError not_found `noun` */
function active<V>(state: TeamDefinitions<V>, ref: DefinitionRef, noun: "metric" | "funnel"): Definition<V> {
  const found = withSlug(state, ref).find((definition) => !definition.deleted);
  if (!found) throw notFound(noun);
  return found;
}

function decideMetric(state: TeamMetrics, command: MetricCommand): DomainEvent[] {
  switch (command.type) {
    case "DefineMetric": {
      // A conflict while an active metric has the slug; a soft-deleted one comes back under its old id,
      // so its events and audit history stay its own.
      const same = withSlug(state, command);
      if (same.some((metric) => !metric.deleted)) throw conflict("a metric with this slug already exists in the project");
      const restored = same[0];
      return [
        {
          type: "MetricDefined",
          v: 1,
          metric_id: restored?.id ?? command.metricId,
          team_id: state.teamId,
          project_id: command.projectId,
          slug: command.slug,
          ...command.values,
          restored: restored !== undefined,
        },
      ];
    }
    case "UpdateMetric": {
      // Only the fields whose value changes are recorded; nothing changes, no fact.
      const metric = active(state, command, "metric");
      const changes = changesOf(metric.values, command.patch);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: "MetricUpdated", v: 1, metric_id: metric.id, team_id: state.teamId, changes }];
    }
    case "DeleteMetric": {
      const metric = active(state, command, "metric");
      return [{ type: "MetricDeleted", v: 1, metric_id: metric.id, team_id: state.teamId, slug: metric.slug }];
    }
  }
}

function decideFunnel(state: TeamFunnels, command: FunnelCommand): DomainEvent[] {
  switch (command.type) {
    case "CreateFunnel": {
      // Unlike a metric, a funnel is never restored: a soft-deleted one leaves its slug free for a new funnel.
      if (withSlug(state, command).some((funnel) => !funnel.deleted)) throw conflict("a funnel with this slug already exists in the project");
      return [
        {
          type: "FunnelCreated",
          v: 1,
          funnel_id: command.funnelId,
          team_id: state.teamId,
          project_id: command.projectId,
          slug: command.slug,
          ...command.values,
        },
      ];
    }
    case "UpdateFunnel": {
      const funnel = active(state, command, "funnel");
      const changes = changesOf(funnel.values, command.patch);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: "FunnelUpdated", v: 1, funnel_id: funnel.id, team_id: state.teamId, changes }];
    }
    case "DeleteFunnel": {
      const funnel = active(state, command, "funnel");
      return [{ type: "FunnelDeleted", v: 1, funnel_id: funnel.id, team_id: state.teamId, slug: funnel.slug }];
    }
  }
}

/** Adds a definition, or replaces the one with its id (a restored metric). */
function put<V>(state: TeamDefinitions<V>, definition: Definition<V>): TeamDefinitions<V> {
  const others = state.definitions.filter((existing) => existing.id !== definition.id);
  return { ...state, definitions: [...others, definition] };
}

/**
 * Each changed field takes its `after`. The facts were decided from typed patches of these very
 * fields (their schemas name no others), so the values keep their type.
 */
function changed<V extends object>(state: TeamDefinitions<V>, id: string, changes: Partial<Record<string, { after?: unknown }>>): TeamDefinitions<V> {
  const after = Object.fromEntries(Object.entries(changes).flatMap(([field, change]) => (change ? [[field, change.after]] : [])));
  const apply = (values: V): V => ({ ...values, ...after });
  return { ...state, definitions: state.definitions.map((definition) => (definition.id === id ? { ...definition, values: apply(definition.values) } : definition)) };
}

const softDeleted = <V>(state: TeamDefinitions<V>, which: (definition: Definition<V>) => boolean): TeamDefinitions<V> => ({
  ...state,
  definitions: state.definitions.map((definition) => (which(definition) ? { ...definition, deleted: true } : definition)),
});

/** The facts both kinds fold alike: the team's creation, and a project's deletion, which takes its definitions along. */
function evolveTeam<V>(state: TeamDefinitions<V>, fact: DomainEvent): TeamDefinitions<V> {
  switch (fact.type) {
    case "TeamCreated":
      return { teamId: fact.team_id, definitions: [] };
    case "ProjectDeleted":
      return softDeleted(state, (definition) => definition.projectId === fact.project_id);
    default:
      return state;
  }
}

function evolveMetric(state: TeamMetrics, fact: DomainEvent): TeamMetrics {
  switch (fact.type) {
    case "MetricDefined": {
      const { name, description, documentation, schema_definition, aggregation_rules } = fact;
      const values = { name, description, documentation, schema_definition, aggregation_rules };
      return put(state, { id: fact.metric_id, projectId: fact.project_id, slug: fact.slug, deleted: false, values });
    }
    case "MetricUpdated":
      return changed(state, fact.metric_id, fact.changes);
    case "MetricDeleted":
      return softDeleted(state, (metric) => metric.id === fact.metric_id);
    default:
      return evolveTeam(state, fact);
  }
}

function evolveFunnel(state: TeamFunnels, fact: DomainEvent): TeamFunnels {
  switch (fact.type) {
    case "FunnelCreated": {
      const values = { name: fact.name, description: fact.description, steps: fact.steps };
      return put(state, { id: fact.funnel_id, projectId: fact.project_id, slug: fact.slug, deleted: false, values });
    }
    case "FunnelUpdated":
      return changed(state, fact.funnel_id, fact.changes);
    case "FunnelDeleted":
      return softDeleted(state, (funnel) => funnel.id === fact.funnel_id);
    default:
      return evolveTeam(state, fact);
  }
}

/** A team's metric definitions: slugs unique among a project's active ones, a re-created slug restores the deleted metric. */
export const metricsDecider: Decider<TeamMetrics, MetricCommand, DomainEvent> = {
  initialState: { teamId: "", definitions: [] },
  decide: decideMetric,
  evolve: evolveMetric,
};

/** A team's funnel definitions: slugs unique among a project's active ones, a re-created slug is a new funnel. */
export const funnelsDecider: Decider<TeamFunnels, FunnelCommand, DomainEvent> = {
  initialState: { teamId: "", definitions: [] },
  decide: decideFunnel,
  evolve: evolveFunnel,
};
