import { sql, type CommonQueryMethods, type DatabaseTransactionConnection } from "slonik";
import { z } from "zod";
import type { Fact } from "./projection.ts";

/**
 * The `<read model>_versions (subject, last_seq)` tables of the read models that version their
 * aggregates (directory, attachments, feedback, issues, notifications). A read model records the
 * sequence of each subject's last applied message in the same transaction as its rows, so a
 * command that reads the version first and the state second never decides on state older than
 * the version it expects.
 */
export async function recordSubjectVersion(tx: DatabaseTransactionConnection, table: string, fact: Fact): Promise<void> {
  await tx.query(sql.unsafe`
    insert into ${sql.identifier([table])} (subject, last_seq) values (${fact.subject}, ${fact.seq})
    on conflict (subject) do update set last_seq = excluded.last_seq`);
}

/** The stream sequence of `subject`'s last message applied into `table`, 0 when none. */
export async function subjectVersion(db: CommonQueryMethods, table: string, subject: string): Promise<number> {
  return (await db.maybeOneFirst(sql.type(z.object({ last_seq: z.number() }))`select last_seq from ${sql.identifier([table])} where subject = ${subject}`)) ?? 0;
}
