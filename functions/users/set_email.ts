/**
 * `POST /api/users/set_email/` (API.md §4.21.2): `{current_password, new_email, re_new_email}`.
 * Every field error in one 400: a wrong current password, an invalid new address or one equal to
 * the current address, a mismatched retype. Then an e-mail change is requested: the mailer starts
 * it (E6 and E7) or sends only E2 when the new address has another account
 * (shared/email/requests.ts); the answer is the same work either way.
 */
import { verifyPassword } from '../../shared/auth/passwords.js';
import { setEmailBody } from '../../shared/domain/users.js';
import { checkBody, loadSelf, now, recordRequest } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { addError, validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

const setEmail: Operation = async (req) => {
  const user = await loadSelf(req);
  const { errors, value } = checkBody(setEmailBody, req.rawBody);
  const current = req.rawBody.current_password;
  if (typeof current === 'string' && !(await verifyPassword(current, user.priv.password_hash))) {
    addError(errors, 'current_password', 'Incorrect password.');
  }
  if (value && value.new_email === user.record.email) addError(errors, 'new_email', 'This is already your e-mail address.');
  if (!value || Object.keys(errors).length > 0) throw validationError(errors);
  await recordRequest({ request: 'email_change', to: value.new_email, data: { user_id: user.record.id, requested_at: now() } });
  return { status: 204 };
};

export const handler = createHandler(routes.set_email, setEmail, { rateLimits: requestLimits });
