/**
 * E-mail changes (API.md §4.21.2, §4.21.3, §6): set_email (signed in) and reset_email (with
 * e-mail + password) start a pending change — E6 with a token to the new address, E7 to the
 * current one — that reset_email_confirm completes (E8 to the old address, every token revoked).
 * A new address that already has an account only gets E2.
 */
import { describe, expect, it } from 'vitest';
import { addressOf, comparable, makeAccount, PASSWORD, signIn, storedUser, uniqueUsername, type Account } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, send } from '../support/contract.js';
import { emailsTo, emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();

const setEmail = (auth: Record<string, string>, body: unknown) => send(server, 'POST', '/api/users/set_email/', { body, headers: auth });
const resetEmail = (body: unknown) => send(server, 'POST', '/api/users/reset_email/', { body });
const confirm = (body: unknown) => send(server, 'POST', '/api/users/reset_email_confirm/', { body });
const me = (auth: Record<string, string>) => send(server, 'GET', '/api/users/me/', { headers: auth });

const change = (account: Account, to: string) => ({ current_password: account.password, new_email: to, re_new_email: to });
const freshAddress = () => addressOf(uniqueUsername('new'));
const masked = (address: string) => `${address[0]}***@${address.split('@')[1]}`;

async function started(account: Account, to = freshAddress(), count = 1) {
  const res = await setEmail(account.auth, change(account, to));
  expect(res.status, res.text).toBe(204);
  const e6 = await waitForEmail(to, { subject: 'Confirm your new email address', count });
  return { to, e6, ...emailToken(e6) };
}

describe('POST /api/users/set_email/ and confirmation', () => {
  it('E6 to the new address, E7 to the current one; confirm → the new e-mail, tokens revoked, E8 to the old address', async () => {
    const account = await makeAccount();
    const { to, e6, uid, token } = await started(account);
    expect(uid).toBe(account.id);
    expect(e6.text).toContain(to);
    expect(e6.text).toContain(`https://app.example.org/email/reset/confirm/${uid}/${token}`);
    expect(e6.text).toContain('24 hours');
    const e7 = await waitForEmail(account.email, { subject: 'Email change requested' });
    expect(e7.text).toContain(masked(to));
    expect(e7.text).not.toContain(to);
    // Pending only: the e-mail is unchanged until confirmed.
    expect(expectJson(await me(account.auth), 200).email).toBe(account.email);

    const res = await confirm({ uid, token });
    expect(res.status, res.text).toBe(204);
    const e8 = await waitForEmail(account.email, { subject: 'Your email address was changed' });
    expect(e8.text).toContain(masked(to));
    expect(e8.text).toMatch(/UTC/);
    expectProblem(await me(account.auth), 401, 'invalid-token');
    const session = await signIn(server, to, PASSWORD);
    expect(session.status, session.text).toBe(200);
    const after = expectJson(await me({ authorization: `Bearer ${session.body.access}` }), 200);
    expect(after.email).toBe(to);
    expect(after.updated_at > after.created_at).toBe(true);
    // The old address is free at once, the token spent.
    expectProblem(await signIn(server, account.email, PASSWORD), 401, 'invalid-credentials');
    expectProblem(await confirm({ uid, token }), 403, 'stale-token');
    expect((await makeAccount({ email: account.email })).email).toBe(account.email);
  });

  it('a newer change supersedes the older one: its token is stale', async () => {
    const account = await makeAccount();
    const first = await started(account);
    const second = await started(account);
    expectProblem(await confirm({ uid: first.uid, token: first.token }), 403, 'stale-token');
    expect((await confirm({ uid: second.uid, token: second.token })).status).toBe(204);
    expect((await storedUser(account.id))!.record.email).toBe(second.to);
  });

  it('a new address that already has an account: 204, E2 to it, nothing else', async () => {
    const account = await makeAccount();
    const other = await makeAccount();
    const taken = await setEmail(account.auth, change(account, other.email.toUpperCase()));
    const free = await setEmail((await makeAccount()).auth, change(account, freshAddress()));
    expect(comparable(taken)).toEqual(comparable(free));
    await waitForEmail(other.email, { subject: 'You already have an account' });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await emailsTo(other.email, { subject: 'Confirm your new email address' })).toEqual([]);
    expect(await emailsTo(account.email)).toEqual([]);
    expect((await storedUser(account.id))!.priv.pending_email).toBeUndefined();
  });

  it('every field error in one 400: wrong password, invalid or current address, mismatch', async () => {
    const account = await makeAccount();
    expectErrors(await setEmail(account.auth, { current_password: 'wrong-password', new_email: 'nope', re_new_email: 'other' }), 400, 'validation-error', [
      'current_password',
      'new_email',
      're_new_email',
    ]);
    expectErrors(await setEmail(account.auth, { current_password: 'wrong-password', new_email: freshAddress(), re_new_email: freshAddress() }), 400, 'validation-error', [
      'current_password',
      're_new_email',
    ]);
    expectErrors(await setEmail(account.auth, change(account, account.email.toUpperCase())), 400, 'validation-error', ['new_email']);
    expectErrors(await setEmail(account.auth, {}), 400, 'validation-error', ['current_password', 'new_email', 're_new_email']);
    expectErrors(await setEmail(account.auth, { ...change(account, freshAddress()), email: 'x@example.org' }), 400, 'validation-error', ['email']);
    await new Promise((r) => setTimeout(r, 500));
    expect(await emailsTo(account.email)).toEqual([]);
  });

  it('the retyped address is compared as addresses are (case, spaces)', async () => {
    const account = await makeAccount();
    const to = freshAddress();
    expect((await setEmail(account.auth, { current_password: PASSWORD, new_email: to, re_new_email: ` ${to.toUpperCase()} ` })).status).toBe(204);
  });

  it('confirm: 409 when the new address was taken meanwhile; nothing changes', async () => {
    const account = await makeAccount();
    const { to, uid, token } = await started(account);
    const squatter = await makeAccount({ email: to });
    const res = await confirm({ uid, token });
    expectErrors(res, 409, 'conflict', ['email']);
    expect(res.body.existing_id).toBeUndefined();
    expect((await storedUser(account.id))!.record.email).toBe(account.email);
    expect((await storedUser(squatter.id))!.record.email).toBe(to);
    expect((await me(account.auth)).status).toBe(200);
  });

  it('confirm: an e-mail changed since (by an administrator) makes the token stale', async () => {
    const account = await makeAccount();
    const { uid, token } = await started(account);
    const admin = await makeAccount({ role: 'administrator' });
    expect((await send(server, 'PATCH', `/api/users/${account.id}/`, { body: { email: freshAddress() }, headers: admin.auth })).status).toBe(200);
    expectProblem(await confirm({ uid, token }), 403, 'stale-token');
  });

  it('confirm: not genuine → 400 errors.uid / errors.token; bad bodies → 400', async () => {
    const account = await makeAccount();
    const { uid, token } = await started(account);
    expectErrors(await confirm({ uid: 'AAAAAAAAAAAAAAAAAAAAAA', token }), 400, 'validation-error', ['uid']);
    expectErrors(await confirm({ uid: (await makeAccount()).id, token }), 400, 'validation-error', ['token']);
    expectErrors(await confirm({ uid, token: `${token}x` }), 400, 'validation-error', ['token']);
    expectErrors(await confirm({}), 400, 'validation-error', ['uid', 'token']);
    expectErrors(await confirm({ uid, token: 7 }), 400, 'validation-error', ['token']);
    // An activation or reset token is not an e-mail change token.
    await send(server, 'POST', '/api/users/reset_password/', { body: { email: account.email } });
    const reset = emailToken(await waitForEmail(account.email, { subject: 'Reset your password' }));
    expectErrors(await confirm(reset), 400, 'validation-error', ['token']);
    expect((await confirm({ uid, token })).status).toBe(204);
  });
});

