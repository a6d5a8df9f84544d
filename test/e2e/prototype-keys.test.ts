/**
 * Names of Object.prototype members (`__proto__`, `constructor`, `toString`, …) sent by a client
 * on every declared route (functions/registry.ts): as query parameters, body keys, nested keys,
 * path values and header names. The caller (an administrator) may use every route and the path
 * ids exist, so each is a 400 naming the key (a 404 for path values); never a 5xx, always a
 * problem document, and nothing is stored (docs/decisions.md, decision 66).
 */
import { request } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { OPERATIONS, ROUTES } from '../../functions/registry.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { pathParamNames, type RouteDecl } from '../../shared/http/route.js';
import { JSON_TYPE, KINDS, create, expectErrors, expectJson, expectProblem, minimal, send, uniqueName, type Sent } from '../support/contract.js';
import { fixture } from '../support/images.js';
import { formData } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const PROVIDER = 'idp';
const REDIRECT = 'https://app.example.org/auth/callback';

let admin: { id: string; auth: Record<string, string> };
let member: { id: string; username: string };
/** A minimal valid body of each catalogue collection (created when declared). */
const CATALOGUE_MINIMAL: Record<string, () => Record<string, unknown>> = {
  animes: () => ({ name: uniqueName('Anime') }),
  mangas: () => ({ name: uniqueName('Manga') }),
  characters: () => ({ name: uniqueName('Character') }),
  persons: () => ({ name: uniqueName('Person') }),
  news: () => ({ name: uniqueName('News'), content: 'Text.' }),
};

/** Existing ids of the collections with `{id}` paths. */
const ids: Record<string, string> = {};

beforeAll(async () => {
  // A configured provider, so that its routes get as far as the body (no call ever reaches it).
  process.env.SOCIAL_PROVIDERS = JSON.stringify([{ name: PROVIDER, kind: 'oidc', issuer: 'https://idp.example.org', client_id: 'c', redirect_uris: [REDIRECT] }]);
  admin = await server.user('administrator');
  member = await server.user('member');
  for (const k of KINDS) ids[k.segment] = (await create(server, k, admin.auth, minimal(k, uniqueName(k.segment)))).id;
  // The catalogue collections that are declared, each with a minimal record.
  const segments = new Set(OPERATIONS.map((r) => r.path.split('/')[2]!));
  for (const [segment, body] of Object.entries(CATALOGUE_MINIMAL)) {
    if (segments.has(segment)) ids[segment] = expectJson(await send(server, 'POST', `/api/${segment}/`, { body: body(), headers: admin.auth }), 201).id;
  }
  const profile = await send(server, 'POST', '/api/profiles/', { body: { user_id: member.id }, headers: admin.auth });
  ids.profiles = expectJson(profile, 201).id;
  // The administrator's own list items and reviews (an author's PATCH validates its body; anyone
  // else's is a vote), so that their routes get as far as the body.
  for (const [segment, list, idField] of [['animes', 'animelist', 'anime_id'], ['mangas', 'mangalist', 'manga_id']] as const) {
    if (!ids[segment]) continue;
    if (segments.has('playlists')) ids[`${list}-item`] = expectJson(await send(server, 'POST', `/api/playlists/${list}/${segment}/`, { body: { [idField]: ids[segment] }, headers: admin.auth }), 201).id;
    const review = { rating: 8, comment: 'A review long enough to be accepted as one.' };
    if (OPERATIONS.some((r) => r.path === `/api/${segment}/{id}/reviews/create/`)) ids[`${segment}-review`] = expectJson(await send(server, 'POST', `/api/${segment}/${ids[segment]}/reviews/create/`, { body: review, headers: admin.auth }), 201).id;
  }
});

/** The route's path with existing values; `value` replaces every parameter instead. */
function pathOf(route: RouteDecl, value?: string): string {
  const names = pathParamNames(route.path);
  let i = 0;
  return route.path.replace(/\{[a-z_]+\}/g, () => {
    if (value !== undefined) return encodeURIComponent(value);
    const name = names[i++];
    if (name === 'provider') return PROVIDER;
    if (name === 'username') return member.username;
    const segment = route.path.split('/')[2]!;
    if (name === 'item_id') return ids[`${route.path.split('/')[3]}-item`]!;
    if (name === 'id_2' && route.path.includes('/reviews/')) return ids[`${segment}-review`]!;
    // The own account for DELETE: an administrator's DELETE of another user ignores the body.
    if (segment === 'users') return route.method === 'DELETE' ? admin.id : member.id;
    return ids[segment]!;
  });
}

