/**
 * Registration and activation (API.md §4.21.1, §4.21.3, §6): every flow over HTTP, reading the
 * e-mails the SES emulator received. Registration answers the same whether or not the address
 * has an account; activation tokens are single-use, superseded by a resend, and stale once the
 * account is active.
 */
import { describe, expect, it } from 'vitest';
import { addressOf, comparable, makeAccount, PASSWORD, signIn, storedUser, uniqueUsername } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, ID, send, TIMESTAMP } from '../support/contract.js';
import { emailsTo, emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();

const registration = (username = uniqueUsername('reg'), email = addressOf(username)) => ({ email, username, password: PASSWORD, re_password: PASSWORD });
const register = (body: unknown, headers: Record<string, string> = {}) => send(server, 'POST', '/api/users/', { body, headers });
const activate = (body: unknown) => send(server, 'POST', '/api/users/activation/', { body });
const resend = (email: string) => send(server, 'POST', '/api/users/resend_activation/', { body: { email } });

/** Registers through the API and returns the account id and its activation e-mail. */
async function registered(body = registration()) {
  const res = await register(body);
  expect(res.status, res.text).toBe(201);
  const mail = await waitForEmail(body.email, { subject: 'Activate your account' });
  return { id: res.body.id as string, body, mail, ...emailToken(mail) };
}

describe('POST /api/users/ (registration)', () => {
  it('→ 201 {id, email, username} with Location; an inactive member with a profile; E1 with the activation link', async () => {
    const body = registration(uniqueUsername('Reg'));
    const res = await register(body);
    const created = expectJson(res, 201);
    expect(Object.keys(created)).toEqual(['id', 'email', 'username']);
    expect(created.id).toMatch(ID);
    expect(created).toMatchObject({ email: body.email, username: body.username });
    expect(res.headers.get('location')).toBe(`${server.url}/api/users/${created.id}/`);
    expect(res.headers.get('cache-control')).toBe('no-store');

    const user = (await storedUser(created.id))!;
    expect(user.record).toMatchObject({ username: body.username, email: body.email, role: 'member', is_active: false, is_staff: false, last_login: null });
    expect(user.record.created_at).toMatch(TIMESTAMP);

    const mail = await waitForEmail(body.email, { subject: 'Activate your account' });
    const { uid, token } = emailToken(mail);
    expect(uid).toBe(created.id);
    expect(mail.text).toContain(body.username);
    expect(mail.text).toContain(`https://app.example.org/activate/${uid}/${token}`);
    expect(mail.text).toContain('24 hours');
    expect(mail.text).not.toContain(PASSWORD);

    // Inactive: no sign-in yet.
    expectProblem(await signIn(server, body.email, PASSWORD), 401, 'account-inactive');
  });

  it('the e-mail is stored in lower case and trimmed; the username keeps its case', async () => {
    const username = uniqueUsername('MiXeD');
    const res = await register({ ...registration(username), email: `  ${addressOf(username).toUpperCase()} ` });
    expect(expectJson(res, 201)).toMatchObject({ email: addressOf(username), username });
  });

  it('ignores the Authorization header, even an invalid one', async () => {
    expectJson(await register(registration(), { authorization: 'Bearer not-a-token' }), 201);
    expectJson(await register(registration(), { authorization: 'Basic abc' }), 201);
  });

  it('every field error in one 400: missing fields', async () => {
    expectErrors(await register({}), 400, 'validation-error', ['email', 'username', 'password', 're_password']);
    expectErrors(await register(undefined), 400, 'validation-error', ['email', 'username', 'password', 're_password']);
  });

  it('400 for wrong types, null, unknown and read-only fields, all together', async () => {
    const username = uniqueUsername();
    const res = await register({ email: 5, username: null, password: PASSWORD, re_password: PASSWORD, role: 'administrator', is_active: true });
    expectErrors(res, 400, 'validation-error', ['email', 'username', 'role', 'is_active']);
    expectErrors(await register({ ...registration(username), password: 1234567890123, re_password: true }), 400, 'validation-error', ['password', 're_password']);
  });

  it('400 on an invalid e-mail, username rules, reserved usernames', async () => {
    const res = await register({ ...registration(), email: 'not-an-address' });
    expectErrors(res, 400, 'validation-error', ['email']);
    for (const username of ['ab', 'x'.repeat(31), '_leading', 'has space', 'ümlaut1', 'ME', 'Admin', 'reset_password', 'activation']) {
      expectErrors(await register(registration(username, addressOf(uniqueUsername()))), 400, 'validation-error', ['username']);
    }
  });

  it('400 on password rules (several at once) and a mismatched re_password, with the other errors', async () => {
    const username = uniqueUsername('pwrules');
    const weak = async (password: string, extra: Record<string, unknown> = {}) =>
      register({ ...registration(username), password, re_password: password, ...extra });
    for (const pw of ['short1', '12345678901234', 'Password123', 'qwertyuiop', `${username}X`, 'x'.repeat(129)]) {
      expectErrors(await weak(pw), 400, 'validation-error', ['password']);
    }
    // Not too similar to the e-mail's local part either (here the local part differs from the username).
    const local = uniqueUsername('mailpart');
    expectErrors(await weak(`${local}!`, { email: `${local}@example.org` }), 400, 'validation-error', ['password']);
    expectErrors(await register({ ...registration(), re_password: `${PASSWORD}x` }), 400, 'validation-error', ['re_password']);
    expectErrors(await register({ email: 'nope', username: 'x', password: '123', re_password: '1234' }), 400, 'validation-error', ['email', 'username', 'password', 're_password']);
    // Nothing was created for any of them.
    expect(await emailsTo(addressOf(username))).toEqual([]);
  });

  it('415 for a body that is not JSON; 400 for malformed JSON', async () => {
    expectProblem(await send(server, 'POST', '/api/users/', { body: 'email=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported-media-type');
    expectProblem(await send(server, 'POST', '/api/users/', { body: '{"email":', headers: { 'content-type': 'application/json' } }), 400, 'malformed-request');
  });

  it('a taken username (any case) → 409 errors.username, checked before the e-mail', async () => {
    const existing = await makeAccount();
    const res = await register(registration(existing.username.toUpperCase()));
    expectErrors(res, 409, 'conflict', ['username']);
    // Username taken and e-mail used: still the 409.
    expectErrors(await register(registration(existing.username, existing.email)), 409, 'conflict', ['username']);
  });

  it('an e-mail that has an account → the same answer as a success, E2 to it, nothing created', async () => {
    const existing = await makeAccount();
    const fresh = registration();
    const [used, created] = [await register({ ...registration(), email: existing.email.toUpperCase() }), await register(fresh)];
    expect(comparable(used, ['email', 'username'])).toEqual(comparable(created, ['email', 'username']));
    expect(Object.keys(used.body)).toEqual(['id', 'email', 'username']);
    expect(used.headers.get('location')).toBe(`${server.url}/api/users/${used.body.id}/`);
    expect(used.body.id).toMatch(ID);
    expect(used.body.id).not.toBe(existing.id);
    // The id identifies nothing: not even an administrator finds it.
    const admin = await makeAccount({ role: 'administrator' });
    expectProblem(await send(server, 'GET', `/api/users/${used.body.id}/`, { headers: admin.auth }), 404, 'not-found');
    const e2 = await waitForEmail(existing.email, { subject: 'You already have an account' });
    expect(e2.text).not.toMatch(/^token: /m);
    // No activation e-mail for the existing account, and the existing account is unchanged.
    expect(await emailsTo(existing.email, { subject: 'Activate your account' })).toEqual([]);
    expect((await storedUser(existing.id))!.record.username).toBe(existing.username);
  });

  it('the e-mail of a never-activated registration is "used" too', async () => {
    const first = await registered();
    const again = await register(registration(uniqueUsername(), first.body.email));
    expectJson(again, 201);
    expect(again.body.id).not.toBe(first.id);
    await waitForEmail(first.body.email, { subject: 'You already have an account' });
  });
});

describe('activation', () => {
  it('E1 → activation → 204, active, E3; then sign-in and GET /api/users/me/', async () => {
    const { id, body, uid, token } = await registered();
    const res = await activate({ uid, token });
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    const e3 = await waitForEmail(body.email, { subject: 'Your account is active' });
    expect(e3.text).toContain(body.username);

    const signedIn = await signIn(server, body.email, PASSWORD);
    expect(signedIn.status, signedIn.text).toBe(200);
    const me = await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${signedIn.body.access}` } });
    expect(expectJson(me, 200)).toMatchObject({ id, username: body.username, email: body.email, role: 'member', is_active: true, is_staff: false });
    expect(me.body.last_login).toMatch(TIMESTAMP);
    // The profile was created with the account.
    const profile = await send(server, 'GET', '/api/profiles/my-profile/', { headers: { authorization: `Bearer ${signedIn.body.access}` } });
    expect(expectJson(profile, 200)).toMatchObject({ user: { id, username: body.username }, first_name: '', bio: '' });
  });

  it('a used token → 403 stale-token (the account is active)', async () => {
    const { uid, token } = await registered();
    expect((await activate({ uid, token })).status).toBe(204);
    expectProblem(await activate({ uid, token }), 403, 'stale-token');
  });

  it('not genuine → 400: unknown uid (errors.uid), a forged or foreign token (errors.token)', async () => {
    const a = await registered();
    const b = await registered();
    expectErrors(await activate({ uid: 'AAAAAAAAAAAAAAAAAAAAAA', token: a.token }), 400, 'validation-error', ['uid']);
    expectErrors(await activate({ uid: '../../x', token: a.token }), 400, 'validation-error', ['uid']);
    // b's token names b: not genuine for a.
    expectErrors(await activate({ uid: a.uid, token: b.token }), 400, 'validation-error', ['token']);
    const flipped = `${a.token.slice(0, -2)}${a.token.endsWith('AA') ? 'BA' : 'AA'}`;
    expectErrors(await activate({ uid: a.uid, token: flipped }), 400, 'validation-error', ['token']);
    expectErrors(await activate({ uid: a.uid, token: 'short' }), 400, 'validation-error', ['token']);
    expectErrors(await activate({ uid: a.uid, token: 'a.b.c' }), 400, 'validation-error', ['token']);
    // Still activatable with the genuine one.
    expect((await activate({ uid: a.uid, token: a.token })).status).toBe(204);
  });

  it('400 for missing fields, wrong types, unknown fields', async () => {
    expectErrors(await activate({}), 400, 'validation-error', ['uid', 'token']);
    expectErrors(await activate({ uid: 1, token: null }), 400, 'validation-error', ['uid', 'token']);
    expectErrors(await activate({ uid: 'x', token: 'y', extra: 1 }), 400, 'validation-error', ['extra', 'uid']);
  });

  it('ignores the Authorization header', async () => {
    const { uid, token } = await registered();
    const res = await send(server, 'POST', '/api/users/activation/', { body: { uid, token }, headers: { authorization: 'Bearer nonsense' } });
    expect(res.status, res.text).toBe(204);
  });

  it('a token of another purpose is not genuine (a password-reset token)', async () => {
    const account = await makeAccount();
    expect((await send(server, 'POST', '/api/users/reset_password/', { body: { email: account.email } })).status).toBe(204);
    const { uid, token } = emailToken(await waitForEmail(account.email, { subject: 'Reset your password' }));
    expectErrors(await activate({ uid, token }), 400, 'validation-error', ['token']);
  });

  it('an account an administrator activated: its activation token is stale', async () => {
    const { id, uid, token } = await registered();
    const admin = await makeAccount({ role: 'administrator' });
    expect((await send(server, 'PATCH', `/api/users/${id}/`, { body: { is_active: true }, headers: admin.auth })).status).toBe(200);
    expectProblem(await activate({ uid, token }), 403, 'stale-token');
  });
});

describe('POST /api/users/resend_activation/', () => {
  it('a never-activated account gets a new E1; the older token becomes stale, the new one works', async () => {
    const first = await registered();
    const res = await resend(first.body.email.toUpperCase());
    expect(res.status, res.text).toBe(204);
    const second = emailToken(await waitForEmail(first.body.email, { subject: 'Activate your account', count: 2 }));
    expect(second.uid).toBe(first.uid);
    expect(second.token).not.toBe(first.token);
    expectProblem(await activate({ uid: first.uid, token: first.token }), 403, 'stale-token');
    expect((await activate(second)).status).toBe(204);
    // Active now: no more activation e-mails, and the answer stays 204.
    expect((await resend(first.body.email)).status).toBe(204);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await emailsTo(first.body.email, { subject: 'Activate your account' })).toHaveLength(2);
  });

  it('answers identically for unknown, active, deactivated and never-activated addresses; only the last gets mail', async () => {
    const active = await makeAccount();
    const deactivated = await makeAccount({ active: false, activated: true });
    const pending = await makeAccount({ active: false, activated: false });
    const unknown = addressOf(uniqueUsername('nobody'));
    const answers = await Promise.all([unknown, active.email, deactivated.email, pending.email].map(resend));
    for (const a of answers) expect(comparable(a)).toEqual(comparable(answers[0]!));
    expect(answers[0]!.status).toBe(204);
    await waitForEmail(pending.email, { subject: 'Activate your account' });
    await new Promise((r) => setTimeout(r, 1500));
    for (const address of [unknown, active.email, deactivated.email]) expect(await emailsTo(address)).toEqual([]);
  });

  it('400 only for a missing or invalid e-mail', async () => {
    expectErrors(await send(server, 'POST', '/api/users/resend_activation/', { body: {} }), 400, 'validation-error', ['email']);
    expectErrors(await resend('nope'), 400, 'validation-error', ['email']);
    expectErrors(await send(server, 'POST', '/api/users/resend_activation/', { body: { email: 5 } }), 400, 'validation-error', ['email']);
  });
});
