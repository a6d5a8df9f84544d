/**
 * `POST /api/users/reset_password/` (API.md §4.21.3): `{email}`. Always 204. When an active
 * account has this address, E4 goes to it with a password-reset token; older reset tokens become
 * stale. Accounts without a usable password (social sign-in) can set one this way.
 */
import { issueEmailToken } from '../../shared/auth/email-tokens.js';
import { commit } from '../../shared/db/records.js';
import { getUserByEmail, replaceUserPlan } from '../../shared/db/users.js';
import { withNonce } from '../../shared/domain/accounts.js';
import { mail, retrying } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { routes } from './routes.js';

const resetPassword: Operation<typeof routes.reset_password> = async (req) => {
  const { email } = req.body();
  await retrying(async () => {
    const user = await getUserByEmail(email);
    if (!user || !user.record.is_active) return;
    const u = user.record;
    const { token, nonce } = await issueEmailToken(u.id, 'password_reset');
    await commit(
      replaceUserPlan(user, u, withNonce(user.priv, 'password_reset', nonce)),
      mail({ template: 'E4', to: u.email, data: { username: u.username, uid: u.id, token } }),
    );
  });
  return { status: 204 };
};

export const handler = createHandler(routes.reset_password, resetPassword);
