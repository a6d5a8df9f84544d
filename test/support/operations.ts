/**
 * A valid request for each of the operations (API.md §2.5's 151 and the 2 extensions of §8), for a given caller: path ids of
 * existing records, a valid body with unique values where the contract wants them, and the
 * records the request needs (a title, a review, a list item, a profile, an account with an
 * e-mailed token…) — the caller's own where ownership matters (`target: 'own'`), another
 * member's otherwise. The authorization matrix (test/e2e/authorization-matrix.test.ts) sends
 * them as they are; the fuzz test (fuzz.ts) breaks them. Records are created through the API
 * (as an administrator, or as their owner), accounts directly in the table (accounts.ts).
 *
 * Nothing here imports the test runner: the benchmark's fuzz section uses it too.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { issueEmailToken } from '../../shared/auth/email-tokens.js';
import { signingKey, TOKEN_ALG } from '../../shared/auth/keys.js';
import type { Role } from '../../shared/auth/roles.js';
import { issuer } from '../../shared/auth/tokens.js';
import { createUser } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { CATALOGUE_SEGMENTS, writeBody } from '../bench/fixtures.js';
import { addressOf, freshPair, makeAccount, PASSWORD, uniqueUsername, type Account } from './accounts.js';
import { send, type Server } from './http.js';
import { startFakeProvider, type FakeProvider } from './identity-providers.js';
import { fixture } from './images.js';
import { formData } from './multipart.js';

/** A password that passes the rules and differs from PASSWORD. */
export const NEW_PASSWORD = 'Brass-Orchard-Tide-77';
/** The social sign-in provider the world configures, and its allowed redirect. */
export const PROVIDER = 'loopback';
export const REDIRECT_URI = 'https://app.example.org/auth/callback';

export type Target = 'own' | 'other';

/** A request as the operation takes it (multipart: `form`). */
export interface Call {
  method: string;
  /** Path with its query string. */
  path: string;
  body?: unknown;
  form?: { bytes: Buffer; contentType: string };
}

export interface BuildContext {
  world: World;
  /** null: anonymous (or a caller whose token is not valid: the request is built as for another member). */
  caller: Account | null;
  /** Whose record the request acts on where ownership matters (reviews, list items, profiles, `/api/users/{id}/`). */
  target: Target;
  /**
   * A record of its own for a request that changes or deletes one (a write that should succeed);
   * otherwise the shared one (a refused write leaves it as it is).
   */
  fresh: boolean;
  /** Review PATCH: an author's edit or a helpful vote (default: an edit of one's own review, a vote on another's). */
  reviewBody?: 'edit' | 'vote';
}

export interface OperationFixture {
  method: string;
  /** As in spec/operations.tsv (review paths have `{id}` twice). */
  path: string;
  build(ctx: BuildContext): Promise<Call>;
  /**
   * The request uses up its caller (deletes the account, or revokes its tokens): `always`, or
   * only when acting on the caller's own record. Such cells get a new caller each.
   */
  consumesCaller?: 'always' | 'own';
}

type Kind = 'anime' | 'manga';
const SEGMENT: Record<Kind, 'animes' | 'mangas'> = { anime: 'animes', manga: 'mangas' };
const LIST: Record<Kind, string> = { anime: '/api/playlists/animelist/', manga: '/api/playlists/mangalist/' };

/** A valid review body (§3.9). */
const REVIEW = { rating: 8, comment: 'Careful pacing and a score that carries the quiet episodes.', is_spoiler: false, tags: ['recommended'] };

/**
 * The records and accounts the requests need, created on first use and shared (`record`), or
 * new for each request that changes or deletes one (`fresh`).
 */
export class World {
  readonly run = randomBytes(3).toString('hex');
  private counter = 0;
  private readonly memo = new Map<string, Promise<unknown>>();
  private provider: FakeProvider | undefined;
  /** Codes handed to the fake provider's token endpoint → the nonce and identity of that sign-in. */
  private readonly codes = new Map<string, { nonce: string; sub: string; email: string }>();
  admin!: Account;
  /** The other member: owner of the records that are not the caller's. */
  someone!: Account;
  /** An active account whose password signs in (tokens.create, reset_email). */
  holder!: Account;

  constructor(readonly server: Server) {}

