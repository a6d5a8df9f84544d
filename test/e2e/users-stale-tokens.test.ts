/**
 * API.md §6 "Emailed tokens", row by row: each token is refused with `403 stale-token` after its
 * lifetime and after every event its row names ("Genuine but stale when …"), and deactivation
 * makes every e-mailed token stale; a token nothing has happened to still works (the control
 * of each row). The tokens are issued as the deliverer issues them (a grant whose nonce the
 * account keeps, shared/auth/email-tokens.ts), backdated for the lifetimes; the events go
 * through the API. (The social sign-in that links an account is such a password change too:
 * socials.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { issueEmailToken, LIFETIME_SECONDS, type Purpose } from '../../shared/auth/email-tokens.js';
import { newId } from '../../shared/ids.js';
import { addressOf, makeAccount, PASSWORD, uniqueUsername, type Account } from '../support/accounts.js';
import { expectJson, expectProblem, send, type Sent } from '../support/contract.js';
import { emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();
const NEW_PASSWORD = 'Quince-Harbour-58';

type Token = { uid: string; token: string };

/** An account holding a current token of each of `purposes`, issued `ageSeconds` ago (an activation token: a registration never activated). */
async function withTokens(purposes: Purpose[], ageSeconds = 0): Promise<{ account: Account; tokens: Record<Purpose, Token> }> {
  const id = newId();
  const issued = new Date(Date.now() - ageSeconds * 1000);
  const tokens = {} as Record<Purpose, Token>;
  const nonces: Partial<Record<Purpose, string>> = {};
  for (const purpose of purposes) {
    const { token, nonce } = await issueEmailToken(id, purpose, issued);
    tokens[purpose] = { uid: id, token };
    nonces[purpose] = nonce;
  }
  const pending = purposes.includes('email_change') ? { pending_email: addressOf(uniqueUsername('moved')) } : {};
  const account = await makeAccount({ id, active: !purposes.includes('activation'), priv: { nonces, ...pending } });
  return { account, tokens };
}

const post = (path: string, body: unknown, headers?: Record<string, string>) => send(server, 'POST', path, { body, headers });
/** Uses a token of `purpose` (for a reset, with a new password). */
const use = (purpose: Purpose, t: Token): Promise<Sent> =>
  purpose === 'activation'
    ? post('/api/users/activation/', t)
    : purpose === 'password_reset'
      ? post('/api/users/reset_password_confirm/', { ...t, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD })
      : post('/api/users/reset_email_confirm/', t);
const stale = async (purpose: Purpose, t: Token) => expectProblem(await use(purpose, t), 403, 'stale-token');
const works = async (purpose: Purpose, t: Token) => {
  const res = await use(purpose, t);
  expect(res.status, res.text).toBe(204);
};

let adminAuth: Record<string, string>;
const admin = async (id: string, body: Record<string, unknown>) => {
  adminAuth ??= (await makeAccount({ role: 'administrator' })).auth;
  expectJson(await send(server, 'PATCH', `/api/users/${id}/`, { body, headers: adminAuth }), 200);
};

describe('every token: expired after its lifetime (24 h, 1 h, 24 h), single use', () => {
  for (const purpose of ['activation', 'password_reset', 'email_change'] as const) {
    it(`${purpose}: stale a second past ${LIFETIME_SECONDS[purpose] / 3600} h, genuine a minute before; then used`, async () => {
      const old = await withTokens([purpose], LIFETIME_SECONDS[purpose] + 1);
      await stale(purpose, old.tokens[purpose]);
      const young = await withTokens([purpose], LIFETIME_SECONDS[purpose] - 60);
      await works(purpose, young.tokens[purpose]);
      await stale(purpose, young.tokens[purpose]);
    });
  }
});

describe('activation (E1): a newer E1 was sent; the account is already active', () => {
  it('resend_activation supersedes it', async () => {
    const { account, tokens } = await withTokens(['activation']);
    expect((await post('/api/users/resend_activation/', { email: account.email })).status).toBe(204);
    const newer = emailToken(await waitForEmail(account.email, { subject: 'Activate your account' }));
    await stale('activation', tokens.activation);
    await works('activation', newer);
  });

  it('an administrator activated the account', async () => {
    const { account, tokens } = await withTokens(['activation']);
    await admin(account.id, { is_active: true });
    await stale('activation', tokens.activation);
  });
});

describe('password reset (E4): a newer E4; the password or the e-mail changed since; deactivation', () => {
  it('a newer E4 supersedes it', async () => {
    const { account, tokens } = await withTokens(['password_reset']);
    expect((await post('/api/users/reset_password/', { email: account.email })).status).toBe(204);
    const newer = emailToken(await waitForEmail(account.email, { subject: 'Reset your password' }));
    await stale('password_reset', tokens.password_reset);
    await works('password_reset', newer);
  });

  it('the password changed (set_password)', async () => {
    const { account, tokens } = await withTokens(['password_reset']);
    expect((await post('/api/users/set_password/', { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }, account.auth)).status).toBe(204);
    await stale('password_reset', tokens.password_reset);
  });

  it('the e-mail changed (reset_email_confirm, or an administrator)', async () => {
    const confirmed = await withTokens(['password_reset', 'email_change']);
    await works('email_change', confirmed.tokens.email_change);
    await stale('password_reset', confirmed.tokens.password_reset);

    const byAdmin = await withTokens(['password_reset']);
    await admin(byAdmin.account.id, { email: addressOf(uniqueUsername('set')) });
    await stale('password_reset', byAdmin.tokens.password_reset);
  });

  it('the account was deactivated (and stays stale once active again)', async () => {
    const { account, tokens } = await withTokens(['password_reset']);
    await admin(account.id, { is_active: false });
    await admin(account.id, { is_active: true });
    await stale('password_reset', tokens.password_reset);
  });
});

describe('e-mail change (E6): a newer change; the e-mail or the password changed since; deactivation', () => {
  it('a newer change supersedes it', async () => {
    const { account, tokens } = await withTokens(['email_change']);
    const next = addressOf(uniqueUsername('next'));
    expect((await post('/api/users/set_email/', { current_password: PASSWORD, new_email: next, re_new_email: next }, account.auth)).status).toBe(204);
    const newer = emailToken(await waitForEmail(next, { subject: 'Confirm your new email address' }));
    await stale('email_change', tokens.email_change);
    await works('email_change', newer);
  });

  it('the e-mail changed (an administrator)', async () => {
    const { account, tokens } = await withTokens(['email_change']);
    await admin(account.id, { email: addressOf(uniqueUsername('set')) });
    await stale('email_change', tokens.email_change);
  });

  it('the password changed (set_password, or reset_password_confirm)', async () => {
    const set = await withTokens(['email_change']);
    expect((await post('/api/users/set_password/', { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }, set.account.auth)).status).toBe(204);
    await stale('email_change', set.tokens.email_change);

    const reset = await withTokens(['password_reset', 'email_change']);
    await works('password_reset', reset.tokens.password_reset);
    await stale('email_change', reset.tokens.email_change);
  });

  it('the account was deactivated (and stays stale once active again)', async () => {
    const { account, tokens } = await withTokens(['email_change']);
    await admin(account.id, { is_active: false });
    await admin(account.id, { is_active: true });
    await stale('email_change', tokens.email_change);
  });
});
