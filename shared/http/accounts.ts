/**
 * Account operations (API.md §4.21): the caller's own account (`/api/users/me/`, and
 * `/api/users/{id}/` with the caller's own id), an administrator on another user, and the pieces
 * the account flows of functions/users share (e-mailed tokens, credentials, e-mail change).
 *
 * Every write reads the user, checks in the contract's order (§1.4: 404, 412, 400, 409) and
 * commits one transaction conditioned on the revision that was read, with the e-mails the change
 * causes (outbox items, §6). A concurrent change makes the write fail; it is then retried from
 * the read (`retrying`).
 */
import { checkEmailToken, type Purpose } from '../auth/email-tokens.js';
import { verifyPassword } from '../auth/passwords.js';
import { isStaff } from '../auth/roles.js';
import { outboxPlan } from '../db/outbox.js';
import { commit, type WritePlan } from '../db/records.js';
import { getUser, type StoredUser, type UserPrivate, type UserRecord } from '../db/users.js';
import { accountDeletionPlans, afterDeactivation, afterEmailChange, userChangePlans, withoutNonce } from '../domain/accounts.js';
import { ID_PATTERN } from '../domain/fields.js';
import { adminUserBody, adminUserPatchBody, deleteSelfBody, selfBody, selfPatchBody, USER_FIELDS } from '../domain/users.js';
import type { AccountRequest, QueuedEmail } from '../email/templates.js';
import { checkBody, now, retrying, validBody } from './changes.js';
import type { ApiRequest, Operation, Reply } from './handler.js';
import { addError, HttpError, notFound, validationError, type FieldErrors } from '../problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';

export { addErrors, checkBody, now, retrying, validBody } from './changes.js';
export { activeUserNamed } from './named-user.js';

/** The User representation (§3.12), keys in shape order. */
export const userView = (u: UserRecord): UserRecord => inShapeOrder(u, USER_FIELDS);

/**
 * Commits plans; a uniqueness clash stays a 409 with its field, but without `existing_id` unless
 * the caller may see the other account (administrators).
 */
export async function commitAccount(plans: WritePlan[], showExistingId: boolean): Promise<void> {
  try {
    await commit(...plans);
  } catch (err) {
    if (!showExistingId && err instanceof HttpError && err.type === 'conflict' && err.extras.existing_id !== undefined) {
      const { existing_id: _hidden, ...extras } = err.extras;
      throw new HttpError('conflict', err.message, extras);
    }
    throw err;
  }
}

export const mail = (message: QueuedEmail): WritePlan => outboxPlan(message);

// ---------------------------------------------------------------------------------------------
// The caller's own account

const callerId = (req: ApiRequest) => req.caller!.user_id;

/** The caller's account. Its token was checked by this request; an account gone since is a revoked token (401). */
export async function loadSelf(req: ApiRequest): Promise<StoredUser> {
  const user = await getUser(callerId(req));
  if (!user) throw new HttpError('invalid-token', 'The token is invalid, expired or revoked.');
  return user;
}

export const getSelf: Operation = async (req) => ({ status: 200, body: userView((await loadSelf(req)).record) });

/** PUT / PATCH of the own account: `{username}` (§4.21.2). `role`, `email`, … are unknown fields here (400). */
export function updateSelf(mode: 'replace' | 'merge'): Operation {
  return (req) =>
    retrying(async () => {
      const before = await loadSelf(req);
      checkIfMatch(req.ifMatch, recordEtag(userView(before.record)));
      const input = validBody(mode === 'replace' ? selfBody : selfPatchBody, req.rawBody);
      const username = input.username ?? before.record.username;
      if (username === before.record.username) return { status: 200, body: userView(before.record) };
      const after: UserRecord = { ...before.record, username, updated_at: now() };
      await commitAccount(await userChangePlans(before, after), false);
      return { status: 200, body: userView(after) };
    });
}

/** The deletion of an account and its E9 (§4.21.2), as plans of one transaction. */
async function deletionPlans(user: StoredUser): Promise<WritePlan[]> {
  const u = user.record;
  return [...(await accountDeletionPlans(user)), mail({ template: 'E9', to: u.email, data: { username: u.username, deleted_at: now() } })];
}

/** DELETE of the own account: `{current_password}` (400 when missing or wrong); 412 first. */
export const deleteSelf: Operation = (req) =>
  retrying(async () => {
    const user = await loadSelf(req);
    checkIfMatch(req.ifMatch, recordEtag(userView(user.record)));
    const { errors } = checkBody(deleteSelfBody, req.rawBody);
    const password = req.rawBody.current_password;
    if (typeof password === 'string' && !(await verifyPassword(password, user.priv.password_hash))) {
      addError(errors, 'current_password', 'Incorrect password.');
    }
    if (Object.keys(errors).length > 0) throw validationError(errors);
    await commit(...(await deletionPlans(user)));
    return { status: 204 };
  });

