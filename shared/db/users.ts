/**
 * User accounts (API.md §3.12), stored as records of kind USER (records.ts): unique username
 * and e-mail (case-insensitive; both claims carry the record, so an account is read by e-mail
 * (sign-in) or by username (public views) in one GetItem — only the e-mail claim with the
 * private attributes, which sign-in needs), orderings for the administrator's list, `role`,
 * `is_active` and `email` on the ordering items for filters and the e-mail search.
 *
 * Private attributes (never in responses, see UserPrivate): the password hash, the token
 * version every token carries (raising it revokes all of a user's tokens), the nonce of the
 * current e-mailed token of each purpose, a pending e-mail change, and whether the account was
 * ever activated.
 *
 * The auth state: what a token check needs, and nothing secret, in an item of its own, so that
 * the functions that check tokens (the authorizer, public routes, refresh, verify) may read it
 * without being able to read user records (docs/decisions.md):
 *
 *   auth      pk = AUTH#<id>   sk = A   { user_id, username, role, is_active, token_version, rev,
 *                                         revoked_families }
 *
 * The user plans below write it in the transaction of every change of the user (`rev` is the
 * user's revision), so it never disagrees with the record. `revoked_families` (refresh-token
 * families revoked by reuse detection → until when to remember them) lives only here: the
 * plans leave it as it is, and revoking a family updates only this item.
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
import type { Purpose } from '../auth/email-tokens.js';
import type { Role } from '../auth/roles.js';
import { uniquenessKey } from '../text.js';
import type { Item, ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { isConditionalCheckFailed } from './errors.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import {
  claimKeys,
  commit,
  createPlan,
  del,
  deletePlan,
  entityKeys,
  getByUnique,
  getRecord,
  itemPlan,
  joinPlans,
  listReads,
  put,
  replacePlan,
  storedFromItem,
  unchangedPlan,
  uniqueKeyOf,
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
    // Public views read users by username: that claim carries the record without its private attributes.
    { field: 'username', key: (u) => usernameKey(u.username), message: 'A user with that username already exists.', carry: 'record' },
    // Sign-in and the e-mail flows need the password hash and the nonces: one read by e-mail.
    { field: 'email', key: (u) => emailKey(u.email), message: 'A user with that email already exists.', carry: 'record+private' },
  ],
  searchFields: (u) => [u.username],
  filterAttributes: (u) => ({ role: u.role, is_active: u.is_active, email: u.email }),
};

export const usernameKey = (username: string) => uniquenessKey(username);
export const emailKey = (email: string) => email.trim().toLowerCase();

export type StoredUser = Stored<UserRecord> & { priv: UserPrivate };

/** Every item of every account: records, claims, ordering entries, the counter, pending entries (not the auth state). */
export const USER_KEYS: KeyPattern = entityKeys(users);
/** The username claims (records without their private attributes): what public views of users read. */
export const USERNAME_CLAIM_KEYS: KeyPattern = claimKeys(users, 'username');
/** What the administrator's user list reads: the ordering entries and the counter. */
export const USER_LIST_READS: KeyGrants = listReads(users);
/** Reading an account: its record by id, or the claim that carries it (GetItem; getUser, getUserByEmail, getUserByUsername). */
export const ACCOUNT_READS: KeyGrants = grant(USER_KEYS, 'GetItem');

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

/** Where the claim of a username lives: it carries the user (public views read it, batched with a caller's auth state). */
export const userByUsernameKey = (username: string): ItemKey => uniqueKeyOf(users, 'username', usernameKey(username));

/** A user as its username claim carries it: without private attributes (a claim written before they were left out may still hold them). */
const withoutPrivate = (stored: Stored<UserRecord> | null): Stored<UserRecord> | null => stored && { record: stored.record, rev: stored.rev };

/** The user of a username claim item (`null`: no item). */
export const userByUsernameFromItem = (item: Item | null | undefined): Stored<UserRecord> | null => withoutPrivate(storedFromItem<UserRecord>(item));

