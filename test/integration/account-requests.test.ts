/**
 * Deciding account requests on the real engine (shared/email/requests.ts, decision 61): what each
 * request calls for against the accounts as they are when it is decided, and the rule that makes
 * e-mail change requests independent of the order of decisions and void once the password, the
 * address or the active state changed after them.
 */
import { describe, expect, it } from 'vitest';
import { commit } from '../../shared/db/records.js';
import { getUser, replaceUserPlan } from '../../shared/db/users.js';
import { afterDeactivation, afterPasswordChange, newAccount } from '../../shared/domain/accounts.js';
import { decide } from '../../shared/email/requests.js';
import { addressOf, uniqueUsername } from '../support/accounts.js';

async function account(opts: { active: boolean; activated?: boolean } = { active: true }) {
  const username = uniqueUsername('req');
  const a = newAccount({ email: addressOf(username), username, passwordHash: null, active: opts.active });
  await commit(...a.plans);
  if (opts.activated && !opts.active) {
    const stored = (await getUser(a.user.id))!;
    await commit(replaceUserPlan(stored, stored.record, { ...stored.priv, activated_at: a.user.created_at }));
  }
  return a.user;
}

const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const templates = (d: Awaited<ReturnType<typeof decide>>) => d.emails.map((e) => `${e.template}→${e.to}`);

describe('activation and password_reset requests', () => {
  it('decide by the account the address has now: E1 only for never-activated, E4 for active and never-activated', async () => {
    const active = await account();
    const pending = await account({ active: false });
    const deactivated = await account({ active: false, activated: true });
    const unknown = addressOf(uniqueUsername('none'));
    expect(templates(await decide({ request: 'activation', to: pending.email, data: {} }))).toEqual([`E1→${pending.email}`]);
    for (const to of [active.email, deactivated.email, unknown]) expect(templates(await decide({ request: 'activation', to, data: {} }))).toEqual([]);
    expect(templates(await decide({ request: 'password_reset', to: active.email, data: {} }))).toEqual([`E4→${active.email}`]);
    const forPending = await decide({ request: 'password_reset', to: pending.email, data: {} });
    expect(forPending.emails[0]).toMatchObject({ template: 'E4', data: { pending: true } });
    for (const to of [deactivated.email, unknown]) expect(templates(await decide({ request: 'password_reset', to, data: {} }))).toEqual([]);
    // A grant, never a token, and the user's nonce is the grant's once committed.
    const d = await decide({ request: 'password_reset', to: active.email, data: {} });
    await commit(...d.changes);
    const grant = (d.emails[0]!.data as { grant: { nonce: string } }).grant;
    expect(JSON.stringify(d.emails)).not.toContain('token');
    expect((await getUser(active.id))!.priv.nonces?.password_reset).toBe(grant.nonce);
  });
});

describe('email_change requests', () => {
  it('E2 alone when the new address has another account; E6 + E7 and the pending change otherwise', async () => {
    const user = await account();
    const other = await account();
    const free = addressOf(uniqueUsername('free'));
    const taken = await decide({ request: 'email_change', to: other.email, data: { user_id: user.id, requested_at: at(0) } });
    expect(templates(taken)).toEqual([`E2→${other.email}`]);
    expect(taken.changes).toEqual([]);
    const started = await decide({ request: 'email_change', to: free, data: { user_id: user.id, requested_at: at(0) } });
    expect(templates(started)).toEqual([`E6→${free}`, `E7→${user.email}`]);
    await commit(...started.changes);
    expect((await getUser(user.id))!.priv.pending_email).toBe(free);
  });

  it('the later request wins whatever the order of decisions', async () => {
    const user = await account();
    const first = addressOf(uniqueUsername('first'));
    const second = addressOf(uniqueUsername('second'));
    const later = await decide({ request: 'email_change', to: second, data: { user_id: user.id, requested_at: at(0) } });
    await commit(...later.changes);
    const earlier = await decide({ request: 'email_change', to: first, data: { user_id: user.id, requested_at: at(-1000) } });
    expect(earlier).toEqual({ changes: [], emails: [] });
    expect((await getUser(user.id))!.priv.pending_email).toBe(second);
  });

  it('a request made before a password change or a deactivation is void when decided after it', async () => {
    for (const ending of [afterPasswordChange, afterDeactivation]) {
      const user = await account();
      const requestedAt = at(-50);
      const stored = (await getUser(user.id))!;
      await commit(replaceUserPlan(stored, stored.record, ending(stored.priv, at(0))));
      const d = await decide({ request: 'email_change', to: addressOf(uniqueUsername('late')), data: { user_id: user.id, requested_at: requestedAt } });
      expect(d).toEqual({ changes: [], emails: [] });
    }
  });

  it('nothing for a user that is gone or inactive', async () => {
    const inactive = await account({ active: false, activated: true });
    const to = addressOf(uniqueUsername('x'));
    expect(await decide({ request: 'email_change', to, data: { user_id: inactive.id, requested_at: at(0) } })).toEqual({ changes: [], emails: [] });
    expect(await decide({ request: 'email_change', to, data: { user_id: 'nobody', requested_at: at(0) } })).toEqual({ changes: [], emails: [] });
  });
});