  /**
   * Creates the shared accounts and configures the social sign-in provider (`secretsDir`: the
   * Secrets Manager emulator's directory, where its client secret goes).
   */
  async init(secretsDir: string): Promise<void> {
    [this.admin, this.someone, this.holder] = await Promise.all([makeAccount({ role: 'administrator' }), makeAccount(), makeAccount()]);
    this.provider = await startFakeProvider('catalogue-fuzz');
    const provider = this.provider;
    provider.answer = async (request) => {
      const flow = this.codes.get(request.form.get('code') ?? '');
      if (!flow) return { status: 400, body: { error: 'invalid_grant' } };
      const now = Math.floor(Date.now() / 1000);
      const idToken = await provider.idToken({ iss: provider.issuer, aud: provider.clientId, sub: flow.sub, iat: now, exp: now + 300, nonce: flow.nonce, email: flow.email, email_verified: true });
      return { status: 200, body: { access_token: 'at', token_type: 'Bearer', id_token: idToken } };
    };
    const secretId = `social-secrets-${this.run}`;
    writeFileSync(join(secretsDir, `${secretId}.json`), JSON.stringify({ [PROVIDER]: 'loopback-secret' }));
    process.env.SOCIAL_SECRETS_ID = secretId;
    process.env.SOCIAL_PROVIDERS = JSON.stringify([{ name: PROVIDER, kind: 'oidc', issuer: provider.issuer, client_id: provider.clientId, redirect_uris: [REDIRECT_URI] }]);
  }

  async close(): Promise<void> {
    await this.provider?.close();
  }