/** Every item of the file's table, in a stable form. */
async function tableItems(): Promise<string[]> {
  const items: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new ScanCommand({ TableName: tableName(), ConsistentRead: true, ExclusiveStartKey: start }));
    items.push(...(out.Items ?? []).map((item) => JSON.stringify(item, Object.keys(item).sort())));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.sort();
}

/** Runs `tasks` with at most `n` at a time, in order of completion. */
async function pool<T>(tasks: (() => Promise<T>)[], n: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) results.push(await tasks[next++]!());
  };
  await Promise.all(Array.from({ length: n }, worker));
  return results;
}

interface Case {
  what: string;
  route: RouteDecl;
  path: string;
  body?: string;
  /** A multipart body (routes with `bodyType: 'multipart'`). */
  form?: { body: Buffer; contentType: string };
  /** The expected problem, and a key its `errors` must have. */
  status: number;
  type: 'invalid-query' | 'validation-error' | 'not-found';
  errorKey?: string;
}

/** The first field of the route's body schema (of its first alternative where it has several). */
function firstField(route: RouteDecl): string | undefined {
  const schema = route.body instanceof z.ZodMiniUnion ? route.body.def.options[0] : route.body;
  return schema instanceof z.ZodMiniObject ? Object.keys(schema.shape)[0] : undefined;
}

/** The cases of one route: each key as a query parameter, body key, nested key and path value. */
function casesOf(route: RouteDecl): Case[] {
  const out: Case[] = [];
  const label = `${route.method} ${route.path}`;
  for (const key of KEYS) {
    out.push({ route, what: `${label} ?${key}=x`, path: `${pathOf(route)}?${encodeURIComponent(key)}=x`, status: 400, type: 'invalid-query', errorKey: key });
    if (route.body && route.bodyType === 'multipart') {
      // Part names: a text part and a file part named after the key, beside a valid image.
      const image = { name: 'image', filename: 'a.png', type: 'image/png', data: fixture('rgba.png') };
      for (const [kind, parts] of [
        ['text part', [image, { name: key, value: 'x' }]],
        ['file part', [image, { name: key, filename: 'b.png', data: fixture('rgba.png') }]],
      ] as const) {
        out.push({ route, what: `${label} ${kind} named ${key}`, path: pathOf(route), form: formData(parts), status: 400, type: 'validation-error', errorKey: key });
      }
    } else if (route.body) {
      const bodies: [string, string, string][] = [
        ['top-level key', `{"${key}": 1}`, key],
        ['nested key', `{"${key}": {"${key}": 1}}`, key],
      ];
      const field = firstField(route);
      if (field) bodies.push([`key nested in ${field}`, `{"${field}": {"${key}": 1}}`, field]);
      for (const [kind, body, errorKey] of bodies) {
        out.push({ route, what: `${label} ${kind} ${body}`, path: pathOf(route), body, status: 400, type: 'validation-error', errorKey });
      }
    }
    if (pathParamNames(route.path).length > 0) {
      const query = route.name === 'socials.start' ? `?redirect_uri=${encodeURIComponent(REDIRECT)}` : '';
      out.push({ route, what: `${label} with ${key} as path value`, path: `${pathOf(route, key)}${query}`, status: 404, type: 'not-found' });
    }
  }
  return out;
}

function check(c: Case, res: Sent): void {
  expect(res.status, `${c.what} → ${res.status} ${res.text.slice(0, 300)}`).toBeLessThan(500);
  const body = expectProblem(res, c.status, c.type);
  if (c.errorKey !== undefined) {
    expect(Object.hasOwn(body.errors, c.errorKey), `${c.what}: errors has ${c.errorKey}: ${res.text}`).toBe(true);
  }
}

