/**
 * `POST /api/users/reset_email/` (API.md §4.21.3): `{email, password, new_email, re_new_email}`,
 * the signed-out counterpart of `set_email`. Checked in this order: 400 field syntax; 401
 * invalid-credentials / account-inactive as for token creation; 400 `new_email` equal to the
 * account's address. Then an e-mail change is requested: the mailer starts it (E6 and E7) or
 * sends only E2 when the new address has another account (shared/email/requests.ts); the
 * answer is the same work either way.
 */
import { checkCredentials } from '../../shared/auth/credentials.js';
import { now, recordRequest } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

const resetEmail: Operation<typeof routes.reset_email> = async (req) => {
  const { email, password, new_email } = req.body();
  const user = await checkCredentials(email, password);
  if (new_email === user.record.email) throw validationError({ new_email: ['This is already the e-mail address of the account.'] });
  await recordRequest({ request: 'email_change', to: new_email, data: { user_id: user.record.id, requested_at: now() } });
  return { status: 204 };
};

export const handler = createHandler(routes.reset_email, resetEmail, { rateLimits: requestLimits });