  /** A name unique in this run. */
  name(prefix = 'Name'): string {
    this.counter += 1;
    return `${prefix} ${this.run} ${this.counter}`;
  }

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = make();
      this.memo.set(key, p);
      // A failure is not remembered: the next use tries again.
      p.catch(() => this.memo.delete(key));
    }
    return p;
  }

  /** Forgets a shared record (a request deleted it). */
  forget(key: string): void {
    this.memo.delete(key);
  }

  /** Requests sent to set up records (not the requests under test). */
  setupRequests = 0;

  /** A request that must succeed (setting up a record); returns its body. */
  async expect(status: number, method: string, path: string, body: unknown, auth: Record<string, string> = this.admin.auth): Promise<any> {
    this.setupRequests += 1;
    const res = await send(this.server, method, path, { body, headers: auth });
    if (res.status !== status) throw new Error(`fixture: ${method} ${path} → ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`);
    return res.body;
  }

  /** A valid write body (POST, PUT) of a catalogue collection, with a unique name. */
  writeBody(segment: string): Record<string, unknown> {
    return writeBody(segment, this.name(segment));
  }

  /** A new record of the catalogue collection; its id. */
  async fresh(segment: string): Promise<string> {
    return (await this.expect(201, 'POST', `/api/${segment}/`, this.writeBody(segment))).id;
  }

  /** The shared record of the catalogue collection. */
  record(segment: string): Promise<string> {
    return this.once(`record:${segment}`, () => this.fresh(segment));
  }

  recordFor(segment: string, fresh: boolean): Promise<string> {
    return fresh ? this.fresh(segment) : this.record(segment);
  }

  /** A review by `author` of a title of the kind (the shared title, or a new one): the title's and the review's ids. */
  review(kind: Kind, author: Account, fresh: boolean): Promise<{ title: string; review: string }> {
    const make = async () => {
      const title = fresh ? await this.fresh(SEGMENT[kind]) : await this.record(SEGMENT[kind]);
      const review = await this.expect(201, 'POST', `/api/${SEGMENT[kind]}/${title}/reviews/create/`, REVIEW, author.auth);
      return { title, review: review.id as string };
    };
    return fresh ? make() : this.once(`review:${kind}:${author.id}`, make);
  }

  /** An item of `owner`'s list of the kind (on the shared title, or on a new one): its id. */
  item(kind: Kind, owner: Account, fresh: boolean): Promise<string> {
    const make = async () => {
      const title = fresh ? await this.fresh(SEGMENT[kind]) : await this.record(SEGMENT[kind]);
      const item = await this.expect(201, 'POST', `${LIST[kind]}${SEGMENT[kind]}/`, { [`${kind}_id`]: title }, owner.auth);
      return item.id as string;
    };
    return fresh ? make() : this.once(`item:${kind}:${owner.id}`, make);
  }

  /** A genuine cursor (the `next` of the first page of one genre), for lists it does not belong to. */
  async foreignCursor(): Promise<string> {
    await Promise.all([this.fresh('genres'), this.fresh('genres')]);
    const page = await this.expect(200, 'GET', '/api/genres/?limit=1', undefined, {});
    return new URL(page.next as string).searchParams.get('cursor')!;
  }

  /** An account of the role (a new one each call). */
  account(role: Role = 'member'): Promise<Account> {
    return makeAccount({ role });
  }

  /** An account without a profile (as after an administrator deleted it): its id. */
  async userWithoutProfile(): Promise<string> {
    const id = newId();
    const username = uniqueUsername('bare');
    const at = new Date().toISOString();
    await createUser(
      { id, username, email: addressOf(username), role: 'member', is_active: true, is_staff: false, last_login: null, created_at: at, updated_at: at },
      { token_version: 0, password_hash: null, activated_at: at },
    );
    return id;
  }

  /** An account with a genuine e-mailed token of the purpose (and, for an e-mail change, the pending address). */
  async emailed(purpose: 'activation' | 'password_reset' | 'email_change'): Promise<{ uid: string; token: string }> {
    const id = newId();
    const { token, nonce } = await issueEmailToken(id, purpose);
    const pending = purpose === 'email_change' ? { pending_email: addressOf(uniqueUsername('moved')) } : {};
    await makeAccount({ id, active: purpose !== 'activation', priv: { nonces: { [purpose]: nonce }, ...pending } });
    return { uid: id, token };
  }

  /** Starts a social sign-in and makes its code known to the provider: the finishing body. */
  async socialSignIn(): Promise<{ code: string; state: string }> {
    const started = await this.expect(200, 'GET', `/api/socials/o/${PROVIDER}/?redirect_uri=${encodeURIComponent(REDIRECT_URI)}`, undefined, {});
    const url = new URL(started.authorization_url as string);
    const code = `code-${newId()}`;
    const who = uniqueUsername('social');
    this.codes.set(code, { nonce: url.searchParams.get('nonce')!, sub: who, email: addressOf(who) });
    return { code, state: url.searchParams.get('state')! };
  }

  /**
   * Headers of the callers §2.1 refuses on every operation that reads the header: a deactivated
   * user's token, a token revoked by a password change, an expired token, a refresh token.
   */
  async invalidCallers(): Promise<Record<InvalidCaller, Account>> {
    const deactivated = await makeAccount({ active: false, activated: true });
    const revoked = await makeAccount();
    await this.expect(204, 'POST', '/api/users/set_password/', { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD }, revoked.auth);
    const expired = await makeAccount();
    const expiredToken = await expiredAccessToken(expired.id);
    const refresh = await makeAccount();
    const { refresh: refreshToken } = await freshPair(refresh);
    return {
      deactivated,
      revoked,
      expired: { ...expired, token: expiredToken, auth: { authorization: `Bearer ${expiredToken}` } },
      refresh: { ...refresh, token: refreshToken, auth: { authorization: `Bearer ${refreshToken}` } },
    };
  }
}

export type InvalidCaller = 'deactivated' | 'revoked' | 'expired' | 'refresh';

/** An access token of the user, correctly signed, that expired a minute ago. */
export async function expiredAccessToken(userId: string): Promise<string> {
  const { kid, key } = await signingKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: userId, user_id: userId, token_type: 'access', tv: 0, jti: newId(), iat: now - 960, exp: now - 60 })
    .setProtectedHeader({ alg: TOKEN_ALG, kid, typ: 'JWT' })
    .setIssuer(issuer())
    .sign(key);
}

// ---------------------------------------------------------------------------------------------
// The operations.

const FIXTURES: OperationFixture[] = [];
const op = (method: string, path: string, build: OperationFixture['build'], extra: Pick<OperationFixture, 'consumesCaller'> = {}) => {
  FIXTURES.push({ method, path, build, ...extra });
};
const get = (path: string) => op('GET', path, async () => ({ method: 'GET', path }));

