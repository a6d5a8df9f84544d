/**
 * The Lambda authorizer of the HTTP API (simple responses, payload 2.0), attached to every
 * route that needs a signed-in caller. It verifies the access token (jose) and the user's auth
 * state (exists, active, current token version, family not revoked; shared/db/users.ts: it never
 * reads user records) and passes {user_id, username, role} to the function.
 *
 * It never denies: API Gateway answers a denial with its own 401/403 body, which is not the
 * problem document of API.md §1.4. Instead it reports `anonymous` (no header) or `invalid`, and
 * the function's middleware answers 401 with the contract's body. See docs/decisions.md. With the
 * edge, a request that did not come through it is reported `anonymous` unverified: the function
 * refuses it (403) before looking at the caller (shared/http/edge.ts).
 */
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { callerFromAuthorization } from '../../shared/auth/identity.js';
import { InvalidToken } from '../../shared/auth/tokens.js';
import { isUnavailable } from '../../shared/db/errors.js';
import { throughEdge } from '../../shared/http/edge.js';
import type { AuthorizerContext } from '../../shared/http/handler.js';
import { lowerCaseHeaders } from '../../shared/http/request.js';
import { logger } from '../../shared/log.js';

interface AuthorizerResult {
  isAuthorized: boolean;
  context: AuthorizerContext;
}

export async function handler(event: APIGatewayRequestAuthorizerEventV2): Promise<AuthorizerResult> {
  const headers = lowerCaseHeaders(event.headers);
  const header = headers.authorization;
  if (header === undefined) return { isAuthorized: true, context: { status: 'anonymous' } };
  try {
    // With the edge, a request around it is refused by the function whatever its token
    // (shared/http/edge.ts): its token is not worth a verification and a user read.
    if (!(await throughEdge(headers))) return { isAuthorized: true, context: { status: 'anonymous' } };
    const caller = await callerFromAuthorization(header);
    return { isAuthorized: true, context: { status: 'user', ...caller } };
  } catch (err) {
    if (err instanceof InvalidToken) {
      logger.info('token refused', { reason: err.message, route: event.routeKey });
      return { isAuthorized: true, context: { status: 'invalid' } };
    }
    if (isUnavailable(err)) return { isAuthorized: true, context: { status: 'unavailable' } };
    // Throwing would make API Gateway answer its own 500 body; the function answers the problem.
    logger.error('authorizer failed', { error: err as Error, route: event.routeKey });
    return { isAuthorized: true, context: { status: 'error' } };
  }
}
