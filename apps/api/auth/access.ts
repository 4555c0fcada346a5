import type { Actor } from "../../../domain/shared/envelope.ts";
import { forbidden, notFound } from "../../../domain/shared/errors.ts";
import { atLeast, type Role } from "../../../domain/shared/roles.ts";
import { memberRole, teamsOfUser } from "../../../projections/directory/queries.ts";
import type { ApiDeps } from "../deps.ts";
import type { WritingKeyType } from "../ingest/caller.ts";
import type { Principal } from "./principal.ts";

/**
 * What an operation demands: API keys need `permission` (and must belong to the resource's team),
 * users need at least `role` in the team. `userOnly` operations answer 403 to every API key.
 */
export type Rule = { permission: string; role: Role; userOnly?: boolean };

/**
 * Who may call a route, declared as the route option `config.access`:
 * - `public`: anyone; no credentials are read.
 * - `session`: a signed-in user (JWT bearer or `token` cookie); every API key is refused with 403.
 * - `any`: any valid credentials, a user session or an API key of any type (who-am-I).
 * - `team`: users with at least `role` in the team of the resource, API keys of that team holding
 *   `permission` (none with `userOnly`). The key half is checked first, before any lookup, so a
 *   missing permission never reveals whether a resource exists. When the path names the team
 *   (`teamParam`), the plugin checks the team too, before the input is read, so an outsider gets
 *   404 whatever they send; otherwise the handler checks it once it knows the resource's team
 *   (`authorize`).
 * - `app-key`: the app-bound key of ingest (`client`) or import (`import`) with events:write,
 *   resolved through the key cache; every ingest call spends a rate-limit token (imports are not
 *   rate limited).
 * - `sdk-key`: a client key holding `permission`, acting on its app's project (identity calls).
 * `rateLimited` spends a token of the caller's bucket (a key's, a user's, or the address's when
 * the credentials are refused).
 */
export type Access =
  | { kind: "public" }
  | { kind: "session" }
  | { kind: "any" }
  | ({ kind: "team"; rateLimited?: boolean; teamParam?: string } & Rule)
  | { kind: "app-key"; keyType: WritingKeyType }
  | { kind: "sdk-key"; permission: string };

export const PUBLIC: Access = { kind: "public" };
export const SESSION: Access = { kind: "session" };
export const ANY_CREDENTIAL: Access = { kind: "any" };
export const team = (rule: Rule, options: { rateLimited?: boolean; teamParam?: string } = {}): Access => ({ kind: "team", ...rule, ...options });
/** Signed-in users with at least `role` in the team the path names (`:teamId`); API keys get 403. */
export const teamMember = (role: Role): Access => ({ kind: "team", permission: "", role, userOnly: true, teamParam: "teamId" });
export const appKey = (keyType: WritingKeyType): Access => ({ kind: "app-key", keyType });
export const sdkKey = (permission: string): Access => ({ kind: "sdk-key", permission });

/** The key-side half of a rule, checked before any lookup so a missing permission never reveals whether a resource exists. */
export function checkKeyRule(caller: Principal, rule: Rule): void {
  if (caller.kind !== "key") return;
  if (rule.userOnly) throw forbidden("this operation requires a user session");
  if (!caller.permissions.includes(rule.permission)) throw forbidden(`requires the ${rule.permission} permission`);
}

/**
 * Checks the caller may perform `rule` on a resource of `teamId`.
 * @throws DomainError not_found `resource` when the team is not the caller's, forbidden for a missing permission or role
 */
export async function authorize(deps: ApiDeps, caller: Principal, teamId: string, rule: Rule, resource: string): Promise<void> {
  checkKeyRule(caller, rule);
  if (caller.kind === "key") {
    if (caller.teamId !== teamId) throw notFound(resource);
    return;
  }
  const role = await memberRole(deps.pool, teamId, caller.userId);
  if (!role) throw notFound(resource);
  if (!atLeast(role, rule.role)) throw forbidden(`requires the ${rule.role} role`);
}

/**
 * The teams whose resources a list shows: the key's own team, or every team the user belongs to,
 * narrowed to `teamId` when given (a team the caller cannot see gives an empty list).
 */
export async function visibleTeams(deps: ApiDeps, caller: Principal, rule: Rule, teamId?: string): Promise<string[]> {
  checkKeyRule(caller, rule);
  const teams = caller.kind === "key" ? [caller.teamId] : (await teamsOfUser(deps.pool, caller.userId)).map((team) => team.id);
  return teamId === undefined ? teams : teams.filter((id) => id === teamId);
}

/** Who a fact records as having made the change. */
export const actorOf = (caller: Principal): Actor =>
  caller.kind === "key" ? { type: "api_key", id: caller.keyId } : { type: "user", id: caller.userId };

/** The user a key is recorded as created by: the user, or the user behind the calling agent key. */
export const creatorOf = (caller: Principal): string | null => (caller.kind === "user" ? caller.userId : caller.createdBy);