// Catalogue CRUD (§4.0) of the ten collections.
for (const segment of CATALOGUE_SEGMENTS) {
  const collection = `/api/${segment}/`;
  get(collection);
  op('POST', collection, async ({ world }) => ({ method: 'POST', path: collection, body: world.writeBody(segment) }));
  op('GET', `${collection}{id}/`, async ({ world }) => ({ method: 'GET', path: `${collection}${await world.record(segment)}/` }));
  op('PUT', `${collection}{id}/`, async ({ world, fresh }) => ({ method: 'PUT', path: `${collection}${await world.recordFor(segment, fresh)}/`, body: world.writeBody(segment) }));
  op('PATCH', `${collection}{id}/`, async ({ world, fresh }) => ({ method: 'PATCH', path: `${collection}${await world.recordFor(segment, fresh)}/`, body: { name: world.name(segment) } }));
  op('DELETE', `${collection}{id}/`, async ({ world, fresh }) => ({ method: 'DELETE', path: `${collection}${await world.recordFor(segment, fresh)}/` }));
}

// Sub-resource lists and the other reads of one record.
const subResources: [string, string][] = [
  ...['characters', 'news', 'pictures', 'recommendations', 'staff', 'stats', 'videos', 'reviews'].map((s): [string, string] => ['animes', s]),
  ...['characters', 'news', 'pictures', 'recommendations', 'stats', 'reviews'].map((s): [string, string] => ['mangas', s]),
  ['genres', 'animes'],
  ['genres', 'mangas'],
  ['persons', 'mangas'],
  ['persons', 'pictures'],
  ['persons', 'voices'],
  ['producers', 'animes'],
];
for (const [segment, sub] of subResources) {
  op('GET', `/api/${segment}/{id}/${sub}/`, async ({ world }) => ({ method: 'GET', path: `/api/${segment}/${await world.record(segment)}/${sub}/` }));
}
op('POST', '/api/persons/{id}/create-picture/', async ({ world, fresh }) => {
  const { body, contentType } = formData([
    { name: 'image', filename: 'portrait.png', type: 'image/png', data: fixture('rgba.png') },
    { name: 'name', value: 'Portrait' },
  ]);
  return { method: 'POST', path: `/api/persons/${await world.recordFor('persons', fresh)}/create-picture/`, form: { bytes: body, contentType } };
});

// Reviews (§4.1.3): the author edits, anyone else votes.
for (const kind of ['anime', 'manga'] as const) {
  const segment = SEGMENT[kind];
  op('PATCH', `/api/${segment}/{id}/reviews/{id}/`, async ({ world, caller, target, fresh, reviewBody }) => {
    const { title, review } = await world.review(kind, target === 'own' && caller ? caller : world.someone, fresh);
    const edit = (reviewBody ?? (target === 'own' ? 'edit' : 'vote')) === 'edit';
    return { method: 'PATCH', path: `/api/${segment}/${title}/reviews/${review}/`, body: edit ? { rating: 6, is_spoiler: true } : { helpful: true } };
  });
  op('DELETE', `/api/${segment}/{id}/reviews/{id}/`, async ({ world, caller, target, fresh }) => {
    const { title, review } = await world.review(kind, target === 'own' && caller ? caller : world.someone, fresh);
    return { method: 'DELETE', path: `/api/${segment}/${title}/reviews/${review}/` };
  });
  op('POST', `/api/${segment}/{id}/reviews/create/`, async ({ world, fresh }) => ({
    method: 'POST',
    path: `/api/${segment}/${await world.recordFor(segment, fresh)}/reviews/create/`,
    body: REVIEW,
  }));
}

// Reads without path values.
for (const path of [
  // §8.5: the change feed (an extension of docs/spec/extensions.tsv).
  '/api/changes/',
  '/api/characters/members/',
  '/api/home/',
  '/api/random/anime/',
  '/api/random/character/',
  '/api/random/manga/',
  '/api/random/person/',
  '/api/recommendations/anime/',
  '/api/recommendations/manga/',
  '/api/schedules/',
  // §8.6: the calendar (an extension of docs/spec/extensions.tsv).
  '/api/schedules/calendar.ics',
  '/api/seasons/now/',
  '/api/seasons/upcoming/',
  '/api/top/animes/',
  '/api/top/artists/',
  '/api/top/characters/',
  '/api/top/mangas/',
  '/api/top/reviews/',
]) {
  get(path);
}
op('GET', '/api/seasons/{year}/{season}/', async () => ({ method: 'GET', path: '/api/seasons/2024/fall/' }));

