/**
 * The cleanup job on the real engines (API.md §5.5, §7.1): registrations never activated within
 * 30 days are deleted — their username and e-mail can be registered again — while younger ones,
 * and accounts activated by their token or by an administrator, are kept. The job is run the way
 * the scheduler runs it (its declared module, a scheduled event), or with a clock moved forward.
 */
import { describe, expect, it } from 'vitest';
import { runCleanup } from '../../functions/jobs/cleanup.js';
import { JOBS } from '../../functions/jobs/registry.js';
import { startScheduler } from '../../infra/local/scheduler.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { commit } from '../../shared/db/records.js';
import { getUser, getUserByEmail, getUserByUsername, pendingRegistrations } from '../../shared/db/users.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { addressOf, PASSWORD, uniqueUsername } from '../support/accounts.js';
import { expectJson, send } from '../support/contract.js';
import { emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const inDays = (days: number) => () => new Date(Date.now() + days * DAY);

let hash: Promise<string> | undefined;

/** A registration made `days` days ago: the plans POST /api/users/ commits, with that creation time. */
async function registeredDaysAgo(days: number) {
  hash ??= hashPassword(PASSWORD);
  const username = uniqueUsername('old');
  const account = newAccount({ email: addressOf(username), username, passwordHash: await hash, active: false, nonces: { activation: 'nonce' } }, daysAgo(days));
  await commit(...account.plans);
  return account.user;
}

/** Registers through the API; returns the id and the activation token of E1. */
async function registered(username = uniqueUsername('reg'), email = addressOf(username)) {
  const res = await send(server, 'POST', '/api/users/', { body: { email, username, password: PASSWORD, re_password: PASSWORD } });
  const { id } = expectJson(res, 201) as { id: string };
  const mail = await waitForEmail(email, { subject: 'Activate your account' });
  return { id, username, email, ...emailToken(mail) };
}

const hasPendingEntry = async (id: string) => (await pendingRegistrations('9999', 1000)).entries.some((e) => e.id === id);

describe('cleanup job: accounts never activated', () => {
  it('deletes a registration of 31 days ago (its username and e-mail can be registered again) and keeps one of 29 days', async () => {
    const old = await registeredDaysAgo(31);
    const young = await registeredDaysAgo(29);
    expect(await hasPendingEntry(old.id)).toBe(true);

    // As the scheduler runs it: the declared module, a scheduled event.
    const scheduler = startScheduler({ jobs: JOBS.filter((j) => j.name === 'cleanup') });
    try {
      expect(await scheduler.run('cleanup')).toMatchObject({ accounts: { deleted: 1 } });
    } finally {
      await scheduler.stop();
    }

    expect(await getUser(old.id)).toBeNull();
    expect(await getUserByUsername(old.username)).toBeNull();
    expect(await getUserByEmail(old.email)).toBeNull();
    expect(await hasPendingEntry(old.id)).toBe(false);
    expect((await getUser(young.id))?.record.is_active).toBe(false);
    expect(await hasPendingEntry(young.id)).toBe(true);

    // Free again: a new registration with both creates a new account and sends E1, not E2.
    const again = await registered(old.username, old.email);
    expect(again.id).not.toBe(old.id);
    expect((await getUserByEmail(old.email))?.record).toMatchObject({ id: again.id, username: old.username, is_active: false });
  });

  it('an account activated by its token is kept, and its pending entry is gone', async () => {
    const account = await registered();
    expect(await hasPendingEntry(account.id)).toBe(true);
    expect((await send(server, 'POST', '/api/users/activation/', { body: { uid: account.id, token: account.token } })).status).toBe(204);
    expect(await hasPendingEntry(account.id)).toBe(false);

    await runCleanup({ clock: inDays(31) });
    expect((await getUser(account.id))?.record.is_active).toBe(true);
  });

  it("an administrator's is_active: true activates the account: kept, no pending entry; a registration left pending is deleted", async () => {
    const activated = await registered();
    const pending = await registered();
    const admin = await server.user('administrator');
    const res = await send(server, 'PATCH', `/api/users/${activated.id}/`, { body: { is_active: true }, headers: admin.auth });
    expect(expectJson(res, 200).is_active).toBe(true);
    expect(await hasPendingEntry(activated.id)).toBe(false);

    const summary = await runCleanup({ clock: inDays(31) });
    expect(summary.deleted).toBeGreaterThanOrEqual(1);
    expect((await getUser(activated.id))?.record.is_active).toBe(true);
    expect(await getUser(pending.id)).toBeNull();
    expect(await getUserByUsername(pending.username)).toBeNull();
    expect(await hasPendingEntry(pending.id)).toBe(false);
  });
});
