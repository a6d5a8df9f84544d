/**
 * User accounts (API.md §3.12), stored as catalogue-style records of kind USER (records.ts):
 * unique username and e-mail (case-insensitive), orderings for the administrator's list.
 * Private attributes (never in responses): `token_version`, which every token carries and
 * which increases whenever all of a user's tokens must stop working.
 */
import type { Role } from '../auth/roles.js';
import { uniquenessKey } from '../text.js';
import type { Item, ItemKey } from './batch.js';
import { createRecord, getRecord, recordKeyOf, storedFromItem, type BaseRecord, type EntityDef, type Stored } from './records.js';

export interface UserRecord extends BaseRecord {
  username: string;
  email: string;
  role: Role;
  is_active: boolean;
  is_staff: boolean;
  last_login: string | null;
}

export interface UserPrivate {
  token_version: number;
}

export const users: EntityDef<UserRecord> = {
  kind: 'USER',
  orderings: {
    username: { value: (u) => u.username, type: 'text' },
    created_at: { value: (u) => u.created_at, type: 'plain' },
    last_login: { value: (u) => u.last_login, type: 'plain' },
  },
  unique: [
    { field: 'username', key: (u) => uniquenessKey(u.username), message: 'A user with that username already exists.' },
    { field: 'email', key: (u) => u.email.toLowerCase(), message: 'A user with that email already exists.' },
  ],
  searchFields: (u) => [u.username],
  filterAttributes: (u) => ({ role: u.role, is_active: u.is_active }),
};

export type StoredUser = Stored<UserRecord> & { priv: UserPrivate };

/** Where a user lives (for batched reads, see batch.ts). */
export const userKey = (id: string): ItemKey => recordKeyOf(users, id);

/** The user of a user item (`null`: no item). */
export function userFromItem(item: Item | null | undefined): StoredUser | null {
  return withPrivate(storedFromItem<UserRecord>(item));
}

function withPrivate(stored: Stored<UserRecord> | null): StoredUser | null {
  if (!stored) return null;
  return { ...stored, priv: { token_version: Number(stored.priv?.token_version ?? 0) } };
}

export async function getUser(id: string): Promise<StoredUser | null> {
  return withPrivate(await getRecord(users, id));
}

export async function createUser(user: UserRecord, priv: UserPrivate): Promise<void> {
  await createRecord(users, user, { ...priv });
}
