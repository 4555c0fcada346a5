import { sql, type DatabaseTransactionConnection } from "slonik";
import { DEDUP_WINDOW_MS } from "../../domain/ingest/rules.ts";
import type { Chunk, FactPart } from "./plan.ts";

export const EVENT_COLUMNS = sql.fragment`
  id, app_id, project_id, client_event_id, session_id, user_id, api_key_id, level, source_module, message, screen_name,
  custom_attributes, environment, os_version, app_version, sdk_name, sdk_version, build_number, device_model, locale,
  country_code, is_dev, "timestamp", received_at`;

/**
 * Writes one chunk with a single statement. The rows travel as one `json` parameter, nested as
 * facts holding their events, so batch-wide values are sent and parsed once per fact; `json`
 * rather than `jsonb` because it is read once. (Measured on this machine, 5,000 rows, best of 6:
 * nested json 59 ms, flat json 70 ms, flat jsonb 83 ms, unnest of 24 arrays 71 ms; COPY would
 * need a staging table plus a driver connection the transaction helper does not expose.)
 *
 * Dedup: an event with a `client_event_id` already kept for its app in the 48 hours before its
 * receipt is skipped; kept pairs are remembered in `event_dedup`. The projector is the only
 * writer, facts are applied in stream order and `planChunks` removed repeats inside the chunk, so
 * the anti-join is race-free. `cutoff` bounds the scan to the dedup days that can match.
 */
export async function insertChunk(tx: DatabaseTransactionConnection, chunk: Chunk): Promise<void> {
  const window = `${DEDUP_WINDOW_MS} milliseconds`;
  const cutoff = new Date(chunk.minReceivedMs - DEDUP_WINDOW_MS).toISOString();
  await tx.query(sql.unsafe`
    with input as materialized (${inputRecords(factPayload(chunk.parts))}),
    fresh as materialized (
      select * from input i
       where i.client_event_id is null
          or not exists (
               select 1 from event_dedup d
                where d.app_id = i.app_id and d.client_event_id = i.client_event_id
                  and d.received_at >= i.received_at - ${window}::interval
                  and d.received_at >= ${cutoff}::timestamptz)
    ),
    remembered as (
      insert into event_dedup (app_id, client_event_id, event_id, received_at)
      select app_id, client_event_id, id, received_at from fresh where client_event_id is not null
    )
    insert into events (${EVENT_COLUMNS}) select ${EVENT_COLUMNS} from fresh`);
}

/** Facts nesting their events, as the one `json` parameter of a write statement. */
export const factPayload = (parts: readonly FactPart[]) =>
  JSON.stringify(
    parts.map(({ fact, events }) => ({
      app_id: fact.app_id,
      project_id: fact.project_id,
      api_key_id: fact.api_key_id,
      received_at: fact.received_at,
      country_code: fact.country_code,
      events,
    })),
  );

/** One row per event of `payload`, with its fact's batch-wide values. */
export const inputRecords = (payload: string) => sql.fragment`
  select f.app_id, f.project_id, f.api_key_id, f.received_at, f.country_code, e.*
    from json_to_recordset(${payload}::json) as f(
           app_id uuid, project_id uuid, api_key_id uuid, received_at timestamptz, country_code text, events json)
    cross join lateral json_to_recordset(f.events) as e(
           id uuid, client_event_id uuid, session_id uuid, user_id text, level text, source_module text, message text,
           screen_name text, custom_attributes jsonb, environment text, os_version text, app_version text, sdk_name text,
           sdk_version text, build_number text, device_model text, locale text, is_dev boolean, "timestamp" timestamptz)`;
