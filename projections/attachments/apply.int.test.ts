import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DomainEnvelope, DomainEvent } from "../../domain/events.ts";
import { newId } from "../../domain/shared/ids.ts";
import { onSubject, readModelDatabase, type ReadModelDatabase } from "../../test/support/projection.ts";
import { attachmentsProjection } from "./apply.ts";
import { attachmentsVersion, projectUsage } from "./decision-state.ts";

const PROJECT = "00000000-0000-4000-8000-0000000000a1";
const SUBJECT = `t.d.attachments.${PROJECT}`;
const at = (minute: number) => `2026-11-25T12:${String(minute).padStart(2, "0")}:00.000Z`;

let database: ReadModelDatabase;
beforeAll(async () => {
  database = await readModelDatabase();
});
afterAll(async () => database?.drop());

const envelope = (minute: number, ...events: DomainEvent[]): DomainEnvelope => ({ id: newId(), at: at(minute), actor: { type: "system", id: null }, events });
const onProject = (minute: number, ...events: DomainEvent[]) => onSubject(SUBJECT, envelope(minute, ...events));

const reserved = (id: string, size: number): DomainEvent => ({
  type: "AttachmentReserved",
  v: 1,
  attachment_id: id,
  project_id: PROJECT,
  team_id: "00000000-0000-4000-8000-0000000000b1",
  app_id: "00000000-0000-4000-8000-0000000000c1",
  event_client_id: "00000000-0000-4000-8000-0000000000d1",
  user_id: "alice",
  original_filename: "a.png",
  content_type: "image/png",
  size_bytes: size,
  sha256: "a".repeat(64),
  is_dev: false,
  expires_at: at(59),
});
const ID = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;

describe("attachments: rows, usage and versions", () => {
  it("keeps the project's usage with the rows and the subject's version, and skips other subjects", async () => {
    const model = await database.given(
      attachmentsProjection,
      onProject(1, reserved(ID(1), 100), reserved(ID(2), 20)),
      onProject(2, { type: "AttachmentUploaded", v: 1, attachment_id: ID(1), project_id: PROJECT, storage_key: `${PROJECT}/${ID(1)}/u` }),
      onSubject("t.d.team.x", envelope(3, { type: "TeamRenamed", v: 1, team_id: "x", name: "b", previous_name: "a" })),
      onProject(4, { type: "AttachmentDeleted", v: 1, attachment_id: ID(2), project_id: PROJECT, team_id: "x", deleted_at: at(4) }),
      // A repeated deletion and a purge of a deleted attachment count nothing twice.
      onProject(5, { type: "AttachmentDeleted", v: 1, attachment_id: ID(2), project_id: PROJECT, team_id: "x", deleted_at: at(5) }),
      onProject(6, { type: "AttachmentPurged", v: 1, attachment_id: ID(2), project_id: PROJECT, reason: "deleted_grace_elapsed" }),
      onProject(7, reserved(ID(3), 7), { type: "AttachmentPurged", v: 1, attachment_id: ID(3), project_id: PROJECT, reason: "reservation_expired" }),
    );
    expect(await model.rows("attachments", "id")).toMatchObject([
      { id: ID(1), size_bytes: 100, storage_key: `${PROJECT}/${ID(1)}/u`, deleted_at: null, created_at: at(1) },
    ]);
    expect(await model.read((tx) => projectUsage(tx, PROJECT))).toEqual({ bytes: 100, files: 1 });
    expect(await model.read((tx) => attachmentsVersion(tx, SUBJECT))).toBe(7);
    expect(await model.rows("attachment_versions")).toHaveLength(1);
  });
});
