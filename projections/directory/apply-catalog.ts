import { sql } from "slonik";
import { applyChanges, type Context, type Of } from "./row-updates.ts";

/** Projects and apps of the directory read model: the cases `apply.ts` delegates to. */

export async function projectCreated({ tx, at }: Context, event: Of<"ProjectCreated">): Promise<void> {
  if (event.replaces_project_ids.length > 0) {
    const replaced = sql.array(event.replaces_project_ids, "uuid");
    await tx.query(sql.unsafe`delete from apps where project_id = any(${replaced})`);
    await tx.query(sql.unsafe`delete from metric_definitions where project_id = any(${replaced})`);
    await tx.query(sql.unsafe`delete from funnel_definitions where project_id = any(${replaced})`);
    await tx.query(sql.unsafe`delete from projects where id = any(${replaced})`);
  }
  await tx.query(sql.unsafe`
    insert into projects (id, team_id, name, slug, color, retention_days_events, retention_days_metrics, retention_days_funnels,
                          created_at, updated_at)
    values (${event.project_id}, ${event.team_id}, ${event.name}, ${event.slug}, ${event.color}, ${event.retention_days_events},
            ${event.retention_days_metrics}, ${event.retention_days_funnels}, ${at}, ${at})
    on conflict (id) do nothing`);
}

export const projectUpdated = (context: Context, event: Of<"ProjectUpdated">) => applyChanges(context, "projects", event.project_id, event.changes);

export async function projectDeleted({ tx, at }: Context, event: Of<"ProjectDeleted">): Promise<void> {
  await tx.query(sql.unsafe`update projects set deleted_at = ${at}, updated_at = ${at} where id = ${event.project_id} and deleted_at is null`);
  await tx.query(sql.unsafe`
    update api_keys set deleted_at = ${at}, updated_at = ${at}
     where deleted_at is null and app_id in (select id from apps where project_id = ${event.project_id})`);
  await tx.query(sql.unsafe`
    update apps set deleted_at = ${at}, updated_at = ${at} where project_id = ${event.project_id} and deleted_at is null`);
}

/** A deleted team takes its projects and apps with it (its keys are handled with the team). */
export async function teamCatalogDeleted({ tx, at }: Context, teamId: string): Promise<void> {
  await tx.query(sql.unsafe`update projects set deleted_at = ${at}, updated_at = ${at} where team_id = ${teamId} and deleted_at is null`);
  await tx.query(sql.unsafe`update apps set deleted_at = ${at}, updated_at = ${at} where team_id = ${teamId} and deleted_at is null`);
}

export async function appCreated({ tx, at }: Context, event: Of<"AppCreated">): Promise<void> {
  await tx.query(sql.unsafe`
    insert into apps (id, team_id, project_id, name, platform, bundle_id, client_key_id, created_at, updated_at)
    values (${event.app_id}, ${event.team_id}, ${event.project_id}, ${event.name}, ${event.platform}, ${event.bundle_id},
            ${event.client_key_id}, ${at}, ${at})
    on conflict (id) do nothing`);
}

export async function appRenamed({ tx, at }: Context, event: Of<"AppRenamed">): Promise<void> {
  await tx.query(sql.unsafe`update apps set name = ${event.name}, updated_at = ${at} where id = ${event.app_id}`);
}

export async function appDeleted({ tx, at }: Context, event: Of<"AppDeleted">): Promise<void> {
  await tx.query(sql.unsafe`update apps set deleted_at = ${at}, updated_at = ${at} where id = ${event.app_id} and deleted_at is null`);
  await tx.query(sql.unsafe`update api_keys set deleted_at = ${at}, updated_at = ${at} where app_id = ${event.app_id} and deleted_at is null`);
}
