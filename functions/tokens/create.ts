/**
 * POST /api/tokens/jwt/create/ (API.md §4.19): e-mail and password → a new token family.
 * Field errors (400) come first (the route's body schema), then the credentials (401).
 */
import { accountInactive, checkCredentials, invalidCredentials } from '../../shared/auth/credentials.js';
import { startSession } from '../../shared/auth/sessions.js';
import { StaleRecord } from '../../shared/db/records.js';
import { getUser, type StoredUser } from '../../shared/db/users.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { serviceUnavailable } from '../../shared/http/problem.js';
import { routes } from './routes.js';

/** Attempts at the sign-in transaction when the user record changes meanwhile (e.g. another sign-in). */
const ATTEMPTS = 3;

export async function operation(req: ApiRequest<typeof routes.create>): Promise<Reply> {
  const { email, password } = req.body();
  let user: StoredUser = await checkCredentials(email, password);
  const verifiedHash = user.priv.password_hash;
  for (let attempt = 1; ; attempt++) {
    try {
      return { status: 200, body: await startSession(user) };
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
      if (attempt >= ATTEMPTS) throw serviceUnavailable();
    }
    // The record changed since it was read: start again from the current one, which must still be
    // the same active account with the password that was verified.
    const current = await getUser(user.record.id);
    if (!current || current.priv.password_hash !== verifiedHash) throw invalidCredentials();
    if (!current.record.is_active) throw accountInactive();
    user = current;
  }
}

export const handler = createHandler(routes.create, operation, { rateLimits: requestLimits });
