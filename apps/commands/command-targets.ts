import type { DomainEvent } from "../../domain/events.ts";
import type { IdentityFact } from "../../domain/identity/events.ts";
import type { Decider } from "../../domain/shared/decider.ts";
import type { Actor, Envelope } from "../../domain/shared/envelope.ts";
import { newId } from "../../domain/shared/ids.ts";
import { identityVersion, wasSuperseded } from "../../projections/app-users/records.ts";
import { attachmentsVersion } from "../../projections/attachments/decision-state.ts";
import { aggregateVersion } from "../../projections/directory/queries.ts";
import { feedbackVersion } from "../../projections/feedback/decision-state.ts";
import { integrationsVersion } from "../../projections/integrations/decision-state.ts";
import { issuesVersion } from "../../projections/issues/decision-state.ts";
import { notificationsVersion } from "../../projections/notifications/decision-state.ts";
import { ingestProjections } from "../../projections/registry.ts";
import type { CommandDeps } from "./deps.ts";

/**
 * One command against one aggregate of the DOMAIN stream. `team` orders the team's whole control
 * plane (members, invitations, projects, apps, keys, definitions: projections/directory/README.md says why);
 * `user` a user's own account.
 */
export type DomainCommand<State, Command> = {
  aggregate: { type: "user" | "team"; id: string };
  decider: Decider<State, Command, DomainEvent>;
  /**
   * Reads the state the decision needs from the read model, checking on the way that the caller
   * may act on it (a role can change between two attempts). Runs again after a lost race.
   */
  load: () => Promise<State>;
  command: Command;
  actor: Actor;
};

/**
 * One command against an app user's identity subject on the INGEST stream
 * (projections/app-users/README.md). Its facts carry no actor: the client key only scopes the call.
 */
export type IdentitySubjectCommand<State, Command> = {
  /**
   * `locate` names the user whose subject takes the facts. It runs on every attempt, and again
   * once the subject's version is read: a user located before a claim moved it (a property change
   * of an anonymous id follows it to its claimer) is decided again on the new one.
   */
  aggregate: { type: "identity"; projectId: string; locate: () => Promise<string> };
  decider: Decider<State, Command, IdentityFact>;
  /** Reads the located user's state from the read model. Runs again after a lost race. */
  load: (userId: string) => Promise<State>;
  /**
   * Builds the command on every attempt, after `load`: each attempt's fact needs an id of its own
   * (it is the message id, and a superseded fact is followed by a new one), and some inputs are
   * read only once the state is known (a claim's stray events).
   */
  command: (state: State, userId: string) => Command | Promise<Command>;
};

/**
 * The DOMAIN aggregates whose version lives in the read model holding the state their decisions
 * read, written in the same transaction as its rows: the usage a reservation is checked against,
 * a feedback record, an inbox, a device token, a project's issues. A command reads the version,
 * then the state, so it never decides on state older than the version it expects.
 */
const MODEL_AGGREGATES = {
  /** A project's attachments (`<ns>.d.attachments.<project>`): every reservation of the project is decided on one version, so quotas hold. */
  attachments: { model: "attachments", version: attachmentsVersion, attempts: 12, audited: (fact: DomainEvent) => fact.type === "AttachmentDeleted" },
  /** One feedback record (`<ns>.d.feedback.<feedback_id>`): its status, comments and deletion. */
  feedback: { model: "feedback", version: feedbackVersion, attempts: 6, audited: (fact: DomainEvent) => fact.type !== "FeedbackSubmitted" },
  /** A project's integrations (`<ns>.d.integrations.<project_id>`): one active per provider. A provider's TRANSFER report is not a team action. */
  integrations: { model: "integrations", version: integrationsVersion, attempts: 6, audited: (fact: DomainEvent) => fact.type !== "IntegrationTransferReceived" },
  /** A user's inbox (`<ns>.d.inbox.<user_id>`). */
  inbox: { model: "notifications", version: notificationsVersion, attempts: 6, audited: () => false },
  /** A push token (`<ns>.d.device.<token hash>`): every registration of one token is decided on one version. */
  device: { model: "notifications", version: notificationsVersion, attempts: 6, audited: () => false },
  /** A project's issues (`<ns>.d.issues.<project>`): grouping and workflow. Detection is not audited; the workflow is. */
  issues: {
    model: "issues",
    version: issuesVersion,
    attempts: 12,
    audited: (fact: DomainEvent) => fact.type === "IssueStatusChanged" || fact.type === "IssuesMerged" || fact.type.startsWith("IssueComment"),
  },
} as const;

