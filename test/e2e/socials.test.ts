/**
 * Social sign-in over HTTP (API.md §4.17) against a real OpenID provider on loopback (the
 * authorization-code flow with PKCE, driven like a browser would), and a fake provider whose
 * token endpoint answers what each test needs (wrong audience, nonce, issuer, signature…).
 */
import { randomBytes, createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { decodeJwt, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashPassword } from '../../shared/auth/passwords.js';
import { accountDeletionPlans, newAccount } from '../../shared/domain/accounts.js';
import { deleteProfilePlan, getProfileOfUser } from '../../shared/db/profiles.js';
import { commit } from '../../shared/db/records.js';
import { socialLinksOfUser } from '../../shared/db/social.js';
import { deleteUserPlan, getUser, getUserByEmail, pendingRegistrations, replaceUserPlan } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { expectErrors, expectJson, expectProblem, send, type Sent } from '../support/contract.js';
import { joinsStoredAnswer, storedKey, tableCalls } from '../support/idempotency.js';
import { emailsTo, emailToken, waitForEmail } from '../support/mail.js';
import { startFakeProvider, startOidcProvider, type FakeProvider, type OidcProvider } from '../support/identity-providers.js';
import { useServer } from '../support/server.js';

const server = useServer();
const calls = tableCalls();
const REDIRECT = 'https://app.example.org/auth/callback';
const OTHER_REDIRECT = 'https://app.example.org/auth/other';
const PASSWORD = 'a long and unusual passphrase';

let idp: OidcProvider;
let fake: FakeProvider;

const path = (provider: string) => `/api/socials/o/${provider}/`;
const tag = () => newId().slice(0, 8).replace(/[^A-Za-z0-9]/g, 'x').toLowerCase();

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  idp = await startOidcProvider([
    { client_id: 'catalogue', client_secret: 'basic-secret', redirect_uris: [REDIRECT, OTHER_REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
    { client_id: 'catalogue-post', client_secret: 'post-secret', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' },
  ]);
  fake = await startFakeProvider('fake-client');
  const secretId = `social-secrets-${randomBytes(4).toString('hex')}`;
  writeFileSync(
    join(inject('dataDir'), 'secrets', `${secretId}.json`),
    JSON.stringify({ testidp: 'basic-secret', 'testidp-post': 'post-secret', fake: 'fake-secret', wrongsecret: 'not-the-secret' }),
  );
  process.env.SOCIAL_SECRETS_ID = secretId;
  process.env.SOCIAL_PROVIDERS = JSON.stringify([
    { name: 'testidp', kind: 'oidc', issuer: idp.issuer, client_id: 'catalogue', redirect_uris: [REDIRECT, OTHER_REDIRECT] },
    { name: 'testidp-post', kind: 'oidc', issuer: idp.issuer, client_id: 'catalogue-post', token_auth: 'client_secret_post', redirect_uris: [REDIRECT], scopes: ['offline_access'] },
    { name: 'wrongsecret', kind: 'oidc', issuer: idp.issuer, client_id: 'catalogue', redirect_uris: [REDIRECT] },
    { name: 'fake', kind: 'oidc', issuer: fake.issuer, client_id: 'fake-client', redirect_uris: [REDIRECT] },
    { name: 'down', kind: 'oidc', issuer: `http://127.0.0.1:${await closedPort()}`, client_id: 'x', redirect_uris: [REDIRECT] },
  ]);
});

afterAll(async () => {
  await idp?.close();
  await fake?.close();
});

async function start(provider: string, redirectUri = REDIRECT): Promise<URL> {
  const res = await send(server, 'GET', `${path(provider)}?redirect_uri=${encodeURIComponent(redirectUri)}`);
  const body = expectJson(res, 200);
  expect(Object.keys(body)).toEqual(['authorization_url']);
  return new URL(body.authorization_url);
}

const finish = (provider: string, body: unknown, query = '') => send(server, 'POST', `${path(provider)}${query}`, { body });

/** The whole flow as `account` (claims set first) at the real provider: start, authorize, finish. */
async function signInWith(provider: string, account: string, claims?: Parameters<OidcProvider['account']>[1]): Promise<Sent> {
  if (claims) idp.account(account, claims);
  idp.signInAs(account);
  const url = await start(provider);
  const back = await idp.authorize(url.href, REDIRECT);
  return finish(provider, { code: back.searchParams.get('code'), state: back.searchParams.get('state') });
}

/** An account made through registration or by an administrator (with a password). */
async function existingAccount(opts: { active: boolean; activatedAt?: string | null }) {
  const email = `exist_${tag()}@example.org`;
  const { user, priv, plans } = newAccount({ email, username: `exist_${tag()}`, passwordHash: await hashPassword(PASSWORD), active: opts.active });
  await commit(...plans);
  if (opts.activatedAt !== undefined && opts.activatedAt !== priv.activated_at) {
    const stored = (await getUser(user.id))!;
    await commit(replaceUserPlan(stored, stored.record, { ...stored.priv, activated_at: opts.activatedAt }));
  }
  return { id: user.id, email, username: user.username };
}

describe('GET /api/socials/o/{provider}/', () => {
  it('returns the authorization URL: code flow, PKCE S256, state and nonce; private, never shared', async () => {
    const res = await send(server, 'GET', `${path('testidp')}?redirect_uri=${encodeURIComponent(REDIRECT)}`);
    const url = new URL(expectJson(res, 200).authorization_url);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(`${url.origin}${url.pathname}`).toBe(`${idp.issuer}/auth`);
    const p = url.searchParams;
    expect(p.get('response_type')).toBe('code');
    expect(p.get('client_id')).toBe('catalogue');
    expect(p.get('redirect_uri')).toBe(REDIRECT);
    expect(p.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
    expect(p.get('code_challenge_method')).toBe('S256');
    expect(p.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // ≥ 128 bits of state: at least 22 base64url characters.
    expect(p.get('state')!.length).toBeGreaterThanOrEqual(22);
    expect(p.get('nonce')!.length).toBeGreaterThanOrEqual(22);
    // Every call starts a new sign-in.
    const again = await start('testidp');
    expect(again.searchParams.get('state')).not.toBe(p.get('state'));
    expect(again.searchParams.get('nonce')).not.toBe(p.get('nonce'));
    // Configured extra scopes are added.
    expect((await start('testidp-post')).searchParams.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'email', 'profile', 'offline_access']));
  });

  it('redirect_uri is required and must be exactly one of the allow-list', async () => {
    expectErrors(await send(server, 'GET', path('testidp')), 400, 'invalid-query', ['redirect_uri']);
    expectErrors(await send(server, 'GET', `${path('testidp')}?redirect_uri=`), 400, 'invalid-query', ['redirect_uri']);
    for (const uri of [`${REDIRECT}/`, `${REDIRECT}?x=1`, 'https://evil.example.org/auth/callback', REDIRECT.toUpperCase(), OTHER_REDIRECT]) {
      const provider = uri === OTHER_REDIRECT ? 'testidp-post' : 'testidp';
      expectErrors(await send(server, 'GET', `${path(provider)}?redirect_uri=${encodeURIComponent(uri)}`), 400, 'invalid-query', ['redirect_uri']);
    }
    // Both URIs of testidp's list are allowed there.
    await start('testidp', OTHER_REDIRECT);
    expectErrors(await send(server, 'GET', `${path('testidp')}?redirect_uri=${encodeURIComponent(REDIRECT)}&fields=authorization_url`), 400, 'invalid-query', ['fields']);
  });

  it('an unknown provider → 404 (after the query checks)', async () => {
    expectProblem(await send(server, 'GET', `${path('nope')}?redirect_uri=${encodeURIComponent(REDIRECT)}`), 404, 'not-found');
    expectProblem(await send(server, 'GET', `${path('no%20pe')}?redirect_uri=${encodeURIComponent(REDIRECT)}`), 404, 'not-found');
    expectProblem(await send(server, 'GET', `${path('TESTIDP')}?redirect_uri=${encodeURIComponent(REDIRECT)}`), 404, 'not-found');
    expectErrors(await send(server, 'GET', `${path('nope')}?redirect_uri=a&redirect_uri=b`), 400, 'invalid-query', ['redirect_uri']);
  });

  it('an unreachable provider → 503 with Retry-After', async () => {
    const res = await send(server, 'GET', `${path('down')}?redirect_uri=${encodeURIComponent(REDIRECT)}`);
    expectProblem(res, 503, 'service-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('ignores the Authorization header', async () => {
    const res = await send(server, 'GET', `${path('testidp')}?redirect_uri=${encodeURIComponent(REDIRECT)}`, { headers: { authorization: 'Bearer nonsense' } });
    expectJson(res, 200);
  });
});

describe('POST /api/socials/o/{provider}/ with a real provider', () => {
  it('creates an active member with a profile from the claims, and signs in again as the same user', async () => {
    const t = tag();
    const email = `Ada.${t}@Example.org`;
    const res = await signInWith('testidp', `acc-${t}`, {
      email,
      email_verified: true,
      given_name: 'Ada',
      family_name: 'Lovelace',
      picture: 'https://img.example.org/ada.png',
      preferred_username: `ada.${t}`,
    });
    const body = expectJson(res, 201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(body).sort()).toEqual(['access', 'refresh', 'user']);
    expect(body.user).toEqual({ id: expect.any(String), username: `ada.${t}`, email: email.toLowerCase() });
    const access = decodeJwt(body.access);
    expect(access).toMatchObject({ sub: body.user.id, token_type: 'access' });
    expect(decodeJwt(body.refresh).fam).toBe(access.fam);
    expect(expectJson(await send(server, 'POST', '/api/tokens/jwt/verify/', { body: { token: body.access } }), 200)).toEqual({});
    expectJson(await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: body.refresh } }), 200);

    const user = (await getUser(body.user.id))!;
    expect(user.record).toMatchObject({ username: `ada.${t}`, email: email.toLowerCase(), role: 'member', is_active: true, is_staff: false });
    expect(user.record.last_login).not.toBeNull();
    expect(user.priv.password_hash).toBeNull();
    expect(user.priv.activated_at).not.toBeNull();
    const profile = (await getProfileOfUser(body.user.id))!;
    expect(profile.record).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace', image: 'https://img.example.org/ada.png', user: { id: body.user.id, username: `ada.${t}` } });
    expect(await socialLinksOfUser(body.user.id)).toEqual([
      expect.objectContaining({ provider: 'testidp', iss: idp.issuer, sub: `acc-${t}`, user_id: body.user.id }),
    ]);
    // No usable password.
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email, password: PASSWORD } }), 401, 'invalid-credentials');

    // Again: the linked account, a new token family, last_login moves — even if the e-mail changed at the provider.
    idp.account(`acc-${t}`, { email: `changed.${t}@example.org`, email_verified: true });
    const again = expectJson(await signInWith('testidp', `acc-${t}`), 201);
    expect(again.user).toEqual(body.user);
    expect(decodeJwt(again.access).fam).not.toBe(access.fam);
    expect((await getUser(body.user.id))!.record.last_login! >= user.record.last_login!).toBe(true);
    expect(await getUserByEmail(`changed.${t}@example.org`)).toBeNull();
  });

  it('with an Idempotency-Key, a finish sent again gets the same tokens (sealed in the table) and signs in nothing more; without it the state is spent', async () => {
    const t = tag();
    idp.account(`idem-${t}`, { email: `idem.${t}@example.org`, email_verified: true });
    idp.signInAs(`idem-${t}`);
    const back = await idp.authorize((await start('testidp')).href, REDIRECT);
    const body = { code: back.searchParams.get('code'), state: back.searchParams.get('state') };
    const key = randomUUID();
    const read = calls.since();
    const first = await send(server, 'POST', path('testidp'), { body, headers: { 'idempotency-key': key } });
    const tokens = expectJson(first, 201);
    // The answer went into the sign-in's own transaction.
    expect(read().filter((c) => c.component === 'socials.finish').filter(joinsStoredAnswer)).toHaveLength(1);
    const again = await send(server, 'POST', path('testidp'), { body, headers: { 'idempotency-key': key } });
    expect(expectJson(again, 201)).toEqual(tokens);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // The table holds the answer only sealed under the key: no token can be read there.
    const stored = (await storedKey({ ip: '127.0.0.1' }, key))!;
    const sealed = Buffer.from(stored.item.sealed as Uint8Array);
    for (const token of [tokens.access, tokens.refresh]) expect(JSON.stringify(stored.item).includes(token) || sealed.includes(token)).toBe(false);
    expect(stored.outcome?.payload).toMatchObject({ reply: { status: 201, body: tokens } });
    // One token family: the refresh token is the one recorded.
    expectJson(await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: tokens.refresh } }), 200);
    // Another key, or none: a new request, and the state is spent.
    expectErrors(await send(server, 'POST', path('testidp'), { body }), 400, 'validation-error', ['state']);
    expectErrors(await send(server, 'POST', path('testidp'), { body, headers: { 'idempotency-key': randomUUID() } }), 400, 'validation-error', ['state']);
  });

  it('client_secret_post clients work too; a plain http or non-https picture is not copied', async () => {
    const t = tag();
    const res = await signInWith('testidp-post', `post-${t}`, { email: `post.${t}@example.org`, email_verified: true, picture: 'http://img.example.org/x.png' });
    const body = expectJson(res, 201);
    expect(body.user.username).toBe(`post.${t}`);
    const profile = (await getProfileOfUser(body.user.id))!;
    expect(profile.record).toMatchObject({ first_name: '', last_name: '', image: null });
  });

  it('links the account with that e-mail (case-insensitively); its password stops working', async () => {
    const existing = await existingAccount({ active: true });
    const t = tag();
    const body = expectJson(await signInWith('testidp', `link-${t}`, { email: existing.email.toUpperCase(), email_verified: true, given_name: 'Not', family_name: 'Copied' }), 201);
    expect(body.user).toEqual({ id: existing.id, username: existing.username, email: existing.email });
    expect(await socialLinksOfUser(existing.id)).toHaveLength(1);
    // §4.17 step 5: password sign-in is refused until a new password is set through reset_password.
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: existing.email, password: PASSWORD } }), 401, 'invalid-credentials');
    // The profile is the account's own; sign-in does not overwrite it.
    expect((await getProfileOfUser(existing.id))!.record.first_name).toBe('');
    // Later sign-ins go through the link.
    expect(expectJson(await signInWith('testidp', `link-${t}`), 201).user.id).toBe(existing.id);
  });

  it('linking an existing account revokes every session, refuses its password until a reset, and sends E10 (§4.17 step 5)', async () => {
    // The attacker registers the victim's address with a password of their choosing; the victim
    // activates it from the E1 they received. The attacker signs in, keeps a session and starts
    // moving the account to an address of theirs.
    const t = tag();
    const victim = `owner_${t}@example.org`;
    const attackerEmail = `attacker_${t}@example.org`;
    const reg = expectJson(await send(server, 'POST', '/api/users/', { body: { email: victim, username: `reg_${t}`, password: PASSWORD, re_password: PASSWORD } }), 201);
    expect((await send(server, 'POST', '/api/users/activation/', { body: emailToken(await waitForEmail(victim, { subject: 'Activate your account' })) })).status).toBe(204);
    const attacker = expectJson(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: PASSWORD } }), 200);
    const attackerAuth = { authorization: `Bearer ${attacker.access}` };
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: attackerAuth }), 200);
    const moving = { current_password: PASSWORD, new_email: attackerEmail, re_new_email: attackerEmail };
    expect((await send(server, 'POST', '/api/users/set_email/', { body: moving, headers: attackerAuth })).status).toBe(204);
    const change = emailToken(await waitForEmail(attackerEmail, { subject: 'Confirm your new email address' }));
    // A reset asked for before the link.
    expect((await send(server, 'POST', '/api/users/reset_password/', { body: { email: victim } })).status).toBe(204);
    const earlierReset = emailToken(await waitForEmail(victim, { subject: 'Reset your password' }));

    // The owner signs in with a provider that asserts the address as verified: the identity is linked.
    const before = Date.now();
    const owner = expectJson(await signInWith('testidp', `hijacked-${t}`, { email: victim, email_verified: true }), 201);
    expect(owner.user).toEqual({ id: reg.id, username: `reg_${t}`, email: victim });

    // Every earlier session ends: the attacker's access token, refresh token (refresh and verify).
    expectProblem(await send(server, 'GET', '/api/users/me/', { headers: attackerAuth }), 401, 'invalid-token');
    expectProblem(await send(server, 'GET', '/api/animes/', { headers: attackerAuth }), 401, 'invalid-token');
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/verify/', { body: { token: attacker.access } }), 401, 'invalid-token');
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/verify/', { body: { token: attacker.refresh } }), 401, 'invalid-token');
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: attacker.refresh } }), 401, 'invalid-token');
    // The password is refused, exactly as a wrong password or an unknown address is (§4.19), here
    // and where `reset_email` checks it.
    const refused = expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: PASSWORD } }), 401, 'invalid-credentials');
    const unknown = expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: `nobody_${t}@example.org`, password: PASSWORD } }), 401, 'invalid-credentials');
    expect({ ...refused, request_id: null }).toEqual({ ...unknown, request_id: null });
    expectProblem(await send(server, 'POST', '/api/users/reset_email/', { body: { email: victim, password: PASSWORD, new_email: attackerEmail, re_new_email: attackerEmail } }), 401, 'invalid-credentials');
    // As after a password change (§6): the e-mail change the attacker started is over (its token
    // is stale, the address stays) and a reset token issued before is stale.
    expectProblem(await send(server, 'POST', '/api/users/reset_email_confirm/', { body: change }), 403, 'stale-token');
    expectProblem(await send(server, 'POST', '/api/users/reset_password_confirm/', { body: { ...earlierReset, new_password: 'another passphrase entirely', re_new_password: 'another passphrase entirely' } }), 403, 'stale-token');
    expect((await getUser(reg.id))!.record.email).toBe(victim);
    expect((await getUser(reg.id))!.priv.pending_email).toBeUndefined();

    // The owner is signed in: the new pair works, refresh included.
    const ownerAuth = { authorization: `Bearer ${owner.access}` };
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: ownerAuth }), 200);
    const rotated = expectJson(await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: owner.refresh } }), 200);
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${rotated.access}` } }), 200);

    // E10 tells the owner: the provider, the time (UTC), sessions signed out, a new password needed, advice.
    const e10 = await waitForEmail(victim, { subject: 'A sign-in method was added' });
    expect(e10.text).toContain('testidp');
    const at = /(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) UTC/.exec(e10.text)?.[1];
    expect(at).toBeDefined();
    expect(Date.parse(`${at!.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(e10.text).toContain('signed out');
    expect(e10.text).toContain('Forgot password');
    expect(e10.text).toContain('If this was not you');
    expect(e10.text).not.toMatch(/^token: /m);
    expect(e10.html).toContain('testidp');

    // Signing in again through the link is an ordinary sign-in: nothing is revoked, no second E10.
    expectJson(await signInWith('testidp', `hijacked-${t}`), 201);
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${rotated.access}` } }), 200);

    // reset_password then works: a new password, and password sign-in with it.
    const NEW = 'the owner’s own new passphrase';
    expect((await send(server, 'POST', '/api/users/reset_password/', { body: { email: victim } })).status).toBe(204);
    const reset = emailToken(await waitForEmail(victim, { subject: 'Reset your password', count: 2 }));
    expect((await send(server, 'POST', '/api/users/reset_password_confirm/', { body: { ...reset, new_password: NEW, re_new_password: NEW } })).status).toBe(204);
    await waitForEmail(victim, { subject: 'Your password was changed' });
    expectJson(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: NEW } }), 200);
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: PASSWORD } }), 401, 'invalid-credentials');
    expect(await emailsTo(victim, { subject: 'A sign-in method was added' })).toHaveLength(1);
  });

  it('each new identity linked to an account revokes its sessions and sends E10 naming the provider', async () => {
    const t = tag();
    const first = expectJson(await signInWith('testidp', `multi-${t}`, { email: `multi.${t}@example.org`, email_verified: true }), 201);
    // A second provider asserting the same address: linked to the same account.
    idp.signInAs(`multi-${t}`);
    const back = await idp.authorize((await start('testidp-post')).href, REDIRECT);
    const second = expectJson(await finish('testidp-post', { code: back.searchParams.get('code'), state: back.searchParams.get('state') }), 201);
    expect(second.user.id).toBe(first.user.id);
    expectProblem(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${first.access}` } }), 401, 'invalid-token');
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${second.access}` } }), 200);
    const e10 = await waitForEmail(`multi.${t}@example.org`, { subject: 'A sign-in method was added' });
    expect(e10.text).toContain('testidp-post');
    // Creating the account was no link to an existing one: that one E10 only.
    expect(await emailsTo(`multi.${t}@example.org`, { subject: 'A sign-in method was added' })).toHaveLength(1);
  });

  it('pre-hijacking: a registration the owner never activated is replaced, and nothing the registrant chose keeps working', async () => {
    // 1. The attacker registers the victim's address with a password of their choosing.
    const t = tag();
    const victim = `victim_${t}@example.org`;
    const reg = expectJson(
      await send(server, 'POST', '/api/users/', { body: { email: victim, username: `squat_${t}`, password: PASSWORD, re_password: PASSWORD } }),
      201,
    );
    const activation = emailToken(await waitForEmail(victim, { subject: 'Activate your account' }));
    expect(activation.uid).toBe(reg.id);
    const isPending = async (id: string) => (await pendingRegistrations('9999', 1000)).entries.some((e) => e.id === id);
    expect(await isPending(reg.id)).toBe(true);
    // The attacker cannot sign in yet (inactive).
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: PASSWORD } }), 401, 'account-inactive');

    // 2. The owner signs in with a provider that asserts the address as verified.
    const body = expectJson(await signInWith('testidp', `owner-${t}`, { email: victim, email_verified: true, preferred_username: `owner_${t}` }), 201);
    expect(body.user.id).not.toBe(reg.id);
    expect(body.user).toEqual({ id: body.user.id, username: `owner_${t}`, email: victim });
    expect(await getUser(reg.id)).toBeNull();
    expect(await isPending(reg.id)).toBe(false);
    const owner = (await getUser(body.user.id))!;
    expect(owner.record.is_active).toBe(true);
    expect(owner.priv.password_hash).toBeNull();
    expect((await getProfileOfUser(body.user.id))!.record.user).toEqual({ id: body.user.id, username: `owner_${t}` });
    expect(await getProfileOfUser(reg.id)).toBeNull();

    // 3. Nothing the registrant chose works: the password, the username, the activation link.
    expectProblem(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: victim, password: PASSWORD } }), 401, 'invalid-credentials');
    expectErrors(await send(server, 'POST', '/api/users/activation/', { body: activation }), 400, 'validation-error', ['uid']);
    expectJson(await send(server, 'GET', `/api/users/owner_${t}/about/`), 200);
    expectProblem(await send(server, 'GET', `/api/users/squat_${t}/about/`), 404, 'not-found');
    // The owner's tokens work; the registrant's username is free again.
    expectJson(await send(server, 'GET', '/api/users/me/', { headers: { authorization: `Bearer ${body.access}` } }), 200);
    expect(await getUserByEmail(victim)).toMatchObject({ record: { id: body.user.id } });
  });

  it('a deactivated account → 401 account-inactive, and nothing is linked', async () => {
    const gone = await existingAccount({ active: false, activatedAt: '2025-01-01T00:00:00.000Z' });
    const t = tag();
    expectProblem(await signInWith('testidp', `deact-${t}`, { email: gone.email, email_verified: true }), 401, 'account-inactive');
    expect(await socialLinksOfUser(gone.id)).toEqual([]);
    expect((await getUser(gone.id))!.record.is_active).toBe(false);

    // Deactivated after linking: the same.
    const t2 = tag();
    const linked = expectJson(await signInWith('testidp', `deact2-${t2}`, { email: `deact2.${t2}@example.org`, email_verified: true }), 201);
    const stored = (await getUser(linked.user.id))!;
    await commit(replaceUserPlan(stored, { ...stored.record, is_active: false }));
    expectProblem(await signInWith('testidp', `deact2-${t2}`), 401, 'account-inactive');
  });

  it('an unverified or missing e-mail → 400 errors.email, and nothing is created', async () => {
    const t = tag();
    expectErrors(await signInWith('testidp', `unverified-${t}`, { email: `unv.${t}@example.org`, email_verified: false }), 400, 'validation-error', ['email']);
    expect(await getUserByEmail(`unv.${t}@example.org`)).toBeNull();
    expectErrors(await signInWith('testidp', `noemail-${t}`, { given_name: 'Nobody' }), 400, 'validation-error', ['email']);
  });

  it('usernames are made valid and unique', async () => {
    const t = tag();
    const first = expectJson(await signInWith('testidp', `u1-${t}`, { email: `same.${t}@example.org`, email_verified: true, preferred_username: `Zoë Ünïcode ${t}` }), 201);
    expect(first.user.username).toBe(`Zoe_Unicode_${t}`);
    // Taken (in another case): the e-mail's local part instead.
    const second = expectJson(await signInWith('testidp', `u2-${t}`, { email: `other.${t}@example.org`, email_verified: true, preferred_username: `zoe_unicode_${t}` }), 201);
    expect(second.user.username).toBe(`other.${t}`);
    // Both taken: a suffix.
    const third = expectJson(await signInWith('testidp', `u3-${t}`, { email: `Other.${t}@example.net`, email_verified: true, preferred_username: `ZOE_UNICODE_${t}` }), 201);
    expect(third.user.username).toMatch(new RegExp(`^ZOE_UNICODE_${t}_\\d+$`));
    // Reserved and too short.
    const reserved = expectJson(await signInWith('testidp', `u4-${t}`, { email: `me@${t}.example.org`, email_verified: true, preferred_username: 'admin' }), 201);
    expect(reserved.user.username).toMatch(/^admin_user(_\d+)?$/);
    const short = expectJson(await signInWith('testidp', `u5-${t}`, { email: `x@${t}.example.org`, email_verified: true }), 201);
    expect(short.user.username).toMatch(/^x_user(_\d+)?$/);
  });

  it('account deletion removes the links; a link left behind by a deleted account is replaced', async () => {
    const t = tag();
    const first = expectJson(await signInWith('testidp', `del-${t}`, { email: `del.${t}@example.org`, email_verified: true }), 201);
    await commit(...(await accountDeletionPlans((await getUser(first.user.id))!)));
    expect(await socialLinksOfUser(first.user.id)).toEqual([]);
    const second = expectJson(await signInWith('testidp', `del-${t}`), 201);
    expect(second.user.id).not.toBe(first.user.id);
    expect(second.user.username).toBe(first.user.username);

    // Only the user record goes (a link left behind): the next sign-in makes a new account and moves the link.
    const stored = (await getUser(second.user.id))!;
    await commit(deleteUserPlan(stored), deleteProfilePlan((await getProfileOfUser(second.user.id))!));
    const third = expectJson(await signInWith('testidp', `del-${t}`), 201);
    expect(third.user.id).not.toBe(second.user.id);
    expect(await socialLinksOfUser(second.user.id)).toEqual([]);
    expect(await socialLinksOfUser(third.user.id)).toEqual([expect.objectContaining({ sub: `del-${t}`, user_id: third.user.id })]);
  });

  it('older clients send code and state as query parameters', async () => {
    const t = tag();
    idp.account(`query-${t}`, { email: `query.${t}@example.org`, email_verified: true });
    idp.signInAs(`query-${t}`);
    const back = await idp.authorize((await start('testidp')).href, REDIRECT);
    const query = `?code=${encodeURIComponent(back.searchParams.get('code')!)}&state=${encodeURIComponent(back.searchParams.get('state')!)}`;
    expect(expectJson(await send(server, 'POST', `${path('testidp')}${query}`), 201).user.email).toBe(`query.${t}@example.org`);
  });

  it('a state is used once, whatever the outcome; unknown or another provider’s state → 400 errors.state', async () => {
    const t = tag();
    idp.account(`replay-${t}`, { email: `replay.${t}@example.org`, email_verified: true });
    idp.signInAs(`replay-${t}`);
    const back = await idp.authorize((await start('testidp')).href, REDIRECT);
    const state = back.searchParams.get('state')!;
    const code = back.searchParams.get('code')!;
    // The first attempt fails (a wrong code) …
    expectErrors(await finish('testidp', { code: 'not-the-code', state }), 400, 'validation-error', ['code']);
    // … and the state is gone: the right code no longer helps.
    expectErrors(await finish('testidp', { code, state }), 400, 'validation-error', ['state']);

    // A success consumes it too.
    idp.signInAs(`replay-${t}`);
    const ok = await idp.authorize((await start('testidp')).href, REDIRECT);
    const okBody = { code: ok.searchParams.get('code'), state: ok.searchParams.get('state') };
    expectJson(await finish('testidp', okBody), 201);
    expectErrors(await finish('testidp', okBody), 400, 'validation-error', ['state']);

    expectErrors(await finish('testidp', { code, state: randomBytes(32).toString('base64url') }), 400, 'validation-error', ['state']);
    expectErrors(await finish('testidp', { code, state: 'x'.repeat(5000) }), 400, 'validation-error', ['state']);
    // Issued for testidp, presented to testidp-post: refused (and consumed).
    idp.signInAs(`replay-${t}`);
    const cross = await idp.authorize((await start('testidp')).href, REDIRECT);
    const crossBody = { code: cross.searchParams.get('code'), state: cross.searchParams.get('state') };
    expectErrors(await finish('testidp-post', crossBody), 400, 'validation-error', ['state']);
    expectErrors(await finish('testidp', crossBody), 400, 'validation-error', ['state']);
  });

  it('client credentials the provider refuses are a server fault (500), not the caller’s', async () => {
    idp.account('wrongsecret', { email: 'ws@example.org', email_verified: true });
    idp.signInAs('wrongsecret');
    const back = await idp.authorize((await start('wrongsecret')).href, REDIRECT);
    expectProblem(await finish('wrongsecret', { code: back.searchParams.get('code'), state: back.searchParams.get('state') }), 500, 'internal-error');
  });
});

describe('POST /api/socials/o/{provider}/: request checks', () => {
  it('code and state: required strings, in the body or the query, not both ways', async () => {
    expectErrors(await finish('testidp', {}), 400, 'validation-error', ['code', 'state']);
    expectErrors(await finish('testidp', { code: 'c' }), 400, 'validation-error', ['state']);
    expectErrors(await finish('testidp', { code: 1, state: ['s'] }), 400, 'validation-error', ['code', 'state']);
    expectErrors(await finish('testidp', { code: '', state: '  ' }), 400, 'validation-error', ['code', 'state']);
    expectErrors(await finish('testidp', { code: 'c', state: 's', redirect_uri: REDIRECT }), 400, 'validation-error', ['redirect_uri']);
    expectErrors(await finish('testidp', { code: 'c', state: 's' }, '?code=c&state=s'), 400, 'validation-error', ['non_field_errors']);
    expectErrors(await finish('testidp', undefined, '?code=c'), 400, 'invalid-query', ['state']);
    expectErrors(await finish('testidp', undefined, '?state=s'), 400, 'invalid-query', ['code']);
    expectErrors(await finish('testidp', undefined, '?code=c&state=s&x=1'), 400, 'invalid-query', ['x']);
    expectProblem(await send(server, 'POST', path('testidp'), { body: '{"code":' }), 400, 'malformed-request');
  });

  it('an unknown provider → 404 (after the query checks, before the body)', async () => {
    expectProblem(await finish('nope', { code: 'c', state: 's' }), 404, 'not-found');
    expectProblem(await finish('nope', {}), 404, 'not-found');
    expectErrors(await finish('nope', undefined, '?code=c'), 400, 'invalid-query', ['state']);
  });

  it('ignores the Authorization header', async () => {
    const res = await send(server, 'POST', path('testidp'), { body: { code: 'c', state: 'unknown-state-value-0123' }, headers: { authorization: 'Bearer nonsense' } });
    expectErrors(res, 400, 'validation-error', ['state']);
  });
});

describe('POST /api/socials/o/{provider}/: what the provider answers', () => {
  /** Starts a sign-in at the fake provider: its state and nonce. */
  async function startFake() {
    const url = await start('fake');
    return { state: url.searchParams.get('state')!, nonce: url.searchParams.get('nonce')!, challenge: url.searchParams.get('code_challenge')! };
  }
  const claims = (nonce: string, over: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: fake.issuer, aud: 'fake-client', sub: `fake-${tag()}`, iat: now, exp: now + 300, nonce, email: `fake.${tag()}@example.org`, email_verified: true, ...over };
  };
  const answering = (idToken: string) => {
    fake.answer = () => ({ status: 200, body: { access_token: 'at', token_type: 'Bearer', id_token: idToken } });
  };

  it('accepts an ID token that carries the claims itself; sends the PKCE verifier, redirect URI and client_secret_post', async () => {
    const s = await startFake();
    const c = claims(s.nonce, { given_name: 'Fay', aud: ['fake-client', 'other-client'], azp: 'fake-client' });
    answering(await fake.idToken(c));
    const body = expectJson(await finish('fake', { code: 'the-code', state: s.state }), 201);
    expect(body.user.email).toBe(c.email);
    const request = fake.requests.at(-1)!;
    expect(Object.fromEntries(request.form)).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: REDIRECT,
      code_verifier: expect.any(String),
      client_id: 'fake-client',
      client_secret: 'fake-secret',
    });
    expect(createHash('sha256').update(request.form.get('code_verifier')!).digest('base64url')).toBe(s.challenge);
    expect(request.authorization).toBeUndefined();
  });

  it('refuses ID tokens that are not valid for this client and sign-in → 400', async () => {
    const other = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, (nonce: string) => Promise<string>][] = [
      ['another audience', (n) => fake.idToken(claims(n, { aud: 'other-client' }))],
      ['several audiences, azp another client', (n) => fake.idToken(claims(n, { aud: ['fake-client', 'other-client'], azp: 'other-client' }))],
      ['another issuer', (n) => fake.idToken(claims(n, { iss: 'https://elsewhere.example.org' }))],
      ['another nonce', () => fake.idToken(claims('not-the-nonce'))],
      ['no nonce', (n) => fake.idToken(claims(n, { nonce: undefined }))],
      ['expired', (n) => fake.idToken(claims(n, { iat: now - 3600, exp: now - 60 }))],
      ['signed with another key', (n) => fake.idToken(claims(n), { key: other.privateKey })],
      ['signed with another key and kid', (n) => fake.idToken(claims(n), { key: other.privateKey, kid: 'other' })],
      ['HS256 with a shared secret', (n) => fake.idToken(claims(n), { alg: 'HS256', key: new TextEncoder().encode('fake-secret-fake-secret-fake-secret') })],
      ['alg none', async (n) => `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims(n))).toString('base64url')}.`],
      ['not a JWT', async () => 'garbage'],
    ];
    for (const [name, token] of cases) {
      const s = await startFake();
      answering(await token(s.nonce));
      const res = await finish('fake', { code: 'c', state: s.state });
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expectErrors(res, 400, 'validation-error', ['code']);
    }
    // No ID token at all.
    const s = await startFake();
    fake.answer = () => ({ status: 200, body: { access_token: 'at', token_type: 'Bearer' } });
    expectErrors(await finish('fake', { code: 'c', state: s.state }), 400, 'validation-error', ['code']);
  });

  it('email_verified must be true', async () => {
    for (const over of [{ email_verified: false }, { email_verified: undefined }, { email_verified: 'false' }, { email: 'not an address' }]) {
      const s = await startFake();
      answering(await fake.idToken(claims(s.nonce, over)));
      expectErrors(await finish('fake', { code: 'c', state: s.state }), 400, 'validation-error', ['email']);
    }
  });

  it('a rejected code → 400 errors.code; an unreachable or failing provider → 503', async () => {
    let s = await startFake();
    fake.answer = () => ({ status: 400, body: { error: 'invalid_grant', error_description: 'code expired' } });
    expectErrors(await finish('fake', { code: 'c', state: s.state }), 400, 'validation-error', ['code']);

    for (const answer of ['drop', { status: 502, body: { error: 'bad gateway' } }, { status: 503, body: {} }] as const) {
      s = await startFake();
      fake.answer = () => answer;
      const res = await finish('fake', { code: 'c', state: s.state });
      expectProblem(res, 503, 'service-unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      // The state was consumed all the same.
      answering(await fake.idToken(claims(s.nonce)));
      expectErrors(await finish('fake', { code: 'c', state: s.state }), 400, 'validation-error', ['state']);
    }
  });
});
