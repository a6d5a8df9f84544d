/**
 * Account fixtures for e2e files. Creating users through the API is slow (every registration
 * hashes a password), so files whose tests are not about registration make their accounts
 * directly in the table — the same `newAccount` plans registration commits — with one password
 * hash per file. Addresses and usernames are unique per test run: the SES emulator's store is
 * shared by every file.
 */
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../../shared/auth/passwords.js';
import type { Role } from '../../shared/auth/roles.js';
import { issueTokenPair } from '../../shared/auth/sessions.js';
import { signToken } from '../../shared/auth/tokens.js';
import { createProfilePlan } from '../../shared/db/profiles.js';
import { commit } from '../../shared/db/records.js';
import { createUserPlan, getUser, type UserPrivate } from '../../shared/db/users.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { newId } from '../../shared/ids.js';
import { send, type Sent, type Server } from './http.js';

/** The password of every fixture account. */
export const PASSWORD = 'Kumquat-Lantern-42';

let hash: Promise<string> | undefined;
let counter = 0;
const run = randomBytes(3).toString('hex');

/** A username (and address local part) unique in this test run. */
export function uniqueUsername(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${run}${randomBytes(2).toString('hex')}${counter}`;
}

export const addressOf = (username: string) => `${username.toLowerCase()}@example.org`;

export interface Account {
  id: string;
  username: string;
  email: string;
  password: string;
  role: Role;
  /** An access token (valid while the account is active and nothing revoked it). */
  token: string;
  auth: Record<string, string>;
  profileId: string;
}

/**
 * A new account with its profile. `active: false` with `activated: false` (the default for
 * inactive accounts) is a registration waiting for activation; with `activated: true`, an
 * account an administrator deactivated. `priv`: private attributes to store as well (the
 * nonce of an e-mailed token, a pending e-mail change).
 */
export async function makeAccount(
  opts: { role?: Role; active?: boolean; activated?: boolean; username?: string; email?: string; id?: string; priv?: Pick<UserPrivate, 'nonces' | 'pending_email'> } = {},
): Promise<Account> {
  hash ??= hashPassword(PASSWORD);
  const username = opts.username ?? uniqueUsername();
  const email = opts.email ?? addressOf(username);
  const active = opts.active ?? true;
  const role = opts.role ?? 'member';
  const { user, priv, profile } = newAccount({ id: opts.id, email, username, passwordHash: await hash, active, role });
  const activatedAt = (opts.activated ?? active) ? user.created_at : null;
  await commit(createUserPlan(user, { ...priv, ...opts.priv, activated_at: activatedAt }), createProfilePlan(profile));
  const { token } = await signToken('access', { id: user.id, token_version: 0 });
  return { id: user.id, username, email, password: PASSWORD, role, token, auth: { authorization: `Bearer ${token}` }, profileId: profile.id };
}

/** Signs in through the API (`POST /api/tokens/jwt/create/`). */
export async function signIn(server: Server, email: string, password: string): Promise<Sent> {
  return send(server, 'POST', '/api/tokens/jwt/create/', { body: { email, password } });
}

/** Signs in and returns the Authorization header of the access token. */
export async function signedIn(server: Server, email: string, password: string): Promise<Record<string, string>> {
  const res = await signIn(server, email, password);
  if (res.status !== 200) throw new Error(`sign-in of ${email}: ${res.status} ${res.text}`);
  return { authorization: `Bearer ${res.body.access}` };
}

/** A new token pair of `account`, recorded as a sign-in records it (a new family). */
export async function freshPair(account: { id: string }): Promise<{ access: string; refresh: string }> {
  const { pair, plan } = await issueTokenPair({ id: account.id, token_version: 0 }, newId());
  await commit(plan);
  return pair;
}

/** The stored user (private attributes included), for assertions on what the API did. */
export const storedUser = (id: string) => getUser(id);

/**
 * The parts of two responses that must be equal when an answer may not reveal anything (the
 * no-enumeration rules of §4.21 and §6): status, headers except the per-request ones, and the
 * body except `id` / `request_id` (and `Location`, which carries the id). `echoed`: body keys
 * that repeat what the request sent (registration's `email`, `username`), compared by presence.
 */
export function comparable(res: Sent, echoed: string[] = []): unknown {
  const skip = new Set(['x-request-id', 'apigw-requestid', 'date', 'location', 'content-length', 'keep-alive', 'connection']);
  const headers = [...res.headers.entries()].filter(([k]) => !skip.has(k)).sort();
  const masked = Object.fromEntries(['id', 'request_id', ...echoed].map((k) => [k, typeof res.body?.[k]]));
  const body = res.body && typeof res.body === 'object' ? { ...res.body, ...masked } : res.body;
  return { status: res.status, headers, body, location: res.headers.get('location')?.replace(/[^/]+\/$/, '{id}/') ?? null };
}