export type ModelAggregate = keyof typeof MODEL_AGGREGATES;

/** One command against an aggregate of MODEL_AGGREGATES. */
export type ModelCommand<State, Command> = {
  aggregate: { type: ModelAggregate; id: string };
  decider: Decider<State, Command, DomainEvent>;
  /** Reads what the command names from the aggregate's read model. Runs again after a lost race. */
  load: () => Promise<State>;
  command: Command;
  actor: Actor;
  /**
   * The envelope and message id, when the caller derives it from what caused the command (the
   * issue detector: from the ingest message), so a redelivered cause is dropped by the stream's dedup.
   */
  messageId?: string;
};

export const isModelCommand = (command: { aggregate: { type: string } }): boolean => Object.hasOwn(MODEL_AGGREGATES, command.aggregate.type);

/**
 * Everything the command handler's one loop (command-handler.ts) does differently per kind of
 * aggregate: where its facts go, how they are wrapped, which read model holds its version and
 * which ones a caller waits for.
 */
export type Target<Fact> = {
  /** Attempts before a contended command answers 503 (each lost race costs a read-model round trip), and that answer. */
  attempts: number;
  exhausted: string;
  locate: () => Promise<string>;
  subject: (id: string) => string;
  /** Stream sequence of the subject's last message the read model applied (0: none). */
  version: (subject: string) => Promise<number>;
  /** The read model `version` comes from: a lost race waits for it to reach the winner. */
  versionModel: string;
  /** Runs one attempt, queued or not behind this instance's other writes of the subject. */
  serialize: <T>(subject: string, attempt: () => Promise<T>) => Promise<T>;
  /** The message carrying the facts, and its Nats-Msg-Id. */
  message: (facts: Fact[]) => { payload: string; msgId: string };
  /** The read models that must hold the facts before the answer (read-your-writes). */
  readModels: (facts: Fact[]) => string[];
  /** Whether the stream may drop a subject's last message (an age limit): a last sequence below the version is then the one to expect. */
  dropsMessages: boolean;
  /** Whether the read model refused to apply the facts (decided on a state that changed under them): decide again. */
  superseded: (facts: Fact[]) => Promise<boolean>;
  /** This instance's caches that must know the facts before the answer. */
  settled: (facts: Fact[]) => void;
};

export type Run<State, Command, Fact> = {
  target: Target<Fact>;
  decider: Decider<State, Command, Fact>;
  load: (id: string) => Promise<State>;
  build: (state: State, id: string) => Command | Promise<Command>;
};

/** A DOMAIN message: the facts of one decision in an envelope with the actor; the envelope id is the message id. */
function envelopeMessage(actor: Actor, facts: DomainEvent[], id = newId()): { payload: string; msgId: string } {
  const envelope: Envelope<DomainEvent> = { id, at: new Date().toISOString(), actor, events: facts };
  return { payload: JSON.stringify(envelope), msgId: envelope.id };
}

/** DOMAIN aggregates: facts in an envelope with the actor, versions in the directory's `aggregate_versions`. */
export function domainRun<State, Command>(deps: CommandDeps, command: DomainCommand<State, Command>): Run<State, Command, DomainEvent> {
  const { type, id } = command.aggregate;
  return {
    target: {
      attempts: 6,
      exhausted: "too much contention on this resource; retry",
      locate: async () => id,
      subject: (aggregateId) => deps.log.names.aggregateSubject(type, aggregateId),
      version: (subject) => aggregateVersion(deps.pool, subject),
      versionModel: "directory",
      serialize: (_, attempt) => attempt(),
      message: (facts) => envelopeMessage(command.actor, facts),
      // Team and user facts change the directory and the audit log; every other DOMAIN read model skips their subjects.
      readModels: () => ["directory", "audit"],
      dropsMessages: false,
      superseded: async () => false,
      // The directory has applied the facts: a key they revoke stops working before the answer.
      settled: (facts) => deps.keyCache?.forget(facts),
    },
    decider: command.decider,
    load: () => command.load(),
    build: () => command.command,
  };
}

