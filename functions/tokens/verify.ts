/**
 * POST /api/tokens/jwt/verify/ (API.md §4.19): `200 {}` for a currently valid access or refresh
 * token (signature, expiry; a refresh token also unspent; the user exists, is active and has the
 * token's version; the token's family is not revoked), else 401. Reads only: nothing is spent.
 */
import { callerOf } from '../../shared/auth/identity.js';
import { InvalidToken, verifyToken } from '../../shared/auth/tokens.js';
import { refreshTokenState } from '../../shared/db/sessions.js';
import { getAuthState } from '../../shared/db/users.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { HttpError } from '../../shared/problem.js';
import { routes } from './routes.js';

export async function operation(req: ApiRequest<typeof routes.verify>): Promise<Reply> {
  const { token } = req.body();
  try {
    const claims = await verifyToken(token);
    const isRefresh = claims.token_type === 'refresh';
    if (isRefresh && typeof claims.fam !== 'string') throw new InvalidToken('refresh token without family');
    const [auth, state] = await Promise.all([getAuthState(claims.user_id), isRefresh ? refreshTokenState(claims.jti) : null]);
    if (isRefresh && (!state || state.spent || state.uid !== claims.user_id)) throw new InvalidToken('refresh token spent or unknown');
    callerOf(claims, auth);
  } catch (err) {
    if (err instanceof InvalidToken) throw new HttpError('invalid-token', 'The token is invalid, expired or revoked.');
    throw err;
  }
  return { status: 200, body: {} };
}

export const handler = createHandler(routes.verify, operation, { rateLimits: requestLimits });
