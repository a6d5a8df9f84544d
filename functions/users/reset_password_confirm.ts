/**
 * `POST /api/users/reset_password_confirm/` (API.md §4.21.3): `{uid, token, new_password,
 * re_new_password}`.
 *
 * 1. 400 `errors.uid` / `errors.token` (not genuine) together with the password errors; 403
 *    stale-token (expired, used, superseded, or the password changed since).
 * 2. An active account: the password is set, every token of the user is revoked, the reset
 *    token is spent and e-mail change tokens become stale, E5 goes to the account.
 * 3. An account never activated: whoever opened the link controls the address, which the
 *    registrant never proved. The registration is replaced by a new active account with the new
 *    password, a username made from the address and a new id (domain/accounts.ts
 *    `replaceRegistration`); E3 tells its username, and E5 goes as after any confirmed reset
 *    (§6; docs/decisions.md H3). Nothing the registrant chose keeps working.
 */
import { hashPassword } from '../../shared/auth/passwords.js';
import { commit, StaleRecord } from '../../shared/db/records.js';
import { getUserByUsername, isPendingRegistration, replaceUserPlan, type StoredUser } from '../../shared/db/users.js';
import { afterPasswordChange, replaceRegistration } from '../../shared/domain/accounts.js';
import { availableUsername } from '../../shared/domain/usernames.js';
import { newPasswordErrors, resetPasswordConfirmBody } from '../../shared/domain/users.js';
import { addErrors, checkBody, mail, now, retrying, tokenUser } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { HttpError, validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

/** 3: the registration replaced by the owner's account. */
async function replacingRegistration(pending: StoredUser, passwordHash: string): Promise<void> {
  const at = now();
  const username = await availableUsername([pending.record.email.split('@')[0]], async (u) => {
    const holder = await getUserByUsername(u);
    return holder !== null && holder.record.id !== pending.record.id;
  });
  const { user, plans } = await replaceRegistration(pending, { username, passwordHash }, at);
  const emails = [
    mail({ template: 'E3', to: user.email, data: { username: user.username, replaced: true } }),
    mail({ template: 'E5', to: user.email, data: { username: user.username, changed_at: at } }),
  ];
  try {
    await commit(...plans, ...emails);
  } catch (err) {
    // The username was taken meanwhile: start again from the reads, with another one.
    if (err instanceof HttpError && err.type === 'conflict') throw new StaleRecord('USER');
    throw err;
  }
}

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
    if (isPendingRegistration(user.record, user.priv)) {
      await replacingRegistration(user, hashed.hash);
      return { status: 204 };
    }
    const u = user.record;
    const at = now();
    const priv = { ...afterPasswordChange(user.priv, at), password_hash: hashed.hash };
    await commit(replaceUserPlan(user, u, priv), mail({ template: 'E5', to: u.email, data: { username: u.username, changed_at: at } }));
    return { status: 204 };
  });
};

export const handler = createHandler(routes.reset_password_confirm, confirm, { rateLimits: requestLimits });
