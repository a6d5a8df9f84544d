/**
 * `POST /api/users/set_password/` (API.md §4.21.2): `{current_password, new_password,
 * re_new_password}`. Every field error in one 400: a wrong current password, the rules of the new
 * one (against the caller's username and e-mail), a mismatched retype. Then the password is
 * changed, every token of the user is revoked (the one used included), password-reset and
 * e-mail change tokens become stale (a pending e-mail change ends), and E5 goes to the account.
 */
import { hashPassword, verifyPassword } from '../../shared/auth/passwords.js';
import { commit } from '../../shared/db/records.js';
import { replaceUserPlan } from '../../shared/db/users.js';
import { afterPasswordChange } from '../../shared/domain/accounts.js';
import { newPasswordErrors, setPasswordBody } from '../../shared/domain/users.js';
import { addErrors, checkBody, loadSelf, mail, now, retrying } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { addError, validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

const setPassword: Operation = async (req) => {
  let hashed: { password: string; hash: string } | undefined;
  return retrying(async () => {
    const user = await loadSelf(req);
    const u = user.record;
    const { errors, value } = checkBody(setPasswordBody, req.rawBody);
    const { current_password: current, new_password: pw, re_new_password: retype } = req.rawBody;
    if (typeof current === 'string' && !(await verifyPassword(current, user.priv.password_hash))) {
      addError(errors, 'current_password', 'Incorrect password.');
    }
    if (typeof pw === 'string' && typeof retype === 'string' && !errors.new_password) {
      addErrors(errors, newPasswordErrors('new_password', 're_new_password', { pw, retype }, u));
    }
    if (!value || Object.keys(errors).length > 0) throw validationError(errors);
    if (hashed?.password !== value.new_password) hashed = { password: value.new_password, hash: await hashPassword(value.new_password) };
    const at = now();
    const priv = { ...afterPasswordChange(user.priv, at), password_hash: hashed.hash };
    await commit(replaceUserPlan(user, u, priv), mail({ template: 'E5', to: u.email, data: { username: u.username, changed_at: at } }));
    return { status: 204 };
  });
};

export const handler = createHandler(routes.set_password, setPassword, { rateLimits: requestLimits });