// Playlists (§4.10): always the caller's own lists; items of another's list are 404.
for (const kind of ['anime', 'manga'] as const) {
  const list = LIST[kind];
  const items = `${list}${SEGMENT[kind]}/`;
  get(list);
  op('PATCH', list, async () => ({ method: 'PATCH', path: list, body: { name: 'Watched with friends', is_public: true } }));
  get(items);
  op('POST', items, async ({ world, fresh }) => ({ method: 'POST', path: items, body: { [`${kind}_id`]: await world.recordFor(SEGMENT[kind], fresh), is_favorite: true } }));
  const item = async ({ world, caller, target, fresh }: BuildContext) => `${items}${await world.item(kind, target === 'own' && caller ? caller : world.someone, fresh)}/`;
  op('GET', `${items}{item_id}/`, async (ctx) => ({ method: 'GET', path: await item(ctx) }));
  op('PATCH', `${items}{item_id}/`, async (ctx) => ({ method: 'PATCH', path: await item(ctx), body: { score: 9, priority: 'high' } }));
  op('DELETE', `${items}{item_id}/`, async (ctx) => ({ method: 'DELETE', path: await item(ctx) }));
}

// Profiles (§4.12).
const profileOf = async ({ world, caller, target }: BuildContext) => (target === 'own' && caller ? caller : world.someone).profileId;
get('/api/profiles/');
op('POST', '/api/profiles/', async ({ world }) => ({ method: 'POST', path: '/api/profiles/', body: { user_id: await world.userWithoutProfile(), location: 'Osaka' } }));
op('GET', '/api/profiles/{id}/', async (ctx) => ({ method: 'GET', path: `/api/profiles/${await profileOf(ctx)}/` }));
op('PUT', '/api/profiles/{id}/', async (ctx) => ({ method: 'PUT', path: `/api/profiles/${await profileOf(ctx)}/`, body: { first_name: 'Aki', bio: 'Reads on trains.' } }));
op('PATCH', '/api/profiles/{id}/', async (ctx) => ({ method: 'PATCH', path: `/api/profiles/${await profileOf(ctx)}/`, body: { location: 'Sapporo' } }));
op('DELETE', '/api/profiles/{id}/', async (ctx) => ({ method: 'DELETE', path: `/api/profiles/${ctx.fresh && ctx.target === 'other' ? (await ctx.world.account()).profileId : await profileOf(ctx)}/` }));
get('/api/profiles/my-profile/');
op('PATCH', '/api/profiles/update-profile/', async () => ({ method: 'PATCH', path: '/api/profiles/update-profile/', body: { bio: 'Mostly mecha.', gender: 'other' } }));

// Social sign-in (§4.17) at the loopback provider.
op('GET', '/api/socials/o/{provider}/', async () => ({ method: 'GET', path: `/api/socials/o/${PROVIDER}/?redirect_uri=${encodeURIComponent(REDIRECT_URI)}` }));
op('POST', '/api/socials/o/{provider}/', async ({ world }) => ({ method: 'POST', path: `/api/socials/o/${PROVIDER}/`, body: await world.socialSignIn() }));

// Tokens (§4.19).
// A sign-in updates the account's `last_login`: concurrent sign-ins of one account contend for it, so
// each that should succeed signs in an account of its own.
op('POST', '/api/tokens/jwt/create/', async ({ world, fresh }) => ({
  method: 'POST',
  path: '/api/tokens/jwt/create/',
  body: { email: (fresh ? await world.account() : world.holder).email, password: PASSWORD },
}));
op('POST', '/api/tokens/jwt/refresh/', async ({ world }) => ({ method: 'POST', path: '/api/tokens/jwt/refresh/', body: { refresh: (await freshPair(world.holder)).refresh } }));
op('POST', '/api/tokens/jwt/verify/', async ({ world }) => ({ method: 'POST', path: '/api/tokens/jwt/verify/', body: { token: world.holder.token } }));

// Users (§4.21).
get('/api/users/');
op('POST', '/api/users/', async () => {
  const username = uniqueUsername('reg');
  return { method: 'POST', path: '/api/users/', body: { email: addressOf(username), username, password: PASSWORD, re_password: PASSWORD } };
});
/**
 * `/api/users/{id}/` of the caller (own), or of another account: the shared one, or a new one
 * for a write that will succeed (an administrator's changes would change the shared one).
 */
