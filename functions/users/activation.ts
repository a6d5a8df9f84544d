/**
 * `POST /api/users/activation/` (API.md §4.21.3): `{uid, token}` from E1. The account becomes
 * active, the token is spent (its nonce is forgotten), E3 goes to the account. 400 `errors.uid`
 * / `errors.token` when not genuine; 403 stale-token when expired, used, superseded, or the
 * account was activated already.
 */
import { commit } from '../../shared/db/records.js';
import { replaceUserPlan } from '../../shared/db/users.js';
import { withoutNonce } from '../../shared/domain/accounts.js';
import { uidTokenBody } from '../../shared/domain/users.js';
import { checkBody, mail, now, retrying, tokenUser } from '../../shared/http/accounts.js';
import { createHandler, type Operation } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { validationError } from '../../shared/problem.js';
import { routes } from './routes.js';

const activate: Operation = (req) =>
  retrying(async () => {
    const { errors } = checkBody(uidTokenBody, req.rawBody);
    const user = await tokenUser(req.rawBody, 'activation', errors, (u) => u.record.is_active || u.priv.activated_at !== null);
    if (!user || Object.keys(errors).length > 0) throw validationError(errors);
    const at = now();
    const u = { ...user.record, is_active: true, updated_at: at };
    await commit(
      replaceUserPlan(user, u, { ...withoutNonce(user.priv, 'activation'), activated_at: at }),
      mail({ template: 'E3', to: u.email, data: { username: u.username } }),
    );
    return { status: 204 };
  });

export const handler = createHandler(routes.activation, activate, { rateLimits: requestLimits });
