/**
 * `POST /api/users/reset_password_confirm/` (API.md §4.21.3): `{uid, token, new_password,
 * re_new_password}`. The password is set, every token of the user is revoked, the reset token is
 * spent, E5 goes to the account. 400 `errors.uid` / `errors.token` (not genuine) together with the
 * password errors; 403 stale-token (expired, used, superseded, or the password changed since).
 */
import { hashPassword } from '../../shared/auth/passwords.js';
import { commit } from '../../shared/db/records.js';
import { replaceUserPlan } from '../../shared/db/users.js';
import { revokingAllTokens, withoutNonce } from '../../shared/domain/accounts.js';
import { newPasswordErrors, resetPasswordConfirmBody } from '../../shared/domain/users.js';
import { addErrors, checkBody, mail, now, retrying, tokenUser } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { validationError } from '../../shared/http/problem.js';
import { routes } from './routes.js';

const confirm: Operation = async (req) => {
  let hashed: { password: string; hash: string } | undefined;
  return retrying(async () => {
    const { errors, value } = checkBody(resetPasswordConfirmBody, req.rawBody);
    const user = await tokenUser(req.rawBody, 'password_reset', errors);
    const pw = req.rawBody.new_password;
    const retype = req.rawBody.re_new_password;
    if (typeof pw === 'string' && typeof retype === 'string' && !errors.new_password) {
      const context = user ? { username: user.record.username, email: user.record.email } : { username: '', email: '' };
      addErrors(errors, newPasswordErrors('new_password', 're_new_password', { pw, retype }, context));
    }
    if (!user || !value || Object.keys(errors).length > 0) throw validationError(errors);
    if (hashed?.password !== value.new_password) hashed = { password: value.new_password, hash: await hashPassword(value.new_password) };
    const u = user.record;
    const priv = { ...withoutNonce(revokingAllTokens(user.priv), 'password_reset'), password_hash: hashed.hash };
    await commit(replaceUserPlan(user, u, priv), mail({ template: 'E5', to: u.email, data: { username: u.username, changed_at: now() } }));
    return { status: 204 };
  });
};

export const handler = createHandler(routes.reset_password_confirm, confirm);
