/**
 * `POST /api/users/reset_password/` (API.md §4.21.3): `{email}`. Always 204. When an active
 * account has this address, E4 goes to it with a password-reset token; older reset tokens become
 * stale. Accounts without a usable password (social sign-in) can set one this way.
 */
import { mailNewToken } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { routes } from './routes.js';

const resetPassword: Operation<typeof routes.reset_password> = async (req) => {
  await mailNewToken(req.body().email, 'password_reset', 'E4', (user) => user.record.is_active);
  return { status: 204 };
};

export const handler = createHandler(routes.reset_password, resetPassword);
