/**
 * `POST /api/users/resend_activation/` (API.md §4.21.3): `{email}`. Always 204, after the same
 * work whatever the address: the request is recorded, and the mailer sends a new E1 when a
 * never-activated account has this address (older activation tokens become stale then;
 * shared/email/requests.ts). So neither the answer nor its time tells whether the address has
 * an account.
 */
import { recordRequest } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { routes } from './routes.js';

const resend: Operation<typeof routes.resend_activation> = async (req) => {
  await recordRequest({ request: 'activation', to: req.body().email, data: {} });
  return { status: 204 };
};

export const handler = createHandler(routes.resend_activation, resend, { rateLimits: requestLimits });
