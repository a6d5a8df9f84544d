/**
 * `POST /api/users/resend_activation/` (API.md §4.21.3): `{email}`. Always 204 (the answer never
 * tells whether the address has an account). When a never-activated account has this address, a
 * new E1 goes to it and older activation tokens become stale (the new nonce replaces theirs).
 */
import { issueEmailToken } from '../../shared/auth/email-tokens.js';
import { commit } from '../../shared/db/records.js';
import { getUserByEmail, replaceUserPlan } from '../../shared/db/users.js';
import { withNonce } from '../../shared/domain/accounts.js';
import { mail, retrying } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { routes } from './routes.js';

const resend: Operation<typeof routes.resend_activation> = async (req) => {
  const { email } = req.body();
  await retrying(async () => {
    const user = await getUserByEmail(email);
    if (!user || user.priv.activated_at !== null) return;
    const u = user.record;
    const { token, nonce } = await issueEmailToken(u.id, 'activation');
    await commit(
      replaceUserPlan(user, u, withNonce(user.priv, 'activation', nonce)),
      mail({ template: 'E1', to: u.email, data: { username: u.username, uid: u.id, token } }),
    );
  });
  return { status: 204 };
};

export const handler = createHandler(routes.resend_activation, resend);
