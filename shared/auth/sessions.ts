/**
 * Sessions (API.md §2.2): a sign-in starts a token family — an access token and a refresh token
 * sharing a family id — and records the refresh token; `last_login` is updated in the same
 * transaction. Rotation and reuse detection are in functions/tokens/refresh.ts.
 */
import { refreshTokenPlan } from '../db/sessions.js';
import { commit } from '../db/records.js';
import { replaceUserPlan, revokeTokenFamily, type StoredUser } from '../db/users.js';
import { newId } from '../ids.js';
import { LIFETIME_SECONDS, signToken } from './tokens.js';

export interface TokenPair {
  access: string;
  refresh: string;
}

/** A new access + refresh token of family `fam`, and the plan that records the refresh token. */
export async function issueTokenPair(user: { id: string; token_version: number }, fam: string) {
  const [access, refresh] = await Promise.all([signToken('access', user, { fam }), signToken('refresh', user, { fam })]);
  const plan = refreshTokenPlan({ jti: refresh.claims.jti, uid: user.id, fam, exp: refresh.claims.exp });
  return { pair: { access: access.token, refresh: refresh.token } satisfies TokenPair, plan };
}

/** Signs `user` in: a new token family, and `last_login` set, in one transaction. */
export async function startSession(user: StoredUser): Promise<TokenPair> {
  const { pair, plan } = await issueTokenPair({ id: user.record.id, token_version: user.priv.token_version }, newId());
  const now = new Date().toISOString();
  await commit(replaceUserPlan(user, { ...user.record, last_login: now }), plan);
  return pair;
}

/**
 * Revokes a refresh-token family: its refresh and access tokens are refused from now on. It is
 * remembered as long as its longest-lived token (a refresh token) could be presented.
 */
export async function revokeFamily(userId: string, fam: string): Promise<void> {
  await revokeTokenFamily(userId, fam, Math.floor(Date.now() / 1000) + LIFETIME_SECONDS.refresh);
}
