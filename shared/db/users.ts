/**
 * User accounts (API.md §3.12), stored as records of kind USER (records.ts): unique username
 * and e-mail (case-insensitive; both claims carry the record, so an account is read by e-mail
 * (sign-in) or by username (public views) in one GetItem), orderings for the administrator's
 * list, `role`, `is_active` and `email` on the ordering items for filters and the e-mail search.
 *
 * Private attributes (never in responses, see UserPrivate): the password hash, the token
 * version every token carries (raising it revokes all of a user's tokens), revoked refresh-token
 * families, the nonce of the current e-mailed token of each purpose, a pending e-mail change, and
 * whether the account was ever activated.
 *
 * Pending registrations (accounts never activated, removed by the cleanup job after 30 days,
 * API.md §5.5) have an entry in one partition, sorted by registration time:
 *
 *   pending   pk = USER#PENDING   sk = <created_at>#<id>   { id, created_at }
 *
 * The user plans below keep it in step with the account: it is put by the transaction that
 * creates a pending account, and deleted by the one that activates it (activation, an
 * administrator's `is_active: true`, social sign-in linking it) or deletes it. So the accounts
 * registered before a given time are one Query away, without a Scan.
 */
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Purpose } from '../auth/email-tokens.js';
import type { Role } from '../auth/roles.js';
import { uniquenessKey } from '../text.js';
import type { Item, ItemKey } from './batch.js';
import { db, tableName } from './client.js';
import {
  commit,
  createPlan,
  del,
  deletePlan,
  getByUnique,
  getRecord,
  itemPlan,
  joinPlans,
  put,
  recordKeyOf,
  replacePlan,
  storedFromItem,
  uniqueKeyOf,
  unchangedPlan,
  type BaseRecord,
  type EntityDef,
  type Stored,
  type WritePlan,
} from './records.js';

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
  /** `null`: no usable password (accounts made by social sign-in). */
  password_hash: string | null;
  /** When the account was first activated; `null`: never (registration pending). */
  activated_at: string | null;
  /** Refresh-token families revoked by reuse detection → until when (epoch seconds) to remember them. */
  revoked_families?: Record<string, number>;
  /** The nonce of the one current e-mailed token of each purpose. */
  nonces?: Partial<Record<Purpose, string>>;
  /** The address of an e-mail change waiting for its confirmation. */
  pending_email?: string;
  /**
   * E-mail change requests made at or before this time are void (shared/email/requests.ts): a
   * later request was decided already, or the password, the address or the active state changed
   * since they were made.
   */
  email_changes_void_until?: string;
}

export const users: EntityDef<UserRecord> = {
  kind: 'USER',
  orderings: {
    username: { value: (u) => u.username, type: 'text' },
    created_at: { value: (u) => u.created_at, type: 'plain' },
    last_login: { value: (u) => u.last_login, type: 'plain' },
  },
  unique: [
    { field: 'username', key: (u) => usernameKey(u.username), message: 'A user with that username already exists.', carry: true },
    { field: 'email', key: (u) => emailKey(u.email), message: 'A user with that email already exists.', carry: true },
  ],
  searchFields: (u) => [u.username],
  filterAttributes: (u) => ({ role: u.role, is_active: u.is_active, email: u.email }),
};

export const usernameKey = (username: string) => uniquenessKey(username);
export const emailKey = (email: string) => email.trim().toLowerCase();

export type StoredUser = Stored<UserRecord> & { priv: UserPrivate };

/** Where a user lives (for batched reads, see batch.ts). */
export const userKey = (id: string): ItemKey => recordKeyOf(users, id);

function withPrivate(stored: Stored<UserRecord> | null): StoredUser | null {
  if (!stored) return null;
  const p = (stored.priv ?? {}) as Partial<UserPrivate>;
  return {
    ...stored,
    priv: {
      ...p,
      token_version: Number(p.token_version ?? 0),
      password_hash: p.password_hash ?? null,
      activated_at: p.activated_at ?? null,
    },
  };
}

/** Where the claim of a username lives: it carries the user (public views read it, batched with a caller's user). */
export const userByUsernameKey = (username: string): ItemKey => uniqueKeyOf(users, 'username', usernameKey(username));

/** The user of a user item (`null`: no item). */
export function userFromItem(item: Item | null | undefined): StoredUser | null {
  return withPrivate(storedFromItem<UserRecord>(item));
}

export async function getUser(id: string): Promise<StoredUser | null> {
  return withPrivate(await getRecord(users, id));
}

