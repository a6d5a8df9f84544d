/**
 * POST /api/tokens/jwt/create/ (API.md §4.19): e-mail and password → a new token family.
 * Field errors (400) come first (the route's body schema), then the credentials (401).
 *
 * The session's transaction sets `last_login` on the user record at the revision read, so
 * simultaneous sign-ins of one account (several devices at once) take turns: each retry starts
 * from the current record, after a short jittered wait, and must still find the same active
 * account with the password that was verified.
 */
import { accountInactive, checkCredentials, invalidCredentials } from '../../shared/auth/credentials.js';
import { startSession } from '../../shared/auth/sessions.js';
import { getUser, type StoredUser } from '../../shared/db/users.js';
import { retrying } from '../../shared/http/changes.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { routes } from './routes.js';

/** Attempts at the sign-in transaction, and the base of the jittered wait between them (ms). */
const ATTEMPTS = 10;
const BACKOFF_MS = 10;

export async function operation(req: ApiRequest<typeof routes.create>): Promise<Reply> {
  const { email, password } = req.body();
  const verified: StoredUser = await checkCredentials(email, password);
  let user: StoredUser | null = null;
  const pair = await retrying(async () => {
    if (user !== null) {
      const current = await getUser(verified.record.id);
      if (!current || current.priv.password_hash !== verified.priv.password_hash) throw invalidCredentials();
      if (!current.record.is_active) throw accountInactive();
      user = current;
    } else user = verified;
    return startSession(user);
  }, ATTEMPTS, BACKOFF_MS);
  return { status: 200, body: pair };
}

export const handler = createHandler(routes.create, operation, { rateLimits: requestLimits });
