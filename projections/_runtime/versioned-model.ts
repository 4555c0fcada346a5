import type { DatabaseTransactionConnection } from "slonik";
import { decodeDomainEnvelope, type DomainEvent } from "../../domain/events.ts";
import type { Fact, Projection } from "./projection.ts";
import { recordSubjectVersion } from "./subject-versions.ts";
import { subjectKindOf } from "./subjects.ts";

export type VersionedModel<Own extends DomainEvent> = {
  name: string;
  migrationsDir: URL;
  /** The DOMAIN subject kinds the model owns (`<ns>.d.<kind>.<id>`); other subjects are skipped undecoded. */
  subjectKinds: readonly string[];
  /** The `<model>_versions` table its commands read their expected sequence from. */
  versionsTable: string;
  isOwnFact: (event: DomainEvent) => event is Own;
  /** Applies one fact; `at` is its message's time. */
  applyFact: (tx: DatabaseTransactionConnection, fact: Own, at: string) => Promise<void>;
};

/**
 * A read model of the DOMAIN aggregates whose versions it keeps (apps/commands MODEL_AGGREGATES):
 * it applies the facts of its own subjects in order and moves each subject's version in the same
 * transaction, so a command that reads the version first and the state second never decides on a
 * state older than the version it expects. A parked message still takes its place in the
 * subject's history, so commands can go on.
 */
export function versionedModelProjection<Own extends DomainEvent>(model: VersionedModel<Own>): Projection {
  const isOwnSubject = (subject: string) => model.subjectKinds.includes(subjectKindOf(subject) ?? "");
  const recordVersion = async (tx: DatabaseTransactionConnection, fact: Fact) => {
    if (isOwnSubject(fact.subject)) await recordSubjectVersion(tx, model.versionsTable, fact);
  };
  return {
    name: model.name,
    stream: "DOMAIN",
    migrationsDir: model.migrationsDir,
    apply: async (tx, facts) => {
      for (const fact of facts) {
        if (!isOwnSubject(fact.subject)) continue;
        const envelope = decodeDomainEnvelope(fact.data);
        for (const event of envelope.events) if (model.isOwnFact(event)) await model.applyFact(tx, event, envelope.at);
        await recordVersion(tx, fact);
      }
    },
    parked: recordVersion,
  };
}
