import type { Role } from "./queries.ts";

export const ROLES: Role[] = ["owner", "admin", "member"];
export const ROLE_LABELS: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };
const LEVEL: Record<Role, number> = { owner: 3, admin: 2, member: 1 };

/**
 * Whether `actor` may manage someone holding `target` (SPEC: owners manage anyone, admins only
 * lower roles). It only decides which controls are offered; the API judges every change itself.
 */
export const mayManage = (actor: Role, target: Role) => actor === "owner" || (actor === "admin" && LEVEL[target] < LEVEL[actor]);

/** The roles `actor` may hand out: only owners make owners. */
export const grantable = (actor: Role) => ROLES.filter((role) => actor === "owner" || (actor === "admin" && role !== "owner"));
