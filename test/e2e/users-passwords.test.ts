/**
 * Passwords (API.md §4.21.2, §4.21.3, §6): the reset flow by e-mail (E4 → confirm → E5) and the
 * signed-in change (set_password → E5). Both revoke every token of the user; reset tokens are
 * single-use, superseded by a newer E4 and stale once the password changed.
 */
import { describe, expect, it } from 'vitest';
import { addressOf, comparable, makeAccount, PASSWORD, signIn, signedIn, uniqueUsername, type Account } from '../support/accounts.js';
import { expectErrors, expectProblem, send } from '../support/contract.js';
import { emailsTo, emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();
const NEW_PASSWORD = 'Marmalade-Orbit-77';

const requestReset = (email: string) => send(server, 'POST', '/api/users/reset_password/', { body: { email } });
const confirmReset = (body: unknown) => send(server, 'POST', '/api/users/reset_password_confirm/', { body });
const setPassword = (auth: Record<string, string>, body: unknown) => send(server, 'POST', '/api/users/set_password/', { body, headers: auth });
const me = (auth: Record<string, string>) => send(server, 'GET', '/api/users/me/', { headers: auth });

async function resetToken(account: Account, count = 1) {
  expect((await requestReset(account.email)).status).toBe(204);
  return emailToken(await waitForEmail(account.email, { subject: 'Reset your password', count }));
}

describe('POST /api/users/reset_password/', () => {
  it('an active account gets E4 with the reset link, "valid for 1 hour" and "ignore" advice', async () => {
    const account = await makeAccount();
    expect((await requestReset(account.email.toUpperCase())).status).toBe(204);
    const mail = await waitForEmail(account.email, { subject: 'Reset your password' });
    const { uid, token } = emailToken(mail);
    expect(uid).toBe(account.id);
    expect(mail.text).toContain(`https://app.example.org/password/reset/confirm/${uid}/${token}`);
    expect(mail.text).toContain('1 hour');
    expect(mail.text.toLowerCase()).toContain('ignore');
  });

  it('answers identically for unknown, inactive and active addresses; active and never-activated accounts get mail (decision 60)', async () => {
    const active = await makeAccount();
    const pending = await makeAccount({ active: false });
    const deactivated = await makeAccount({ active: false, activated: true });
    const unknown = addressOf(uniqueUsername('nobody'));
    const answers = await Promise.all([unknown, pending.email, deactivated.email, active.email].map(requestReset));
    for (const a of answers) expect(comparable(a)).toEqual(comparable(answers[0]!));
    expect(answers[0]!.status).toBe(204);
    expect((await waitForEmail(active.email, { subject: 'Reset your password' })).text).not.toContain('never activated');
    expect((await waitForEmail(pending.email, { subject: 'Reset your password' })).text).toContain('never activated');
    await new Promise((r) => setTimeout(r, 1500));
    for (const address of [unknown, deactivated.email]) expect(await emailsTo(address)).toEqual([]);
  });

  it('400 only for a missing or invalid e-mail; Authorization is ignored', async () => {
    expectErrors(await send(server, 'POST', '/api/users/reset_password/', { body: {} }), 400, 'validation-error', ['email']);
    expectErrors(await requestReset('not an address'), 400, 'validation-error', ['email']);
    expectErrors(await send(server, 'POST', '/api/users/reset_password/', { body: { email: 'a@example.org', x: 1 } }), 400, 'validation-error', ['x']);
    expect((await send(server, 'POST', '/api/users/reset_password/', { body: { email: 'a@example.org' }, headers: { authorization: 'Bearer x' } })).status).toBe(204);
  });
});

describe('POST /api/users/reset_password_confirm/', () => {
  it('sets the password, revokes every token, sends E5; the token is then stale', async () => {
    const account = await makeAccount();
    const session = await signedIn(server, account.email, PASSWORD);
    const { uid, token } = await resetToken(account);
    const res = await confirmReset({ uid, token, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD });
    expect(res.status, res.text).toBe(204);

    const e5 = await waitForEmail(account.email, { subject: 'Your password was changed' });
    expect(e5.text).toMatch(/UTC/);
    expect(e5.text).not.toContain(NEW_PASSWORD);
    // Tokens issued before are refused, the fixture's and the signed-in session's.
    expectProblem(await me(account.auth), 401, 'invalid-token');
    expectProblem(await me(session), 401, 'invalid-token');
    expectProblem(await signIn(server, account.email, PASSWORD), 401, 'invalid-credentials');
    expect((await me(await signedIn(server, account.email, NEW_PASSWORD))).status).toBe(200);
    // Single use.
    expectProblem(await confirmReset({ uid, token, new_password: 'Another-Password-9', re_new_password: 'Another-Password-9' }), 403, 'stale-token');
  });

  it('a newer E4 supersedes the older token', async () => {
    const account = await makeAccount();
    const older = await resetToken(account, 1);
    const newer = await resetToken(account, 2);
    expect(newer.token).not.toBe(older.token);
    expectProblem(await confirmReset({ ...older, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }), 403, 'stale-token');
    expect((await confirmReset({ ...newer, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD })).status).toBe(204);
  });

  it('a password change since the token was issued makes it stale', async () => {
    const account = await makeAccount();
    const pending = await resetToken(account);
    const res = await setPassword(account.auth, { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD });
    expect(res.status, res.text).toBe(204);
    expectProblem(await confirmReset({ ...pending, new_password: 'Another-Password-9', re_new_password: 'Another-Password-9' }), 403, 'stale-token');
  });

  it('not genuine → 400 errors.uid / errors.token, reported with the password errors', async () => {
    const account = await makeAccount();
    const { uid, token } = await resetToken(account);
    const other = await makeAccount();
    expectErrors(await confirmReset({ uid: other.id, token, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }), 400, 'validation-error', ['token']);
    expectErrors(await confirmReset({ uid: 'AAAAAAAAAAAAAAAAAAAAAA', token, new_password: 'short', re_new_password: 'other' }), 400, 'validation-error', [
      'uid',
      'new_password',
      're_new_password',
    ]);
    expectErrors(await confirmReset({ uid, token: 'forged', new_password: '1234567890123', re_new_password: '1234567890123' }), 400, 'validation-error', ['token', 'new_password']);
    // An activation-purpose or e-mail-change token is not a reset token: same errors.token.
    // The genuine token still works afterwards (failed attempts do not spend it).
    expect((await confirmReset({ uid, token, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD })).status).toBe(204);
  });

  it('400 for password rules against the user (username, e-mail local part) and a mismatched retype', async () => {
    const account = await makeAccount();
    const { uid, token } = await resetToken(account);
    const weak = (pw: string, retype = pw) => confirmReset({ uid, token, new_password: pw, re_new_password: retype });
    for (const pw of ['short', '98765432109876', 'password1234', `My-${account.username}`, 'administrator']) {
      expectErrors(await weak(pw), 400, 'validation-error', ['new_password']);
    }
    expectErrors(await weak(NEW_PASSWORD, `${NEW_PASSWORD}?`), 400, 'validation-error', ['re_new_password']);
    expectErrors(await confirmReset({}), 400, 'validation-error', ['uid', 'token', 'new_password', 're_new_password']);
    expectErrors(await confirmReset({ uid, token, new_password: 5, re_new_password: NEW_PASSWORD, role: 'x' }), 400, 'validation-error', ['new_password', 'role']);
    // None of these spent the token.
    expect((await weak(NEW_PASSWORD)).status).toBe(204);
  });

  it('a stale token → 403 even when the body has other errors (403 precedes validation)', async () => {
    const account = await makeAccount();
    const older = await resetToken(account, 1);
    await resetToken(account, 2);
    expectProblem(await confirmReset({ ...older, new_password: 'short', re_new_password: 'x' }), 403, 'stale-token');
  });
});

describe('POST /api/users/set_password/', () => {
  it('changes the password, revokes every token including the one used, sends E5', async () => {
    const account = await makeAccount();
    const session = await signedIn(server, account.email, PASSWORD);
    const res = await setPassword(session, { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD });
    expect(res.status, res.text).toBe(204);
    expect(res.headers.get('cache-control')).toBe('no-store');
    await waitForEmail(account.email, { subject: 'Your password was changed' });
    expectProblem(await me(session), 401, 'invalid-token');
    expectProblem(await me(account.auth), 401, 'invalid-token');
    expectProblem(await signIn(server, account.email, PASSWORD), 401, 'invalid-credentials');
    expect((await me(await signedIn(server, account.email, NEW_PASSWORD))).status).toBe(200);
  });

  it('every field error in one 400: wrong current password, rules, mismatch', async () => {
    const account = await makeAccount();
    expectErrors(await setPassword(account.auth, { current_password: 'wrong-password', new_password: 'short', re_new_password: 'other' }), 400, 'validation-error', [
      'current_password',
      'new_password',
      're_new_password',
    ]);
    expectErrors(await setPassword(account.auth, { current_password: PASSWORD, new_password: `${account.email.split('@')[0]}-1`, re_new_password: `${account.email.split('@')[0]}-1` }), 400, 'validation-error', ['new_password']);
    expectErrors(await setPassword(account.auth, { current_password: 'wrong-password', new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }), 400, 'validation-error', ['current_password']);
    expectErrors(await setPassword(account.auth, {}), 400, 'validation-error', ['current_password', 'new_password', 're_new_password']);
    expectErrors(await setPassword(account.auth, { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD, token: 'x' }), 400, 'validation-error', ['token']);
    // Nothing changed.
    expect((await me(account.auth)).status).toBe(200);
    expect(await emailsTo(account.email, { subject: 'Your password was changed' })).toEqual([]);
  });

  it('401 without credentials; 415 for a non-JSON body', async () => {
    expectProblem(await send(server, 'POST', '/api/users/set_password/', { body: {} }), 401, 'authentication-required');
    const account = await makeAccount();
    expectProblem(await send(server, 'POST', '/api/users/set_password/', { body: 'x', headers: { ...account.auth, 'content-type': 'text/plain' } }), 415, 'unsupported-media-type');
  });
});