// ---------------------------------------------------------------------------------------------
// /api/users/{id}/: the caller's own id, or an administrator on another user. Non-administrators
// naming another id never get here (the route's guard answers 403).

const targetId = (req: ApiRequest) => (req.params as { id: string }).id;
const isOwn = (req: ApiRequest) => targetId(req) === callerId(req);

async function loadTarget(req: ApiRequest): Promise<StoredUser> {
  const user = await getUser(targetId(req));
  if (!user) throw notFound('No user with this id.');
  return user;
}

export const getUserOperation: Operation = async (req) => {
  if (isOwn(req)) return getSelf(req);
  return { status: 200, body: userView((await loadTarget(req)).record) };
};

/**
 * An administrator's change of another user (§4.21.1): a new e-mail applies at once, revokes the
 * user's tokens and sends E8 to the old address; deactivation revokes the tokens; activating a
 * never-activated account activates it (no e-mail); a role change applies from the next request.
 */
function adminUpdate(mode: 'replace' | 'merge'): Operation {
  return (req) =>
    retrying(async (): Promise<Reply> => {
      const before = await loadTarget(req);
      const b = before.record;
      checkIfMatch(req.ifMatch, recordEtag(userView(b)));
      const input = validBody(mode === 'replace' ? adminUserBody : adminUserPatchBody, req.rawBody);
      const values = { username: b.username, email: b.email, role: b.role, is_active: b.is_active, ...input };
      if (values.username === b.username && values.email === b.email && values.role === b.role && values.is_active === b.is_active) {
        return { status: 200, body: userView(b) };
      }
      const at = now();
      const after: UserRecord = { ...b, ...values, is_staff: isStaff(values.role), updated_at: at };
      let priv: UserPrivate = before.priv;
      const plans: WritePlan[] = [];
      if (after.email !== b.email) {
        priv = afterEmailChange(priv, at);
        plans.push(mail({ template: 'E8', to: b.email, data: { username: after.username, new_email: after.email, changed_at: at } }));
      }
      if (b.is_active && !after.is_active) priv = afterDeactivation(priv, at);
      if (!b.is_active && after.is_active && priv.activated_at === null) priv = { ...withoutNonce(priv, 'activation'), activated_at: at };
      await commitAccount([...(await userChangePlans(before, after, priv)), ...plans], true);
      return { status: 200, body: userView(after) };
    });
}

export function updateUserOperation(mode: 'replace' | 'merge'): Operation {
  const self = updateSelf(mode);
  const admin = adminUpdate(mode);
  return (req) => (isOwn(req) ? self(req) : admin(req));
}

/** An administrator's deletion of another user: any body is ignored; E9 to the deleted account's address. */
const adminDelete: Operation = (req) =>
  retrying(async () => {
    const user = await loadTarget(req);
    checkIfMatch(req.ifMatch, recordEtag(userView(user.record)));
    await commit(...(await deletionPlans(user)));
    return { status: 204 };
  });

export const deleteUserOperation: Operation = (req) => (isOwn(req) ? deleteSelf(req) : adminDelete(req));

// ---------------------------------------------------------------------------------------------
// Pieces of the account flows (functions/users/*)

/**
 * The user and token of an e-mailed-token body (`uid`, `token`, API.md §6): adds `errors.uid`
 * (no such user) or `errors.token` (not a genuine token of this purpose for this user) to
 * `errors`; throws 403 stale-token for a genuine token that is expired, used or superseded, or
 * when `stale(user)` says so — at once, since that 403 precedes body validation (§1.4 #9, #11).
 * Fields missing or of the wrong type are left to the body schema.
 */
export async function tokenUser(
  raw: Record<string, unknown>,
  purpose: Purpose,
  errors: FieldErrors,
  stale: (user: StoredUser) => boolean = () => false,
): Promise<StoredUser | null> {
  const { uid, token } = raw;
  if (typeof uid !== 'string' || typeof token !== 'string') return null;
  const user = ID_PATTERN.test(uid) ? await getUser(uid) : null;
  if (!user) {
    addError(errors, 'uid', 'Invalid user id or user does not exist.');
    return null;
  }
  const check = await checkEmailToken(uid, token, purpose, user.priv.nonces?.[purpose]);
  if (!check.ok && check.reason === 'not-genuine') {
    addError(errors, 'token', 'Invalid token for this user.');
    return null;
  }
  if (!check.ok || stale(user)) throw new HttpError('stale-token', 'This token has expired, was already used or was superseded.');
  return user;
}

/**
 * Records an account request (`resend_activation`, `reset_password`, the start of an e-mail
 * change): one outbox message, the same write whatever the address, so the answer reveals by
 * neither content nor time whether the address has an account (API.md §6). The mailer decides
 * what the request calls for (shared/email/requests.ts).
 */
export async function recordRequest(request: AccountRequest): Promise<void> {
  await commit(outboxPlan(request));
}