describe('POST /api/users/reset_email/', () => {
  const body = (account: Account, to = freshAddress(), extra: Record<string, unknown> = {}) => ({ email: account.email, password: PASSWORD, new_email: to, re_new_email: to, ...extra });

  it('with the right e-mail and password: E6 and E7, confirmable like set_email', async () => {
    const account = await makeAccount();
    const to = freshAddress();
    const res = await send(server, 'POST', '/api/users/reset_email/', { body: body(account, to), headers: { authorization: 'Bearer ignored' } });
    expect(res.status, res.text).toBe(204);
    const { uid, token } = emailToken(await waitForEmail(to, { subject: 'Confirm your new email address' }));
    await waitForEmail(account.email, { subject: 'Email change requested' });
    expect((await confirm({ uid, token })).status).toBe(204);
    expect((await storedUser(account.id))!.record.email).toBe(to);
  });

  it('field syntax (400) first, then credentials (401, identical for unknown e-mail and wrong password), then the same address (400)', async () => {
    const account = await makeAccount();
    expectErrors(await resetEmail({ email: account.email, password: 'wrong' }), 400, 'validation-error', ['new_email', 're_new_email']);
    expectErrors(await resetEmail(body(account, 'nope')), 400, 'validation-error', ['new_email']);
    expectErrors(await resetEmail({ ...body(account), re_new_email: freshAddress(), password: 'wrong' }), 400, 'validation-error', ['re_new_email']);
    const unknown = await resetEmail({ ...body(account), email: addressOf(uniqueUsername('nobody')) });
    const wrong = await resetEmail({ ...body(account), password: 'wrong-password' });
    expectProblem(unknown, 401, 'invalid-credentials');
    expect(comparable(unknown)).toEqual(comparable(wrong));
    expectProblem(await resetEmail({ ...body(account, account.email), password: 'wrong-password' }), 401, 'invalid-credentials');
    expectErrors(await resetEmail(body(account, account.email)), 400, 'validation-error', ['new_email']);
  });

  it('401 account-inactive for the right password of an inactive account', async () => {
    const pending = await makeAccount({ active: false });
    expectProblem(await resetEmail(body(pending)), 401, 'account-inactive');
    expectProblem(await resetEmail({ ...body(pending), password: 'wrong-password' }), 401, 'invalid-credentials');
  });

  it('a new address that already has an account: 204, only E2', async () => {
    const account = await makeAccount();
    const other = await makeAccount();
    expect((await resetEmail(body(account, other.email))).status).toBe(204);
    await waitForEmail(other.email, { subject: 'You already have an account' });
    await new Promise((r) => setTimeout(r, 1000));
    expect(await emailsTo(account.email)).toEqual([]);
  });
});