const userTarget = async ({ world, caller, target, fresh }: BuildContext): Promise<Account> => (target === 'own' && caller ? caller : fresh ? world.account() : world.someone);
op('GET', '/api/users/{id}/', async (ctx) => ({ method: 'GET', path: `/api/users/${(await userTarget(ctx)).id}/` }));
op('PUT', '/api/users/{id}/', async (ctx) => {
  const user = await userTarget(ctx);
  const username = uniqueUsername('renamed');
  const own = ctx.target === 'own' && ctx.caller !== null;
  return { method: 'PUT', path: `/api/users/${user.id}/`, body: own ? { username } : { username, email: user.email, role: user.role, is_active: true } };
});
op('PATCH', '/api/users/{id}/', async (ctx) => {
  const user = await userTarget(ctx);
  const own = ctx.target === 'own' && ctx.caller !== null;
  return { method: 'PATCH', path: `/api/users/${user.id}/`, body: own ? { username: uniqueUsername('renamed') } : { role: 'premium' } };
});
op(
  'DELETE',
  '/api/users/{id}/',
  async (ctx) => {
    const own = ctx.target === 'own' && ctx.caller !== null;
    const user = await userTarget(ctx);
    return { method: 'DELETE', path: `/api/users/${user.id}/`, ...(own ? { body: { current_password: PASSWORD } } : {}) };
  },
  { consumesCaller: 'own' },
);
op('GET', '/api/users/{username}/about/', async ({ world }) => ({ method: 'GET', path: `/api/users/${world.someone.username}/about/` }));
op('GET', '/api/users/{username}/reviews/', async ({ world }) => ({ method: 'GET', path: `/api/users/${world.someone.username}/reviews/` }));
op('POST', '/api/users/activation/', async ({ world }) => ({ method: 'POST', path: '/api/users/activation/', body: await world.emailed('activation') }));
get('/api/users/me/');
op('PUT', '/api/users/me/', async () => ({ method: 'PUT', path: '/api/users/me/', body: { username: uniqueUsername('renamed') } }));
op('PATCH', '/api/users/me/', async () => ({ method: 'PATCH', path: '/api/users/me/', body: { username: uniqueUsername('renamed') } }));
op('DELETE', '/api/users/me/', async () => ({ method: 'DELETE', path: '/api/users/me/', body: { current_password: PASSWORD } }), { consumesCaller: 'always' });
op('POST', '/api/users/resend_activation/', async ({ world }) => ({ method: 'POST', path: '/api/users/resend_activation/', body: { email: world.someone.email } }));
op('POST', '/api/users/reset_email/', async ({ world }) => {
  const to = addressOf(uniqueUsername('next'));
  return { method: 'POST', path: '/api/users/reset_email/', body: { email: world.holder.email, password: PASSWORD, new_email: to, re_new_email: to } };
});
op('POST', '/api/users/reset_email_confirm/', async ({ world }) => ({ method: 'POST', path: '/api/users/reset_email_confirm/', body: await world.emailed('email_change') }));
op('POST', '/api/users/reset_password/', async ({ world }) => ({ method: 'POST', path: '/api/users/reset_password/', body: { email: world.someone.email } }));
op('POST', '/api/users/reset_password_confirm/', async ({ world }) => ({
  method: 'POST',
  path: '/api/users/reset_password_confirm/',
  body: { ...(await world.emailed('password_reset')), new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD },
}));
op('POST', '/api/users/set_email/', async () => {
  const to = addressOf(uniqueUsername('next'));
  return { method: 'POST', path: '/api/users/set_email/', body: { current_password: PASSWORD, new_email: to, re_new_email: to } };
});
op(
  'POST',
  '/api/users/set_password/',
  async () => ({ method: 'POST', path: '/api/users/set_password/', body: { current_password: PASSWORD, new_password: NEW_PASSWORD, re_new_password: NEW_PASSWORD } }),
  { consumesCaller: 'always' },
);

/** The fixtures by `METHOD path` (paths as in spec/operations.tsv). */
export const OPERATION_FIXTURES: ReadonlyMap<string, OperationFixture> = new Map(FIXTURES.map((f) => [`${f.method} ${f.path}`, f]));

/** Sends a built request with these headers. */
export function sendCall(server: Server, call: Call, headers: Record<string, string> = {}) {
  if (call.form) return send(server, call.method, call.path, { raw: call.form.bytes, headers: { ...headers, 'content-type': call.form.contentType } });
  return send(server, call.method, call.path, { body: call.body, headers });
}
