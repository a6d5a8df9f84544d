/**
 * From an `Authorization` header to the caller (API.md §2.1): scheme `Bearer` or `JWT`
 * (case-insensitive), one or more spaces, exactly one token; a valid access token whose user
 * exists, is active, and whose token version is the user's current one. The token check needs
 * no database; the user check needs the user's auth state (shared/db/users.ts: no secrets, so
 * every function that checks tokens may read it), which callers may read together with other
 * items (see shared/http/handler.ts).
 */
import { getAuthState } from '../db/users.js';
import { callerOf } from './claims.js';
import type { Caller } from './roles.js';
import { InvalidToken, verifyToken, type TokenClaims } from './tokens.js';

export { callerOf } from './claims.js';

const HEADER = /^(?:bearer|jwt) +([A-Za-z0-9_.~+/=-]+)$/i;

/** The claims of the access token in an Authorization header (signature, expiry, type). */
export async function accessClaims(header: string): Promise<TokenClaims> {
  const m = HEADER.exec(header.trim());
  if (!m) throw new InvalidToken('malformed Authorization header');
  return verifyToken(m[1]!, 'access');
}


export async function callerFromAuthorization(header: string): Promise<Caller> {
  const claims = await accessClaims(header);
  return callerOf(claims, await getAuthState(claims.user_id));
}