describe('every declared route', () => {
  let before: string[];
  beforeAll(async () => {
    // The stream consumers settle first (list sizes, reverse views of the records just created).
    before = await tableItems();
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 400));
      const now = await tableItems();
      if (JSON.stringify(now) === JSON.stringify(before)) break;
      before = now;
    }
  });

  describe.concurrent('answers a 4xx problem naming the key (query parameter, body key, nested key; 404 for a path value)', () => {
    it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_label, route) => {
      const results = await pool(
        casesOf(route).map((c) => async () => ({
          c,
          res: await send(server, c.route.method, c.path, c.form ? { raw: c.form.body, headers: { ...admin.auth, 'content-type': c.form.contentType } } : { body: c.body, headers: admin.auth }),
        })),
        2,
      );
      for (const { c, res } of results) check(c, res);
    });
  });

  it('nothing was stored', async () => {
    expect(await tableItems()).toEqual(before);
  });
});

describe('values and names of the examples of issue 6', () => {
  it('a provider named after a prototype member → 404', async () => {
    for (const name of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const path = `/api/socials/o/${name}/`;
      expectProblem(await send(server, 'GET', `${path}?redirect_uri=${encodeURIComponent(REDIRECT)}`), 404, 'not-found');
      expectProblem(await send(server, 'POST', path, { body: { code: 'c', state: 's'.repeat(43) } }), 404, 'not-found');
    }
  });

  it('ordering, fields and enum filters named after prototype members → 400 invalid-query', async () => {
    for (const key of KEYS) {
      const v = encodeURIComponent(key);
      expectErrors(await send(server, 'GET', `/api/genres/?ordering=${v}`), 400, 'invalid-query', ['ordering']);
      expectErrors(await send(server, 'GET', `/api/genres/?ordering=-${v}`), 400, 'invalid-query', ['ordering']);
      expectErrors(await send(server, 'GET', `/api/genres/?fields=name,${v}`), 400, 'invalid-query', ['fields']);
      expectErrors(await send(server, 'GET', `/api/genres/${ids.genres}/?fields=${v}`), 400, 'invalid-query', ['fields']);
      expectErrors(await send(server, 'GET', `/api/producers/?type=${v}`), 400, 'invalid-query', ['type']);
      expectErrors(await send(server, 'GET', `/api/users/?role=${v}`, { headers: admin.auth }), 400, 'invalid-query', ['role']);
    }
  });

  it('the key is an own member of `errors` on the wire, beside the other field errors', async () => {
    const before = await tableItems();
    const registration = { email: 'proto@example.org', username: 'proto_user', password: 'Kumquat-Lantern-42', re_password: 'Kumquat-Lantern-42' };
    const body = (extra: string) => `{${extra}, ${JSON.stringify(registration).slice(1)}`;
    expectErrors(await send(server, 'POST', '/api/users/', { body: body('"constructor": 1') }), 400, 'validation-error', ['constructor']);
    const proto = await send(server, 'POST', '/api/users/', { body: body('"__proto__": {"role": "administrator"}') });
    expectErrors(proto, 400, 'validation-error', ['__proto__']);
    expect(proto.text).toContain('"__proto__":[');
    expectErrors(await send(server, 'POST', '/api/tokens/jwt/create/', { body: '{"toString": 1}' }), 400, 'validation-error', ['email', 'password', 'toString']);
    expectErrors(await send(server, 'POST', '/api/genres/', { body: `{"name": "${uniqueName('Proto')}", "hasOwnProperty": 1}`, headers: admin.auth }), 400, 'validation-error', ['hasOwnProperty']);
    expectErrors(await send(server, 'GET', '/api/genres/?__proto__=x'), 400, 'invalid-query', ['__proto__']);
    expect(await tableItems()).toEqual(before);
  });

  it('header names of prototype members are ordinary headers', async () => {
    // node:http, since fetch drops a header named `__proto__`.
    const get = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; type: string | undefined }>((resolve, reject) => {
        const req = request(`${server.url}${path}`, { headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'] }));
        });
        req.on('error', reject);
        req.end();
      });
    const headers = Object.fromEntries(KEYS.map((k) => [k, 'x']));
    expect(Object.keys(headers)).toEqual(KEYS);
    for (const path of ['/api/genres/', '/api/users/me/']) {
      expect(await get(path, { ...headers, ...admin.auth }), path).toEqual({ status: 200, type: JSON_TYPE });
    }
  });
});