export async function getUserByEmail(email: string): Promise<StoredUser | null> {
  return withPrivate(await getByUnique(users, 'email', emailKey(email)));
}

export async function getUserByUsername(username: string): Promise<StoredUser | null> {
  return withPrivate(await getByUnique(users, 'username', usernameKey(username)));
}

// ---------------------------------------------------------------------------------------------
// Pending registrations

const PENDING_PK = 'USER#PENDING';
const pendingKey = (u: Pick<UserRecord, 'id' | 'created_at'>): ItemKey => ({ pk: PENDING_PK, sk: `${u.created_at}#${u.id}` });

/**
 * A registration waiting for its activation: not active and never activated. (An account an
 * administrator deactivated was activated once; it is not pending.)
 */
export const isPendingRegistration = (user: Pick<UserRecord, 'is_active'>, priv: Pick<UserPrivate, 'activated_at'>): boolean =>
  !user.is_active && priv.activated_at === null;

const putPending = (u: UserRecord) => itemPlan(put({ ...pendingKey(u), id: u.id, created_at: u.created_at }));
const deletePending = (u: UserRecord) => itemPlan(del(pendingKey(u)));

/** The entry of a pending registration, as the cleanup job reads it. */
export interface PendingEntry {
  id: string;
  created_at: string;
  /** The entry's sort key (where the next page starts). */
  sk: string;
}

/**
 * Pending registrations made before `before` (ISO time), oldest first, `limit` per page, from
 * after the entry whose sort key is `after`. One Query of the pending partition, consistent.
 */
export async function pendingRegistrations(before: string, limit: number, after?: string): Promise<{ entries: PendingEntry[]; more: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: tableName(),
      // `<created_at>#<id>` < `<before>` exactly when created_at < before ('#' sorts before every
      // character of an ISO time, and the times have one length).
      KeyConditionExpression: 'pk = :pk AND sk < :before',
      ExpressionAttributeValues: { ':pk': PENDING_PK, ':before': before },
      ...(after ? { ExclusiveStartKey: { pk: PENDING_PK, sk: after } } : {}),
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  const entries = (out.Items ?? []).map((item) => ({ id: String(item.id), created_at: String(item.created_at), sk: String(item.sk) }));
  return { entries, more: out.LastEvaluatedKey !== undefined };
}

/** Removes an entry whose account is no longer pending (activated or deleted meanwhile). */
export async function removePendingEntry(entry: Pick<PendingEntry, 'sk'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: PENDING_PK, sk: entry.sk } }));
}

// ---------------------------------------------------------------------------------------------
// Writes (each keeps the pending entry in step)

/** Creates the user; a pending registration gets its pending entry in the same transaction. */
export function createUserPlan(user: UserRecord, priv: UserPrivate): WritePlan {
  const create = createPlan(users, user, { ...priv } as Record<string, unknown>);
  return isPendingRegistration(user, priv) ? joinPlans(create, putPending(user)) : create;
}

/**
 * Replaces the user (at the revision read) and its private attributes. Activating a pending
 * registration removes its pending entry in the same transaction.
 */
export function replaceUserPlan(before: StoredUser, after: UserRecord, priv: UserPrivate = before.priv): WritePlan {
  const replace = replacePlan(users, before, after, prune({ ...priv }) as unknown as Record<string, unknown>);
  const was = isPendingRegistration(before.record, before.priv);
  const is = isPendingRegistration(after, priv);
  if (was && !is) return joinPlans(replace, deletePending(before.record));
  if (!was && is) return joinPlans(replace, putPending(after));
  return replace;
}

/** Deletes the user (at the revision read), with its pending entry if it has one. */
export function deleteUserPlan(stored: StoredUser): WritePlan {
  const remove = deletePlan(users, stored);
  return isPendingRegistration(stored.record, stored.priv) ? joinPlans(remove, deletePending(stored.record)) : remove;
}

/** A condition that the user is unchanged since it was read (for writes that copy its username). */
export const userUnchangedPlan = (stored: StoredUser): WritePlan => unchangedPlan(users, stored);

/** Forgets revoked families whose tokens have all expired. */
function prune(priv: UserPrivate): UserPrivate {
  if (!priv.revoked_families) return priv;
  const now = Math.floor(Date.now() / 1000);
  const kept = Object.fromEntries(Object.entries(priv.revoked_families).filter(([, until]) => until > now));
  return { ...priv, revoked_families: kept };
}

export async function createUser(user: UserRecord, priv: UserPrivate): Promise<void> {
  await commit(createUserPlan(user, priv));
}
