/**
 * What each function does to the table, against what its role is granted: per key pattern
 * (`dynamodb:LeadingKeys`), the actions (infra/aws/access.ts; docs/decisions.md 67, G1–G3).
 * DynamoDB Local does not enforce IAM, so test/support/key-trace.ts records the action and
 * partition key of every item a function names while it runs here, and every test file fails on
 * one its role would refuse (test/support/setup.ts). This file drives representative requests of
 * every route group — taxonomy CRUD signed in and anonymous, characters and persons, reviews and
 * list items, the account flows with their e-mails, profiles, tokens, social sign-in — and checks
 * that the trace saw them, so the check cannot pass by recording nothing; that the token checks
 * of public routes, the authorizer, refresh and verify read auth states, never user records or
 * the claims that carry private attributes; and, for the functions it drives through every path,
 * that no grant went unused.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { addressOf, makeAccount, PASSWORD, signedIn, uniqueUsername, type Account } from '../support/accounts.js';
import { create, expectJson, kind, minimal, send, uniqueName } from '../support/contract.js';
import { startFakeProvider, type FakeProvider } from '../support/identity-providers.js';
import { keyTrace, refusal, unusedGrants, type Touch } from '../support/key-trace.js';
import { emailToken, useServer, waitForEmail } from '../support/server.js';

const server = useServer();
const trace = keyTrace();
const REDIRECT = 'https://app.example.org/auth/callback';

let fake: FakeProvider;
let admin: Account;
let contributor: Account;
let member: Account;

beforeAll(async () => {
  fake = await startFakeProvider('fake-client');
  const secretId = `social-secrets-${randomBytes(4).toString('hex')}`;
  writeFileSync(join(inject('dataDir'), 'secrets', `${secretId}.json`), JSON.stringify({ fake: 'fake-secret' }));
  process.env.SOCIAL_SECRETS_ID = secretId;
  process.env.SOCIAL_PROVIDERS = JSON.stringify([{ name: 'fake', kind: 'oidc', issuer: fake.issuer, client_id: 'fake-client', redirect_uris: [REDIRECT] }]);
  [admin, contributor, member] = await Promise.all([makeAccount({ role: 'administrator' }), makeAccount({ role: 'contributor' }), makeAccount()]);
});
afterAll(async () => {
  await fake?.close();
});

/** What the functions touched while `fn` ran. */
async function touching(fn: () => Promise<unknown>): Promise<Touch[]> {
  const from = trace.touches.length;
  await fn();
  return trace.touches.slice(from);
}

const keysOf = (touches: Touch[], component: string) => touches.filter((t) => t.component === component).map((t) => t.pk);

/** Runs `fn` with the specific rate limits on, so the limited routes count their requests (their grant on the counters is used). */
async function withLimits<T>(fn: () => Promise<T>): Promise<T> {
  process.env.RATE_LIMITS = 'on';
  try {
    return await fn();
  } finally {
    process.env.RATE_LIMITS = 'off';
  }
}

/** The grants of `components` that this file's requests never needed, as `component action pattern`. */
const unused = (components: string[]) => unusedGrants(trace.used(), components).map((g) => `${g.component} ${g.action} ${g.pattern}`);
/** A user record, an e-mail claim (it carries the password hash) or a pending entry. */
const PRIVATE = /^USER#(?!U#username#|O#|N$)/;

