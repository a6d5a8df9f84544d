/**
 * POST /api/tokens/jwt/refresh/ (API.md §2.2, §4.19): rotation with reuse detection.
 *
 * 1. The token must verify as a refresh token (signature, `kid`, issuer, expiry, type, family).
 * 2. It is spent first, with a conditional write: of two concurrent refreshes with one token
 *    exactly one gets past this step. A token spent before (`reused`) revokes its whole family
 *    (its refresh tokens and the access tokens issued from it); an unknown one is refused.
 * 3. The user must exist, be active, have the token's version, and the family must not be revoked
 *    (its auth state, shared/db/users.ts: this function never reads user records).
 * 4. A new pair of the same family; the new refresh token is recorded.
 */
import { callerOf } from '../../shared/auth/identity.js';
import { issueTokenPair, revokeFamily } from '../../shared/auth/sessions.js';
import { InvalidToken, verifyToken, type TokenClaims } from '../../shared/auth/tokens.js';
import { commit } from '../../shared/db/records.js';
import { spendRefreshToken } from '../../shared/db/sessions.js';
import { getAuthState } from '../../shared/db/users.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { HttpError } from '../../shared/problem.js';
import { logger } from '../../shared/log.js';
import { routes } from './routes.js';

const refused = () => new HttpError('invalid-token', 'The token is invalid, expired or revoked.');

async function claimsOf(token: string): Promise<TokenClaims & { fam: string }> {
  try {
    const claims = await verifyToken(token, 'refresh');
    if (typeof claims.fam !== 'string' || claims.fam === '') throw new InvalidToken('refresh token without family');
    return claims as TokenClaims & { fam: string };
  } catch (err) {
    if (err instanceof InvalidToken) throw refused();
    throw err;
  }
}

export async function operation(req: ApiRequest<typeof routes.refresh>): Promise<Reply> {
  const { refresh } = req.body();
  const claims = await claimsOf(refresh);
  const outcome = await spendRefreshToken(claims.jti);
  if (outcome === 'reused') {
    logger.warn('refresh token reused: family revoked', { user_id: claims.user_id, family: claims.fam });
    await revokeFamily(claims.user_id, claims.fam);
    throw refused();
  }
  if (outcome === 'unknown') throw refused();
  const auth = await getAuthState(claims.user_id);
  try {
    callerOf(claims, auth);
  } catch (err) {
    if (err instanceof InvalidToken) throw refused();
    throw err;
  }
  const { pair, plan } = await issueTokenPair({ id: auth!.user_id, token_version: auth!.token_version }, claims.fam);
  await commit(plan);
  return { status: 200, body: pair };
}

export const handler = createHandler(routes.refresh, operation, { rateLimits: requestLimits });
