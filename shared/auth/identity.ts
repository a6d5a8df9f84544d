/**
 * From an `Authorization` header to the caller (API.md §2.1): scheme `Bearer` or `JWT`
 * (case-insensitive), one or more spaces, exactly one token; a valid access token whose user
 * exists, is active, and whose token version is the user's current one.
 */
import { getUser } from '../db/users.js';
import type { Caller } from './roles.js';
import { InvalidToken, verifyToken } from './tokens.js';

const HEADER = /^(?:bearer|jwt) +([A-Za-z0-9_.~+/=-]+)$/i;

export async function callerFromAuthorization(header: string): Promise<Caller> {
  const m = HEADER.exec(header.trim());
  if (!m) throw new InvalidToken('malformed Authorization header');
  const claims = await verifyToken(m[1]!, 'access');
  const user = await getUser(claims.user_id);
  if (!user) throw new InvalidToken('user not found');
  if (!user.record.is_active) throw new InvalidToken('user inactive');
  if (user.priv.token_version !== claims.tv) throw new InvalidToken('token revoked');
  return { user_id: user.record.id, username: user.record.username, role: user.record.role };
}
