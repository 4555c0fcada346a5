import { sql, type QuerySqlToken } from "slonik";
import { inputRecords, textArray } from "./columns.ts";
import { beyondReachOf, EVENT_COLUMNS } from "./insert.ts";
import type { FactPart } from "./plan.ts";
import type { ForgottenKey } from "./retained.ts";
import { rollupOf } from "./rollups.ts";

/**
 * The statement that applies imported events (prepared by `planImport`). Every stored event
 * of the app with an imported `client_event_id`, of any age and in any month, is removed and the
 * imported values written under the id of the latest received of them (the import updates the
 * event in place; more than one exists only when an ingest resent it after the 48-hour window, and
 * the import leaves one). A new timestamp in another month moves the row to that partition. The
 * stored country is kept when the import has none (imports carry none: see docs/decisions.md).
 * Events without a match are inserted under their own id.
 *
 * Also kept consistent in the same statement: an ingest of the pair within 48 hours of the import
 * is skipped (as in the metric and funnel read models), found by the dedup probe in `events`, or
 * in `event_dedup` for an imported timestamp beyond the probe's reach (reach.ts), which holds the
 * pair with the import's receipt time; and `event_retimed` holds the timestamp of every event
 * whose id's time prefix no longer matches it.
 *
 * The count rollups (rollups.ts) move with the events: removed ones are taken off their buckets,
 * written ones added. Sketches only grow: a user or session an update takes out of a bucket stays
 * in its sketch, so estimates may over-count there (counts stay exact).
 *
 * `forgotten` are keys of imported events past their project's retention (retained.ts): their
 * stored events are removed like any other key's, nothing is written for them, and the retimed
 * timestamps of removed events not written again go with them.
 */
export function replaceStatement(parts: readonly FactPart[], forgotten: readonly ForgottenKey[] = []): QuerySqlToken {
  const expired =
    forgotten.length === 0
      ? sql.fragment``
      : sql.fragment`
      union
      select * from unnest(${textArray(forgotten.map((key) => key.app_id))}::uuid[], ${textArray(forgotten.map((key) => key.client_event_id))}::uuid[])`;
  const unwritten =
    forgotten.length === 0
      ? sql.fragment``
      : sql.fragment`
    unwritten as (
      delete from event_retimed r using removed d where r.id = d.id and not exists (select 1 from written w where w.id = d.id)
    ),`;
  return sql.unsafe`
    with input as materialized (${inputRecords(parts)}),
    keys as materialized (
      select distinct app_id, client_event_id from input where client_event_id is not null${expired}
    ),
    removed as (
      delete from events e using keys k
       where e.app_id = k.app_id and e.client_event_id = k.client_event_id
      returning e.app_id, e.client_event_id, e.id, e.received_at, e.country_code, e.project_id, e.level, e.is_dev, e."timestamp"
    ),
    kept as (
      select distinct on (app_id, client_event_id) app_id, client_event_id, id, country_code from removed
       order by app_id, client_event_id, received_at desc, id desc
    ),
    written as materialized (
      select coalesce(k.id, i.id) as id, i.app_id, i.project_id, i.client_event_id, i.session_id, i.user_id, i.api_key_id,
             i.level, i.source_module, i.message, i.screen_name, i.custom_attributes, i.environment, i.os_version,
             i.app_version, i.sdk_name, i.sdk_version, i.build_number, i.device_model, i.locale,
             coalesce(i.country_code, k.country_code) as country_code, i.is_dev, i."timestamp", i.received_at
        from input i left join kept k on k.app_id = i.app_id and k.client_event_id = i.client_event_id
    ),
    forgotten as (
      delete from event_dedup d using keys k where d.app_id = k.app_id and d.client_event_id = k.client_event_id
    ),
    remembered as (
      insert into event_dedup (app_id, client_event_id, event_id, received_at) ${beyondReachOf("written")}
    ),
    placed as (
      -- The time prefix of a version 7 UUID: its first 48 bits, milliseconds since the epoch.
      select id, "timestamp",
             'epoch'::timestamptz + ('x' || left(replace(id::text, '-', ''), 12))::bit(48)::bigint * interval '1 millisecond'
               <> "timestamp" as moved
        from written
    ),
    retimed as (
      insert into event_retimed (id, "timestamp") select id, "timestamp" from placed where moved
      on conflict (id) do update set "timestamp" = excluded."timestamp"
    ),
    ${unwritten}
    restored as (
      delete from event_retimed r using placed p where r.id = p.id and not p.moved
    ),
    inserted as (
      insert into events (${EVENT_COLUMNS}) select ${EVENT_COLUMNS} from written
    ),
    -- The rollups lose the removed events from their buckets and gain the written ones: an update
    -- that moves an event in time or between production and development moves its count with it.
    changes as (
      select app_id, project_id, "timestamp", level, is_dev, null::text as user_id, null::uuid as session_id, -1 as delta from removed
      union all
      select app_id, project_id, "timestamp", level, is_dev, user_id, session_id, 1 from written
    ),
    ${rollupOf("changes", true)}`;
}
