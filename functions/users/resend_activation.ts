/**
 * `POST /api/users/resend_activation/` (API.md §4.21.3): `{email}`. Always 204 (the answer never
 * tells whether the address has an account). When a never-activated account has this address, a
 * new E1 goes to it and older activation tokens become stale (the new nonce replaces theirs).
 */
import { mailNewToken } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { routes } from './routes.js';

const resend: Operation<typeof routes.resend_activation> = async (req) => {
  await mailNewToken(req.body().email, 'activation', 'E1', (user) => user.priv.activated_at === null);
  return { status: 204 };
};

export const handler = createHandler(routes.resend_activation, resend);