export async function getUser(id: string): Promise<StoredUser | null> {
  return withPrivate(await getRecord(users, id));
}

export async function getUserByEmail(email: string): Promise<StoredUser | null> {
  return withPrivate(await getByUnique(users, 'email', emailKey(email)));
}

/** The user with this username, without private attributes (its claim does not carry them). */
export async function getUserByUsername(username: string): Promise<Stored<UserRecord> | null> {
  return withoutPrivate(await getByUnique(users, 'username', usernameKey(username)));
}

// ---------------------------------------------------------------------------------------------
// Auth state

/** What a token check reads: the user's role, state and token version, and revoked refresh-token families. */
export interface AuthState {
  user_id: string;
  username: string;
  role: Role;
  is_active: boolean;
  token_version: number;
  /** Refresh-token families revoked by reuse detection → until when (epoch seconds) to remember them. */
  revoked_families: Record<string, number>;
  /** The user's revision (the record's `rev`). */
  rev: number;
}

const authKey = (id: string): ItemKey => ({ pk: `AUTH#${id}`, sk: 'A' });

/** Every auth state: what functions that check tokens may read. */
export const AUTH_KEYS: KeyPattern = authKey('*').pk;

/**
 * What the user plans do to an account's items (below): a creation puts the user's items, counts
 * it (UpdateItem of the counter) and writes its auth state (an UpdateItem, which keeps revoked
 * families); a replacement puts them again and deletes those whose keys moved (a claim, an
 * ordering entry, the pending entry); a registration re-created under a new id
 * (accounts.ts replaceRegistration) also deletes its old auth state; a deletion deletes them all
 * and counts it down.
 */
export const USER_WRITES = {
  create: grants(grant(USER_KEYS, 'PutItem', 'UpdateItem'), grant(AUTH_KEYS, 'UpdateItem')),
  replace: grants(grant(USER_KEYS, 'PutItem', 'DeleteItem'), grant(AUTH_KEYS, 'UpdateItem')),
  recreate: grants(grant(USER_KEYS, 'PutItem', 'DeleteItem'), grant(AUTH_KEYS, 'UpdateItem', 'DeleteItem')),
  delete: grants(grant(USER_KEYS, 'DeleteItem', 'UpdateItem'), grant(AUTH_KEYS, 'DeleteItem')),
} as const satisfies Record<string, KeyGrants>;

/** Where a user's auth state lives (for batched reads, see batch.ts). */
export const authKeyOf = (id: string): ItemKey => authKey(id);

/** The auth state of an auth item (`null`: no item). */
export function authFromItem(item: Item | null | undefined): AuthState | null {
  if (!item) return null;
  return {
    user_id: String(item.user_id),
    username: String(item.username),
    role: item.role as Role,
    is_active: item.is_active === true,
    token_version: Number(item.token_version),
    revoked_families: (item.revoked_families ?? {}) as Record<string, number>,
    rev: Number(item.rev),
  };
}

export async function getAuthState(id: string): Promise<AuthState | null> {
  return authFromItem((await send((c) => new c.GetCommand({ TableName: tableName(), Key: authKey(id), ConsistentRead: true }))).Item);
}

/** Writes the auth state of `user` at revision `rev`, keeping its revoked families (created empty). */
function authPlan(user: UserRecord, priv: UserPrivate, rev: number): WritePlan {
  return itemPlan({
    Update: {
      TableName: tableName(),
      Key: authKey(user.id),
      UpdateExpression: 'SET #uid = :uid, #name = :name, #role = :role, #active = :active, #tv = :tv, #rev = :rev, #rf = if_not_exists(#rf, :none)',
      ExpressionAttributeNames: {
        '#uid': 'user_id',
        '#name': 'username',
        '#role': 'role',
        '#active': 'is_active',
        '#tv': 'token_version',
        '#rev': 'rev',
        '#rf': 'revoked_families',
      },
      ExpressionAttributeValues: {
        ':uid': user.id,
        ':name': user.username,
        ':role': user.role,
        ':active': user.is_active,
        ':tv': priv.token_version,
        ':rev': rev,
        ':none': {},
      },
    },
  });
}

