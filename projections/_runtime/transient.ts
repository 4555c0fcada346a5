/**
 * Whether `error` says the database or the log is unavailable, not that the fact or request is
 * bad: Postgres connection, resource and conflict classes (08, 53, 57P, 40), and errors whose
 * name or message says connection, timeout or unavailability (pg, slonik and NATS clients alike),
 * and a projector runner whose position moved (it restarts from the stored checkpoint). Throws nothing.
 */
export function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  if (typeof code === "string" && /^(08|53|57P|40)/.test(code)) return true;
  const name = (error as Error).name ?? "";
  return /Connection|BackendTerminated|Timeout|Unavailable|PositionMoved/.test(name) || /ECONNREFUSED|ECONNRESET|terminat/i.test(String((error as Error).message));
}
