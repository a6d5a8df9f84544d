/**
 * Deciding account requests (templates.ts `AccountRequest`). The operations that take an
 * address anyone may name (`resend_activation`, `reset_password`) or may lead to one
 * (`set_email`, `reset_email`) only record the request, the same write whatever the address,
 * so neither their answer nor its time reveals whether the address has an account (API.md §6).
 * Delivering the request decides here, against the accounts as they are then, what it calls
 * for: the changes (a new e-mailed token's nonce, a pending e-mail change) and the e-mails, which
 * the deliverer commits in one transaction with the request's own completion
 * (shared/email/deliver.ts). The e-mails are queued like any other and sent by the mailer.
 *
 * 1. `activation`: a never-activated account with the address gets a new E1 (its older
 *    activation tokens become stale).
 * 2. `password_reset`: an active account with the address gets E4 (older reset tokens become
 *    stale); so does a never-activated one, with the words of the squatting rule — confirming
 *    replaces that registration (functions/users/reset_password_confirm.ts). Deactivated
 *    accounts get nothing.
 * 3. `email_change` of a user to an address: nothing when the user is gone or inactive, or when
 *    the request is void (made at or before `email_changes_void_until`: a later request was
 *    decided already, or the password, the address or the active state changed since); E2
 *    alone when the address has another account (nothing else changes); else the pending change
 *    (replacing an earlier one, whose token becomes stale) with E6 to the new address and E7 to
 *    the current one.
 *
 * A decision reads the account and writes it conditioned on the revision read; when it changed
 * meanwhile the commit fails (StaleRecord) and the deliverer decides again.
 */
import { newGrant, type Purpose } from '../auth/email-tokens.js';
import type { WritePlan } from '../db/records.js';
import { getUser, getUserByEmail, isPendingRegistration, replaceUserPlan, type StoredUser } from '../db/users.js';
import { withNonce } from '../domain/accounts.js';
import type { AccountRequest, QueuedEmail } from './templates.js';

/** What a request calls for: changes to commit and e-mails to queue, together. */
export interface Decision {
  changes: WritePlan[];
  emails: QueuedEmail[];
}

const NOTHING: Decision = { changes: [], emails: [] };

/** A new token of `purpose` for `user`: the plan that makes it current, and its grant. */
function granting(user: StoredUser, purpose: Purpose, now: Date, priv = user.priv) {
  const grant = newGrant(now);
  return { grant, plan: replaceUserPlan(user, user.record, withNonce(priv, purpose, grant.nonce)) };
}

export async function decide(request: AccountRequest, now = new Date()): Promise<Decision> {
  switch (request.request) {
    case 'activation': {
      const user = await getUserByEmail(request.to);
      if (!user || !isPendingRegistration(user.record, user.priv)) return NOTHING;
      const { grant, plan } = granting(user, 'activation', now);
      const u = user.record;
      return { changes: [plan], emails: [{ template: 'E1', to: u.email, data: { username: u.username, uid: u.id, grant } }] };
    }
    case 'password_reset': {
      const user = await getUserByEmail(request.to);
      if (!user) return NOTHING;
      const pending = isPendingRegistration(user.record, user.priv);
      if (!user.record.is_active && !pending) return NOTHING;
      const { grant, plan } = granting(user, 'password_reset', now);
      const u = user.record;
      return { changes: [plan], emails: [{ template: 'E4', to: u.email, data: { username: u.username, uid: u.id, grant, ...(pending ? { pending } : {}) } }] };
    }
    case 'email_change': {
      const { user_id, requested_at } = request.data;
      const newEmail = request.to;
      const user = await getUser(user_id);
      if (!user || !user.record.is_active || requested_at <= (user.priv.email_changes_void_until ?? '')) return NOTHING;
      const other = await getUserByEmail(newEmail);
      if (other && other.record.id !== user.record.id) {
        const pending = isPendingRegistration(other.record, other.priv);
        return { changes: [], emails: [{ template: 'E2', to: newEmail, data: pending ? { pending } : {} }] };
      }
      if (other) return NOTHING; // The address became the account's own meanwhile.
      const u = user.record;
      const { grant, plan } = granting(user, 'email_change', now, { ...user.priv, pending_email: newEmail, email_changes_void_until: requested_at });
      return {
        changes: [plan],
        emails: [
          { template: 'E6', to: newEmail, data: { username: u.username, new_email: newEmail, uid: u.id, grant } },
          { template: 'E7', to: u.email, data: { username: u.username, new_email: newEmail } },
        ],
      };
    }
  }
}