describe('every route group', () => {
  it('taxonomy CRUD: the resource’s items; signed-in public reads add the caller’s auth state', async () => {
    const k = kind('genres');
    const seen = await touching(() =>
      withLimits(async () => {
        // With an Idempotency-Key (API.md §8.7): the claim, and the key given back after a 409.
        const genre = await create(server, k, { ...contributor.auth, 'idempotency-key': randomUUID() }, minimal(k, uniqueName('Scope')));
        expect((await send(server, 'POST', '/api/genres/', { body: minimal(k, genre.name), headers: { ...contributor.auth, 'idempotency-key': randomUUID() } })).status).toBe(409);
        expectJson(await send(server, 'GET', '/api/genres/'), 200);
        expectJson(await send(server, 'GET', '/api/genres/', { headers: member.auth }), 200);
        expectJson(await send(server, 'GET', `/api/genres/${genre.id}/`), 200);
        expectJson(await send(server, 'GET', `/api/genres/${genre.id}/`, { headers: member.auth }), 200);
        // A rename moves the name claim and the ordering entries.
        expectJson(await send(server, 'PATCH', `/api/genres/${genre.id}/`, { body: { name: uniqueName('Renamed') }, headers: contributor.auth }), 200);
        expect((await send(server, 'DELETE', `/api/genres/${genre.id}/`, { headers: contributor.auth })).status).toBe(204);
        // An explicit genre is named by the tombstone shards (API.md §8.3): its creation and a PATCH of the flag write them.
        const explicit = await create(server, k, contributor.auth, { ...minimal(k, uniqueName('Explicit')), explicit: true });
        expectJson(await send(server, 'PATCH', `/api/genres/${explicit.id}/`, { body: { explicit: false }, headers: contributor.auth }), 200);
      }),
    );
    for (const name of ['genres.create', 'genres.list', 'genres.get', 'genres.patch', 'genres.delete']) {
      expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
      // A deletion also marks the genre deleted for the titles that embed it (tombstones.ts), and
      // a write of an explicit genre names it there (§8.3). The writes count the caller's requests
      // (RATE#…, the catalogue write policy), put their change-feed change (FEED#P, §8.5), and the
      // creation claims its Idempotency-Key (IDEM#…, §8.7).
      const shards = ['genres.delete', 'genres.create', 'genres.patch'].includes(name);
      const keyed = name === 'genres.create';
      expect(
        keysOf(seen, name).every((pk) => pk!.startsWith('GENRE#') || pk!.startsWith('RATE#') || pk === `AUTH#${member.id}` || (shards && (pk === 'DELETED' || pk === 'FEED#P')) || (keyed && pk!.startsWith('IDEM#'))),
        name,
      ).toBe(true);
    }
    expect(keysOf(seen, 'genres.get')).toContain(`AUTH#${member.id}`);
    expect(keysOf(seen, 'authorizer')).toEqual(Array.from({ length: 6 }, () => `AUTH#${contributor.id}`));
    // Every grant of these functions was needed (the writes also count the catalogue write policy).
    expect(unused(['genres.create', 'genres.list', 'genres.get', 'genres.patch', 'genres.delete'])).toEqual([]);
  });

  it('reviews and list items: a title\'s record is read, never put or deleted; list items update its counters and put or delete the posting of who lists it', async () => {
    const anime = expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Scope') }, headers: contributor.auth }), 201);
    const reviews = `/api/animes/${anime.id}/reviews/`;
    const seen = await touching(async () => {
      const review = expectJson(await send(server, 'POST', `${reviews}create/`, { body: { rating: 8, comment: 'A fine series with a good ending.' }, headers: member.auth }), 201);
      expectJson(await send(server, 'PATCH', `${reviews}${review.id}/`, { body: { helpful: true }, headers: contributor.auth }), 200);
      expect((await send(server, 'DELETE', `${reviews}${review.id}/`, { headers: member.auth })).status).toBe(204);
      const item = expectJson(await send(server, 'POST', '/api/playlists/animelist/animes/', { body: { anime_id: anime.id, status: 'watching', score: 7 }, headers: member.auth }), 201);
      expectJson(await send(server, 'PATCH', `/api/playlists/animelist/animes/${item.id}/`, { body: { score: 9, is_favorite: true }, headers: member.auth }), 200);
      expect((await send(server, 'DELETE', `/api/playlists/animelist/animes/${item.id}/`, { headers: member.auth })).status).toBe(204);
    });
    const on = (prefix: string, pk: RegExp) => [...new Set(seen.filter((t) => t.component.startsWith(prefix) && pk.test(t.pk ?? '')).map((t) => t.action))].sort();
    const record = new RegExp(`^ANIME#${anime.id}$`);
    expect(on('reviews.', record)).toEqual(['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem']);
    expect(on('playlists.', record)).toEqual(['dynamodb:BatchGetItem', 'dynamodb:UpdateItem']);
    expect(on('playlists.', new RegExp(`^ANIME#${anime.id}#L$`))).toEqual(['dynamodb:DeleteItem', 'dynamodb:PutItem']);
    for (const name of ['reviews.anime-create', 'reviews.anime-patch', 'reviews.anime-delete', 'playlists.animelist-add', 'playlists.animelist-item-patch', 'playlists.animelist-item-delete']) {
      expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
    }
    // What their roles would refuse, were the code to try.
    expect(refusal({ component: 'reviews.anime-create', action: 'dynamodb:PutItem', pk: `ANIME#${anime.id}` })).toMatch(/PutItem is not granted on ANIME#\* \(only BatchGetItem, ConditionCheckItem\)/);
    expect(refusal({ component: 'playlists.animelist-add', action: 'dynamodb:DeleteItem', pk: `ANIME#${anime.id}` })).toMatch(/not granted on ANIME#\*/);
    expect(refusal({ component: 'playlists.animelist-add', action: 'dynamodb:PutItem', pk: `ANIME#${anime.id}#L` })).toBeNull();
  });

  it('characters and persons: their own items only (records, pictures, index); signed-in public reads add the caller’s auth state', async () => {
    const groups = [
      ['characters', 'CHARACTER#', {}, 'q=scope'],
      ['persons', 'PERSON#', { pictures: [{ url: 'https://img.example.org/scope.png' }] }, 'category=other&q=scope'],
    ] as const;
    const seen = await touching(async () => {
      for (const [segment, , extra, query] of groups) {
        const record = expectJson(await send(server, 'POST', `/api/${segment}/`, { body: { name: uniqueName('Scope'), ...extra }, headers: contributor.auth }), 201);
        expectJson(await send(server, 'GET', `/api/${segment}/?${query}`, { headers: member.auth }), 200);
        expectJson(await send(server, 'GET', `/api/${segment}/${record.id}/`, { headers: member.auth }), 200);
        expectJson(await send(server, 'PUT', `/api/${segment}/${record.id}/`, { body: { name: uniqueName('Scope') }, headers: contributor.auth }), 200);
        expectJson(await send(server, 'PATCH', `/api/${segment}/${record.id}/`, { body: { about: 'x' }, headers: contributor.auth }), 200);
        expect((await send(server, 'DELETE', `/api/${segment}/${record.id}/`, { headers: contributor.auth })).status).toBe(204);
      }
    });
    for (const [segment, prefix] of groups) {
      for (const op of ['create', 'list', 'get', 'put', 'patch', 'delete']) {
        const name = `${segment}.${op}`;
        expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
        // Details and writes also read the tombstones (references to records deleted since); writes put their change-feed change (§8.5).
        const write = ['create', 'put', 'patch', 'delete'].includes(op);
        expect(keysOf(seen, name).every((pk) => pk!.startsWith(prefix) || pk === `AUTH#${member.id}` || pk === 'DELETED' || (write && pk === 'FEED#P')), name).toBe(true);
      }
      expect(keysOf(seen, `${segment}.get`)).toContain(`AUTH#${member.id}`);
    }
  });

  it('public views of a user: its username claim and profile, never its record or e-mail claim', async () => {
    const seen = await touching(async () => {
      expectJson(await send(server, 'GET', `/api/users/${member.username}/about/`), 200);
      expectJson(await send(server, 'GET', `/api/users/${member.username}/about/`, { headers: member.auth }), 200);
      expectJson(await send(server, 'GET', `/api/users/${member.username}/reviews/`, { headers: member.auth }), 200);
    });
    expect(keysOf(seen, 'users.about').some((pk) => pk!.startsWith('USER#U#username#'))).toBe(true);
    expect(keysOf(seen, 'users.about').some((pk) => pk!.startsWith('PROFILE#U#user_id#'))).toBe(true);
    expect(keysOf(seen, 'users.reviews')).toContain(`AUTH#${member.id}`);
    expect(seen.filter((t) => PRIVATE.test(t.pk ?? ''))).toEqual([]);
  });

  it('account flows: registration, activation, sign-in, password change, own account, an administrator’s list and change', async () => {
    const username = uniqueUsername('scope');
    const email = addressOf(username);
    const seen = await touching(async () => {
      expect((await send(server, 'POST', '/api/users/', { body: { email, username, password: PASSWORD, re_password: PASSWORD } })).status).toBe(201);
      const activation = emailToken(await waitForEmail(email));
      expect((await send(server, 'POST', '/api/users/activation/', { body: activation })).status).toBe(204);
      const auth = await signedIn(server, email, PASSWORD);
      expectJson(await send(server, 'GET', '/api/users/me/', { headers: auth }), 200);
      expectJson(await send(server, 'PATCH', '/api/users/me/', { body: { username: `${username}x` }, headers: auth }), 200);
      const body = { current_password: PASSWORD, new_password: 'Another-Lantern-43', re_new_password: 'Another-Lantern-43' };
      expect((await send(server, 'POST', '/api/users/set_password/', { body, headers: auth })).status).toBe(204);
      expect((await send(server, 'POST', '/api/users/reset_password/', { body: { email } })).status).toBe(204);
      expectJson(await send(server, 'GET', '/api/users/', { headers: admin.auth }), 200);
      expectJson(await send(server, 'PATCH', `/api/users/${member.id}/`, { body: { role: 'premium' }, headers: admin.auth }), 200);
      // E1, E3 (activated), E5 (password changed), E4 (reset): the mailer delivered them all.
      await waitForEmail(email, { count: 4 });
    });
    for (const name of ['users.create', 'users.activation', 'tokens.create', 'users.me_get', 'users.me_patch', 'users.set_password', 'users.reset_password', 'users.list', 'users.patch', 'stream.mailer']) {
      expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
    }
    // The administrator's list reads the ordering entries and the count, no record.
    expect(keysOf(seen, 'users.list').every((pk) => /^USER#(O#|N$)/.test(pk!))).toBe(true);
  });

  it('profiles: the profile items and the user’s auth state, never its record', async () => {
    const seen = await touching(async () => {
      const own = expectJson(await send(server, 'GET', '/api/profiles/my-profile/', { headers: member.auth }), 200);
      expect((await send(server, 'DELETE', `/api/profiles/${own.id}/`, { headers: admin.auth })).status).toBe(204);
      expectJson(await send(server, 'PATCH', '/api/profiles/update-profile/', { body: { bio: 'again' }, headers: member.auth }), 200);
      expectJson(await send(server, 'GET', '/api/profiles/', { headers: admin.auth }), 200);
    });
    for (const name of ['profiles.my-profile', 'profiles.delete', 'profiles.update-profile', 'profiles.list']) expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
    expect(keysOf(seen, 'profiles.update-profile')).toContain(`AUTH#${member.id}`);
    expect(seen.filter((t) => t.component.startsWith('profiles.') && t.pk!.startsWith('USER#'))).toEqual([]);
  });

  it('tokens: refresh, reuse detection and verify read and write only refresh records and auth states', async () => {
    const account = await makeAccount();
    const seen = await touching(() =>
      withLimits(async () => {
        const pair = expectJson(await send(server, 'POST', '/api/tokens/jwt/create/', { body: { email: account.email, password: PASSWORD } }), 200);
        const next = expectJson(await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: pair.refresh } }), 200);
        expect((await send(server, 'POST', '/api/tokens/jwt/verify/', { body: { token: next.refresh } })).status).toBe(200);
        // Reuse: the family is revoked on the auth state, and its tokens stop working.
        expect((await send(server, 'POST', '/api/tokens/jwt/refresh/', { body: { refresh: pair.refresh } })).status).toBe(401);
        expect((await send(server, 'POST', '/api/tokens/jwt/verify/', { body: { token: next.access } })).status).toBe(401);
      }),
    );
    for (const name of ['tokens.refresh', 'tokens.verify']) {
      expect(keysOf(seen, name).length, name).toBeGreaterThan(0);
      expect(keysOf(seen, name).every((pk) => pk!.startsWith('REFRESH#') || pk!.startsWith('RATE#') || pk === `AUTH#${account.id}`), name).toBe(true);
    }
    expect(seen.filter((t) => t.component === 'tokens.refresh' && t.action === 'dynamodb:UpdateItem').map((t) => t.pk)).toContain(`AUTH#${account.id}`);
    // Verify only reads (issue 18: it could put and delete refresh tokens).
    expect([...new Set(seen.filter((t) => t.component === 'tokens.verify' && !t.pk!.startsWith('RATE#')).map((t) => t.action))]).toEqual(['dynamodb:GetItem']);
    expect(refusal({ component: 'tokens.verify', action: 'dynamodb:PutItem', pk: `REFRESH#${account.id}` })).toMatch(/not granted on REFRESH#\* \(only GetItem\)/);
    expect(refusal({ component: 'tokens.verify', action: 'dynamodb:DeleteItem', pk: `REFRESH#${account.id}` })).toMatch(/not granted/);
    expect(unused(['tokens.refresh', 'tokens.verify'])).toEqual([]);
  });

  it('social sign-in: the state, the link, the account and its token family; linking an existing account queues E10', async () => {
    const email = `social.${randomUUID()}@example.org`;
    const signIn = async () => {
      const start = expectJson(await send(server, 'GET', `/api/socials/o/fake/?redirect_uri=${encodeURIComponent(REDIRECT)}`), 200);
      const url = new URL(start.authorization_url);
      const now = Math.floor(Date.now() / 1000);
      // A new identity each time: the first creates the account, the second is linked to it.
      const claims = { iss: fake.issuer, aud: 'fake-client', sub: randomUUID(), iat: now, exp: now + 300, nonce: url.searchParams.get('nonce'), email, email_verified: true };
      const idToken = await fake.idToken(claims);
      fake.answer = () => ({ status: 200, body: { access_token: 'at', token_type: 'Bearer', id_token: idToken } });
      expectJson(await send(server, 'POST', '/api/socials/o/fake/', { body: { code: 'c', state: url.searchParams.get('state') } }), 201);
    };
    const seen = await touching(async () => {
      await signIn();
      await signIn();
    });
    expect(keysOf(seen, 'socials.start').every((pk) => pk!.startsWith('SOCIAL#STATE#'))).toBe(true);
    expect(keysOf(seen, 'socials.start').length).toBe(2);
    expect(keysOf(seen, 'socials.finish').some((pk) => pk!.startsWith('OUTBOX#'))).toBe(true);
  });
});

describe('the check itself', () => {
  it('every recorded touch of this file is allowed, and a touch outside a role is refused', () => {
    expect(trace.touches.length).toBeGreaterThan(0);
    expect(trace.violations()).toEqual([]);
    expect(refusal({ component: 'genres.get', action: 'dynamodb:GetItem', pk: `USER#${member.id}` })).toMatch(/no pattern/);
    expect(refusal({ component: 'users.about', action: 'dynamodb:GetItem', pk: `USER#U#email#${member.email}` })).toMatch(/no pattern/);
    expect(refusal({ component: 'authorizer', action: 'dynamodb:Query', pk: `AUTH#${member.id}` })).toMatch(/not granted/);
    expect(refusal({ component: 'tokens.refresh', action: 'dynamodb:Scan', pk: null })).toMatch(/not granted/);
    // An action granted on another pattern only: the grants are per pattern.
    expect(refusal({ component: 'tokens.refresh', action: 'dynamodb:PutItem', pk: `AUTH#${member.id}` })).toMatch(/not granted on AUTH#\* \(only GetItem, UpdateItem\)/);
    expect(refusal({ component: 'tokens.refresh', action: 'dynamodb:PutItem', pk: `REFRESH#${member.id}` })).toBeNull();
  });
});
