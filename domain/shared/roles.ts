export const ROLES = ["owner", "admin", "member"] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LEVEL: Record<Role, number> = { owner: 3, admin: 2, member: 1 };

export const atLeast = (role: Role, minimum: Role): boolean => ROLE_LEVEL[role] >= ROLE_LEVEL[minimum];
