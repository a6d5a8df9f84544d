/** Roles of API.md §2.3, in order: each includes the rights of those before it. */
export const ROLES = ['member', 'premium', 'contributor', 'moderator', 'administrator'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function hasRole(role: Role, atLeast: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(atLeast);
}

/** `is_staff` is derived from the role (§2.3). */
export function isStaff(role: Role): boolean {
  return hasRole(role, 'moderator');
}

/** The identity a request runs as, once its credentials are checked. */
export interface Caller {
  user_id: string;
  username: string;
  role: Role;
}
