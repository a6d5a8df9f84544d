/**
 * `POST /api/users/reset_email_confirm/` (API.md §4.21.3): `{uid, token}` from E6. The pending
 * address becomes the account's e-mail, every token of the user is revoked, E8 goes to the old
 * address. 400 `errors.uid` / `errors.token` (not genuine); 403 stale-token (expired, used,
 * superseded, or the e-mail changed since); 409 when the new address was taken meanwhile — the
 * address's uniqueness claim moves in the same transaction, so that check is atomic.
 */
import { replaceUserPlan } from '../../shared/db/users.js';
import { afterEmailChange } from '../../shared/domain/accounts.js';
import { uidTokenBody } from '../../shared/domain/users.js';
import { checkBody, commitAccount, mail, now, retrying, tokenUser } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

const confirm: Operation = (req) =>
  retrying(async () => {
    const { errors } = checkBody(uidTokenBody, req.rawBody);
    const user = await tokenUser(req.rawBody, 'email_change', errors, (u) => !u.priv.pending_email);
    if (!user || Object.keys(errors).length > 0) throw validationError(errors);
    const at = now();
    const before = user.record;
    const after = { ...before, email: user.priv.pending_email!, updated_at: at };
    await commitAccount(
      [
        replaceUserPlan(user, after, afterEmailChange(user.priv, at)),
        mail({ template: 'E8', to: before.email, data: { username: before.username, new_email: after.email, changed_at: at } }),
      ],
      false,
    );
    return { status: 204 };
  });

export const handler = createHandler(routes.reset_email_confirm, confirm, { rateLimits: requestLimits });
