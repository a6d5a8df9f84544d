/**
 * Accounts hardening (docs/decisions.md 59–64), each test played as the attack it closes:
 * - squatting: someone registers an address they do not own; its owner gets in through the
 *   e-mails sent to it alone, never using a secret the registrant chose;
 * - events that must make outstanding e-mailed tokens stale (deactivation, e-mail change,
 *   password change);
 * - requests answered with the same work whatever the address (the calls they make);
 * - the cap on e-mails anyone can cause to be sent to an address.
 * (Pre-hijacking through social sign-in is in socials.test.ts, against the real provider.)
 */
import { describe, expect, it } from 'vitest';
import { getUser, getUserByEmail } from '../../shared/db/users.js';
import { RECIPIENT_CAP } from '../../shared/email/deliver.js';
import { addressOf, makeAccount, PASSWORD, uniqueUsername } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, send } from '../support/contract.js';
import { emailsTo, emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();
const ATTACKER_PASSWORD = 'Attacker-Chosen-Secret-1';
const OWNER_PASSWORD = 'Owner-Chosen-Secret-22';

const post = (path: string, body: unknown, headers?: Record<string, string>) => send(server, 'POST', path, { body, headers });
const register = (email: string, username: string, password: string) =>
  post('/api/users/', { email, username, password, re_password: password });
const signInWith = (email: string, password: string) => post('/api/tokens/jwt/create/', { email, password });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('squatting: the owner of an address takes it back from a registration they never made', () => {
  it('registering again says so truthfully, a reset replaces the registration, and the registrant is locked out', async () => {
    const victim = addressOf(uniqueUsername('victim'));
    const squat = uniqueUsername('squat');
    const reg = expectJson(await register(victim, squat, ATTACKER_PASSWORD), 201);
    const activationMail = await waitForEmail(victim, { subject: 'Activate your account' });
    // E1 tells someone who did not register how to take the address.
    expect(activationMail.text).toContain('do not open the link');
    expect(activationMail.text).toContain('password reset');

    // The owner tries to register: E2 says an unactivated registration holds the address, and how to take it.
    expect((await register(victim, uniqueUsername('owner'), OWNER_PASSWORD)).status).toBe(201);
    const e2 = await waitForEmail(victim, { subject: 'You already have an account' });
    expect(e2.text).toContain('has not been activated');
    expect(e2.text).toContain('password reset');
    expect(e2.text).not.toMatch(/^token: /m);

    // The owner asks for a reset: E4 comes, with words that say what confirming will do.
    expect((await post('/api/users/reset_password/', { email: victim })).status).toBe(204);
    const e4 = await waitForEmail(victim, { subject: 'Reset your password' });
    expect(e4.text).toContain('never activated');
    expect(e4.text).toContain('replaced');
    const reset = emailToken(e4);
    expect(reset.uid).toBe(reg.id);

    expect((await post('/api/users/reset_password_confirm/', { ...reset, new_password: OWNER_PASSWORD, re_new_password: OWNER_PASSWORD })).status).toBe(204);
    const e3 = await waitForEmail(victim, { subject: 'Your account is active' });
    expect(e3.text).toContain('replaces the registration');
    // reset_password_confirm sends E5 whatever the account was (§4.21.3, §6): the time, and advice.
    const e5 = await waitForEmail(victim, { subject: 'Your password was changed' });
    expect(e5.text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(e5.text).toContain('If this was not you');

    // A new account: new id, a username from the address, the owner's password; the registration is gone.
    const owner = (await getUserByEmail(victim))!;
    expect(owner.record.id).not.toBe(reg.id);
    expect(owner.record.is_active).toBe(true);
    expect(owner.record.username.toLowerCase()).not.toBe(squat.toLowerCase());
    // The username is derived from the address's local part (§4.21.3), which is free here.
    expect(owner.record.username).toBe(victim.split('@')[0]);
    expect(e3.text).toContain(owner.record.username);
    expect(await getUser(reg.id)).toBeNull();
    const tokens = expectJson(await signInWith(victim, OWNER_PASSWORD), 200);
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${tokens.access}` } }), 200);

    // Nothing the registrant chose works: password, activation link, reset link again, username.
    expectProblem(await signInWith(victim, ATTACKER_PASSWORD), 401, 'invalid-credentials');
    expectErrors(await post('/api/users/activation/', emailToken(activationMail)), 400, 'validation-error', ['uid']);
    expectErrors(await post('/api/users/reset_password_confirm/', { ...reset, new_password: ATTACKER_PASSWORD, re_new_password: ATTACKER_PASSWORD }), 400, 'validation-error', ['uid']);
    expectProblem(await send(server, 'GET', `/api/users/${squat}/about/`), 404, 'not-found');
  });

  it('the registrant activating first keeps the account theirs; a reset of an active account is an ordinary reset', async () => {
    const email = addressOf(uniqueUsername('honest'));
    const username = uniqueUsername('honest');
    const reg = expectJson(await register(email, username, ATTACKER_PASSWORD), 201);
    expect((await post('/api/users/activation/', emailToken(await waitForEmail(email, { subject: 'Activate your account' })))).status).toBe(204);
    expect((await post('/api/users/reset_password/', { email })).status).toBe(204);
    const e4 = await waitForEmail(email, { subject: 'Reset your password' });
    expect(e4.text).not.toContain('never activated');
    expect((await post('/api/users/reset_password_confirm/', { ...emailToken(e4), new_password: OWNER_PASSWORD, re_new_password: OWNER_PASSWORD })).status).toBe(204);
    expect((await getUserByEmail(email))!.record).toMatchObject({ id: reg.id, username });
  });
});

describe('events that make outstanding e-mailed tokens stale', () => {
  const requestReset = async (email: string, count = 1) => {
    expect((await post('/api/users/reset_password/', { email })).status).toBe(204);
    return emailToken(await waitForEmail(email, { subject: 'Reset your password', count }));
  };
  const confirmReset = (token: { uid: string; token: string }) =>
    post('/api/users/reset_password_confirm/', { ...token, new_password: OWNER_PASSWORD, re_new_password: OWNER_PASSWORD });

  it("an administrator's deactivation stales a pending reset and a pending e-mail change", async () => {
    const admin = await makeAccount({ role: 'administrator' });
    const user = await makeAccount();
    const reset = await requestReset(user.email);
    const newEmail = addressOf(uniqueUsername('moved'));
    expect((await post('/api/users/set_email/', { current_password: PASSWORD, new_email: newEmail, re_new_email: newEmail }, user.auth)).status).toBe(204);
    const change = emailToken(await waitForEmail(newEmail, { subject: 'Confirm your new email address' }));

    expectJson(await send(server, 'PATCH', `/api/users/${user.id}/`, { body: { is_active: false }, headers: admin.auth }), 200);
    expectJson(await send(server, 'PATCH', `/api/users/${user.id}/`, { body: { is_active: true }, headers: admin.auth }), 200);
    expectProblem(await confirmReset(reset), 403, 'stale-token');
    expectProblem(await post('/api/users/reset_email_confirm/', change), 403, 'stale-token');
    expect((await getUser(user.id))!.record.email).toBe(user.email);
  });

  it('an e-mail change stales a reset token sent to the old address', async () => {
    const user = await makeAccount();
    const reset = await requestReset(user.email);
    const newEmail = addressOf(uniqueUsername('moved'));
    expect((await post('/api/users/set_email/', { current_password: PASSWORD, new_email: newEmail, re_new_email: newEmail }, user.auth)).status).toBe(204);
    const change = emailToken(await waitForEmail(newEmail, { subject: 'Confirm your new email address' }));
    expect((await post('/api/users/reset_email_confirm/', change)).status).toBe(204);
    expectProblem(await confirmReset(reset), 403, 'stale-token');
  });

  it('a password change ends an e-mail change started with the old password, including one still queued', async () => {
    // The attacker knows the password and starts moving the account to their address.
    const user = await makeAccount();
    const attackerEmail = addressOf(uniqueUsername('attacker'));
    expect((await post('/api/users/set_email/', { current_password: PASSWORD, new_email: attackerEmail, re_new_email: attackerEmail }, user.auth)).status).toBe(204);
    const change = emailToken(await waitForEmail(attackerEmail, { subject: 'Confirm your new email address' }));
    // The owner resets the password: the attacker's confirmation link is stale.
    expect((await confirmReset(await requestReset(user.email))).status).toBe(204);
    expectProblem(await post('/api/users/reset_email_confirm/', change), 403, 'stale-token');
    expect((await getUser(user.id))!.record.email).toBe(user.email);
    expect((await getUser(user.id))!.priv.pending_email).toBeUndefined();
  });
});

describe('the cap on e-mails anyone can cause to be sent to an address', () => {
  it(`registrations with a taken address send at most ${RECIPIENT_CAP.limit} E2 an hour; other kinds are counted apart`, async () => {
    const owner = await makeAccount();
    for (let i = 0; i < RECIPIENT_CAP.limit + 3; i++) {
      expect((await register(owner.email, uniqueUsername('flood'), OWNER_PASSWORD)).status).toBe(201);
    }
    await waitForEmail(owner.email, { subject: 'You already have an account', count: RECIPIENT_CAP.limit });
    await pause(2500);
    expect(await emailsTo(owner.email, { subject: 'You already have an account' })).toHaveLength(RECIPIENT_CAP.limit);
    // The owner's own reset still arrives: the flood of E2 holds back no other kind.
    expect((await post('/api/users/reset_password/', { email: owner.email })).status).toBe(204);
    await waitForEmail(owner.email, { subject: 'Reset your password' });
  });

  it(`e-mail changes to someone else's address send at most ${RECIPIENT_CAP.limit} E6 an hour`, async () => {
    const target = addressOf(uniqueUsername('target'));
    const movers = await Promise.all(Array.from({ length: RECIPIENT_CAP.limit + 2 }, () => makeAccount()));
    for (const m of movers) {
      expect((await post('/api/users/set_email/', { current_password: PASSWORD, new_email: target, re_new_email: target }, m.auth)).status).toBe(204);
    }
    await waitForEmail(target, { subject: 'Confirm your new email address', count: RECIPIENT_CAP.limit });
    await pause(2500);
    expect(await emailsTo(target, { subject: 'Confirm your new email address' })).toHaveLength(RECIPIENT_CAP.limit);
    // Each mover still got its E7 at its own address.
    for (const m of movers) await waitForEmail(m.email, { subject: 'Email change requested' });
  });
});