/**
 * Revokes a refresh-token family of the user until `until` (epoch seconds); families whose
 * time has passed are forgotten in the same write. Nothing happens when the user is gone.
 */
export async function revokeTokenFamily(userId: string, fam: string, until: number): Promise<void> {
  const auth = await getAuthState(userId);
  if (!auth) return;
  const now = Math.floor(Date.now() / 1000);
  const expired = Object.entries(auth.revoked_families)
    .filter(([f, t]) => t <= now && f !== fam)
    .map(([f]) => f);
  const remove = expired.length > 0 ? ` REMOVE ${expired.map((_, i) => `#rf.#e${i}`).join(', ')}` : '';
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: authKey(userId),
        UpdateExpression: `SET #rf.#fam = :until${remove}`,
        ConditionExpression: 'attribute_exists(#rf)',
        ExpressionAttributeNames: { '#rf': 'revoked_families', '#fam': fam, ...Object.fromEntries(expired.map((f, i) => [`#e${i}`, f])) },
        ExpressionAttributeValues: { ':until': until },
      }),
    );
  } catch (err) {
    // Deleted meanwhile: its tokens are refused anyway.
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/**
 * A condition that the user is unchanged since its auth state was read (for writes that copy its
 * username, e.g. a profile): its revision is the user's. Fails as StaleRecord (USER).
 */
export const userUnchangedPlan = (auth: AuthState): WritePlan => unchangedPlan(authKey(auth.user_id), auth.rev, users.kind);

// ---------------------------------------------------------------------------------------------
// Pending registrations

const PENDING_PK = 'USER#PENDING';
/** The entries of the registrations waiting for activation (read by the cleanup job). */
export const PENDING_KEYS: KeyPattern = PENDING_PK;
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
  const out = await send((c) =>
    new c.QueryCommand({
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
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: { pk: PENDING_PK, sk: entry.sk } }));
}

// ---------------------------------------------------------------------------------------------
// Writes (each keeps the pending entry in step)

/** Creates the user and its auth state; a pending registration gets its pending entry in the same transaction. */
export function createUserPlan(user: UserRecord, priv: UserPrivate): WritePlan {
  const create = joinPlans(createPlan(users, user, { ...priv } as Record<string, unknown>), authPlan(user, priv, 1));
  return isPendingRegistration(user, priv) ? joinPlans(create, putPending(user)) : create;
}

/**
 * Replaces the user (at the revision read), its private attributes and its auth state.
 * Activating a pending registration removes its pending entry in the same transaction. A user
 * re-created under a new id (records.ts `replacePlan`) gets a new auth state, and the old one goes.
 */
export function replaceUserPlan(before: StoredUser, after: UserRecord, priv: UserPrivate = before.priv): WritePlan {
  const rekeyed = after.id !== before.record.id;
  const replace = joinPlans(
    replacePlan(users, before, after, { ...priv } as Record<string, unknown>),
    authPlan(after, priv, rekeyed ? 1 : before.rev + 1),
    ...(rekeyed ? [itemPlan(del(authKey(before.record.id)))] : []),
  );
  const was = isPendingRegistration(before.record, before.priv);
  const is = isPendingRegistration(after, priv);
  if (was && !is) return joinPlans(replace, deletePending(before.record));
  if (!was && is) return joinPlans(replace, putPending(after));
  return replace;
}

/** Deletes the user (at the revision read) and its auth state, with its pending entry if it has one. */
export function deleteUserPlan(stored: StoredUser): WritePlan {
  const remove = joinPlans(deletePlan(users, stored), itemPlan(del(authKey(stored.record.id))));
  return isPendingRegistration(stored.record, stored.priv) ? joinPlans(remove, deletePending(stored.record)) : remove;
}

export async function createUser(user: UserRecord, priv: UserPrivate): Promise<void> {
  await commit(createUserPlan(user, priv));
}
