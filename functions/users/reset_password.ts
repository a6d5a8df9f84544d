/**
 * `POST /api/users/reset_password/` (API.md §4.21.3): `{email}`. Always 204, after the same
 * work whatever the address: the request is recorded, and the mailer sends E4 with a reset token
 * when an active account has this address (older reset tokens become stale then;
 * shared/email/requests.ts). Accounts without a usable password (social sign-in) set one this
 * way. An account never activated gets E4 too: its address's owner replaces that registration by
 * confirming (docs/decisions.md, squatting).
 */
import { recordRequest } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { routes } from './routes.js';

const resetPassword: Operation<typeof routes.reset_password> = async (req) => {
  await recordRequest({ request: 'password_reset', to: req.body().email, data: {} });
  return { status: 204 };
};

export const handler = createHandler(routes.reset_password, resetPassword, { rateLimits: requestLimits });