/**
 * Identity subjects: one fact a message (its id is the message id), versions in app_users'
 * `identity_versions`. Writes of one subject queue behind each other within this instance, so a
 * burst for one user costs one round each instead of N conflicting rounds; optimistic concurrency
 * settles races between instances. Each lost race costs a projector round trip, hence more attempts.
 */
export function identityRun<State, Command>(deps: CommandDeps, command: IdentitySubjectCommand<State, Command>): Run<State, Command, IdentityFact> {
  const { projectId, locate } = command.aggregate;
  return {
    target: {
      attempts: 12,
      exhausted: "too much contention on this user; retry",
      locate,
      subject: (userId) => deps.log.names.identitySubject(projectId, userId),
      version: (subject) => identityVersion(deps.pool, subject),
      versionModel: "app_users",
      serialize: (subject, attempt) => deps.oneAtATime.run(subject, attempt),
      message: ([fact, ...more]) => {
        if (fact === undefined || more.length > 0) throw new Error("an identity decision appends exactly one fact");
        return { payload: JSON.stringify(fact), msgId: fact.id };
      },
      // A claim moves the anonymous id's rows in every ingest read model; properties live in app_users only.
      readModels: (facts) => (facts.some((fact) => fact.type === "UserClaimed") ? ingestProjections() : ["app_users"]),
      dropsMessages: true,
      // A property change decided before a claim of the user, or before a claim merged another
      // record into it, is not applied (projections/app-users/properties.ts).
      superseded: async (facts) => {
        for (const fact of facts) if ((fact.type === "UserPropertiesChanged" || fact.type === "UserRevenueSynced") && (await wasSuperseded(deps.pool, fact.id))) return true;
        return false;
      },
      // This instance's ingest re-attributes the claimed id from now on, without waiting for its cache.
      settled: (facts) => {
        for (const fact of facts) if (fact.type === "UserClaimed") deps.claims?.remember(fact.project_id, fact.anonymous_id, fact.user_id);
      },
    },
    decider: command.decider,
    load: command.load,
    build: command.command,
  };
}

/**
 * An aggregate of MODEL_AGGREGATES: DOMAIN envelopes versioned by its read model. Writes of one
 * subject queue within this instance, so a burst (an SDK flushing reservations, the detector's
 * batches of one project) costs a round each instead of N conflicting rounds; optimistic
 * concurrency settles races between instances, each lost race costing a projector round trip.
 * Only the read models the facts touch are waited for: the aggregate's own, and the audit log
 * after an audited change (its caller may read the log next).
 */
export function modelRun<State, Command>(deps: CommandDeps, command: ModelCommand<State, Command>): Run<State, Command, DomainEvent> {
  const { type, id } = command.aggregate;
  const kind = MODEL_AGGREGATES[type];
  return {
    target: {
      attempts: kind.attempts,
      exhausted: `too many changes to this ${type === "device" || type === "inbox" ? type : `${type} subject`} at once; retry`,
      locate: async () => id,
      subject: (aggregateId) => deps.log.names.aggregateSubject(type, aggregateId),
      version: (subject) => kind.version(deps.pool, subject),
      versionModel: kind.model,
      serialize: (subject, attempt) => deps.oneAtATime.run(subject, attempt),
      message: (facts) => envelopeMessage(command.actor, facts, command.messageId),
      readModels: (facts) => (facts.some(kind.audited) ? [kind.model, "audit"] : [kind.model]),
      dropsMessages: false,
      superseded: async () => false,
      settled: () => undefined,
    },
    decider: command.decider,
    load: () => command.load(),
    build: () => command.command,
  };
}
