/**
 * End-to-end assertions written from the contract (API.md), not from the implementation:
 * problem documents (§1.4), record shapes of the five taxonomy resources (§3.7), and helpers
 * to send raw bodies, walk pages and compute expected orders.
 */
import { expect, inject } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { sendChecked } from './prism.js';
import { call, type Res, type TestServer } from './server.js';

/** Titles and statuses of the problem types of §1.4. */
export const PROBLEM_TYPES = {
  'malformed-request': [400, 'Malformed request'],
  'invalid-query': [400, 'Invalid query parameter'],
  'validation-error': [400, 'Validation failed'],
  'authentication-required': [401, 'Authentication required'],
  'invalid-token': [401, 'Invalid token'],
  'invalid-credentials': [401, 'Invalid credentials'],
  'account-inactive': [401, 'Account inactive'],
  forbidden: [403, 'Forbidden'],
  'stale-token': [403, 'Stale token'],
  'not-found': [404, 'Not found'],
  'method-not-allowed': [405, 'Method not allowed'],
  conflict: [409, 'Conflict'],
  'precondition-failed': [412, 'Precondition failed'],
  'payload-too-large': [413, 'Payload too large'],
  'unsupported-media-type': [415, 'Unsupported media type'],
  'rate-limited': [429, 'Too many requests'],
  'service-unavailable': [503, 'Service unavailable'],
  'internal-error': [500, 'Internal error'],
} as const;
export type ProblemKind = keyof typeof PROBLEM_TYPES;

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID = /^[A-Za-z0-9_-]{1,64}$/;
export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
export const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface Sent<T = any> extends Res<T> {
  method: string;
  /** The request path, with its query string. */
  path: string;
}

export interface SendOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes sent as they are (no Content-Type is added). */
  raw?: Uint8Array;
}

/** A request to the local gateway; `path` may also be an absolute URL of the server. */
export async function send<T = any>(server: TestServer, method: string, path: string, opts: SendOptions = {}): Promise<Sent<T>> {
  const rel = path.startsWith('http') ? relative(server, path) : path;
  if (opts.raw === undefined) {
    const res = await call<T>(server, method, rel, { body: opts.body, headers: opts.headers });
    return { ...res, method, path: rel };
  }
  const res = await sendChecked(server.url, inject('contractProxy') ?? null, { method, path: rel, headers: opts.headers ?? {}, body: opts.raw });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body: body as T, text, method, path: rel };
}

/** The server-relative form of an absolute URL the API emitted (which must start with `{base}`). */
export function relative(server: TestServer, url: string): string {
  expect(url.startsWith(`${server.url}/`), `${url} starts with ${server.url}/`).toBe(true);
  return url.slice(server.url.length);
}

/** Asserts the problem document of §1.4 and returns its body. */
export function expectProblem(res: Sent, status: number, type: ProblemKind): any {
  const ctx = `${res.method} ${res.path} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, ctx).toBe(status);
  expect(PROBLEM_TYPES[type][0]).toBe(status);
  expect(res.headers.get('content-type'), ctx).toBe(PROBLEM_TYPE);
  expect(res.headers.get('cache-control'), ctx).toBe('no-store');
  const body = res.body;
  expect(body, ctx).toBeTypeOf('object');
  expect(body.type, ctx).toBe(`urn:problem:${type}`);
  expect(body.title, ctx).toBe(PROBLEM_TYPES[type][1]);
  expect(body.status, ctx).toBe(status);
  expect(body.detail, ctx).toBeTypeOf('string');
  expect(body.instance, ctx).toBe(res.path.split('?')[0]);
  expect(body.request_id, ctx).toBeTypeOf('string');
  expect(body.request_id.length, ctx).toBeGreaterThan(0);
  expect(res.headers.get('x-request-id'), ctx).toBe(body.request_id);
  if (status === 401) {
    expect(res.headers.get('www-authenticate'), ctx).toBe(
      type === 'invalid-token' ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"',
    );
  }
  if (type === 'validation-error' || type === 'invalid-query') {
    expect(body.errors, ctx).toBeTypeOf('object');
    expect(Object.keys(body.errors).length, ctx).toBeGreaterThan(0);
  }
  if (body.errors !== undefined) {
    for (const [key, messages] of Object.entries(body.errors)) {
      expect(Array.isArray(messages) && messages.length > 0, `${ctx}: errors.${key}`).toBe(true);
      for (const m of messages as unknown[]) expect(m, `${ctx}: errors.${key}`).toBeTypeOf('string');
    }
  }
  return body;
}

/** A problem whose `errors` has exactly these keys. */
export function expectErrors(res: Sent, status: number, type: ProblemKind, keys: string[]): any {
  const body = expectProblem(res, status, type);
  expect(Object.keys(body.errors ?? {}).sort(), `${res.method} ${res.path}: ${res.text}`).toEqual([...keys].sort());
  return body;
}

/** A successful JSON response. */
export function expectJson(res: Sent, status: number): any {
  const ctx = `${res.method} ${res.path} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, ctx).toBe(status);
  expect(res.headers.get('content-type'), ctx).toBe(JSON_TYPE);
  expect(res.headers.get('x-request-id'), ctx).toBeTruthy();
  return res.body;
}

/** The §2.5 methods of an `Allow` (or `Access-Control-Allow-Methods`) header, in header order. */
export function contractMethods(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter((m) => METHOD_ORDER.includes(m));
}

export type Caller = 'anonymous' | Role;
export const ROLES: Role[] = ['member', 'premium', 'contributor', 'moderator', 'administrator'];

/** One signed-in user per role, created once per file. */
export async function usersByRole(server: TestServer): Promise<Record<Role, Record<string, string>>> {
  const entries = await Promise.all(ROLES.map(async (r) => [r, (await server.user(r)).auth] as const));
  return Object.fromEntries(entries) as Record<Role, Record<string, string>>;
}

// ---------------------------------------------------------------------------------------------
// The five taxonomy resources (§3.7) with their write shapes.

export interface TaxonomyKind {
  segment: 'genres' | 'themes' | 'demographics' | 'magazines' | 'producers';
  /** Read shape keys, in order. */
  keys: string[];
  /** Maximum length of `name` in code points. */
  nameMax: number;
  /** Required fields other than `name`. */
  required: Record<string, unknown>;
  /** Optional fields and the value they take when omitted. */
  defaults: Record<string, unknown>;
  /** A value for every optional field that differs from its default. */
  filled: Record<string, unknown>;
  /** Optional `text` fields and their maximum length. */
  texts: Record<string, number>;
  /** Integer counters of the read shape. */
  counters: string[];
  /** `ordering` keys of the list. */
  orderings: string[];
}

const genreLike = {
  keys: ['id', 'name', 'description', 'anime_count', 'manga_count', 'created_at', 'updated_at'],
  nameMax: 50,
  required: {},
  defaults: { description: '' },
  filled: { description: 'First line.\nSecond line.' },
  texts: { description: 1000 },
  counters: ['anime_count', 'manga_count'],
  orderings: ['name', 'anime_count', 'manga_count', 'created_at'],
};

export const KINDS: TaxonomyKind[] = [
  { segment: 'genres', ...genreLike },
  { segment: 'themes', ...genreLike },
  {
    ...genreLike,
    segment: 'demographics',
    keys: ['id', 'name', 'description', 'manga_count', 'created_at', 'updated_at'],
    counters: ['manga_count'],
    orderings: ['name', 'manga_count', 'created_at'],
  },
  {
    segment: 'magazines',
    keys: ['id', 'name', 'manga_count', 'created_at', 'updated_at'],
    nameMax: 255,
    required: {},
    defaults: {},
    filled: {},
    texts: {},
    counters: ['manga_count'],
    orderings: ['name', 'manga_count', 'created_at'],
  },
  {
    segment: 'producers',
    keys: ['id', 'name', 'name_jpn', 'type', 'about', 'established', 'image', 'website', 'anime_count', 'created_at', 'updated_at'],
    nameMax: 255,
    required: { type: 'studio' },
    defaults: { name_jpn: '', about: '', established: null, image: null, website: null },
    filled: {
      name_jpn: 'スタジオ',
      about: 'About the studio.\n\tIndented.',
      established: '1986-06-15',
      image: 'https://img.example.org/logo.png',
      website: 'http://studio.example.org/',
    },
    texts: { about: 5000 },
    counters: ['anime_count'],
    orderings: ['name', 'established', 'anime_count', 'created_at'],
  },
];

export const kind = (segment: TaxonomyKind['segment']): TaxonomyKind => KINDS.find((k) => k.segment === segment)!;

/** A minimal valid write body. */
export function minimal(k: TaxonomyKind, name: string): Record<string, unknown> {
  return { name, ...k.required };
}

/** A write body with every optional field set. */
export function full(k: TaxonomyKind, name: string): Record<string, unknown> {
  return { name, ...k.required, ...k.filled };
}

/** Asserts a record of the read shape: exactly the documented keys, in order. */
export function expectRecord(k: TaxonomyKind, record: any, values: Record<string, unknown> = {}): void {
  expect(Object.keys(record)).toEqual(k.keys);
  expect(record.id).toMatch(ID);
  expect(record.created_at).toMatch(TIMESTAMP);
  expect(record.updated_at).toMatch(TIMESTAMP);
  expect(record.updated_at >= record.created_at).toBe(true);
  for (const c of k.counters) expect(Number.isInteger(record[c]) && record[c] >= 0, c).toBe(true);
  for (const [key, value] of Object.entries(values)) expect(record[key], key).toEqual(value);
}

/** Names unique within a test file. */
let counter = 0;
export function uniqueName(prefix = 'Name'): string {
  counter += 1;
  return `${prefix} ${counter}`;
}

export async function create(server: TestServer, k: TaxonomyKind, auth: Record<string, string>, body: Record<string, unknown>): Promise<any> {
  const res = await send(server, 'POST', `/api/${k.segment}/`, { body, headers: auth });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Every record of a list, following `next` from `path` (checks the envelope of each page, with the keys a list adds, e.g. `year`, `season`). */
export async function walk(server: TestServer, path: string, envelope: readonly string[] = []): Promise<{ results: any[]; pages: Sent[] }> {
  const results: any[] = [];
  const pages: Sent[] = [];
  let url: string | null = path;
  for (let i = 0; url !== null; i++) {
    if (i > 200) throw new Error(`too many pages from ${path}`);
    const res: Sent = await send(server, 'GET', url);
    expect(res.status, `${url}: ${res.text}`).toBe(200);
    expect(Object.keys(res.body)).toEqual(['count', 'next', 'previous', 'results', ...envelope]);
    pages.push(res);
    results.push(...res.body.results);
    url = res.body.next;
  }
  return { results, pages };
}

/** N(s) of §1.6 for the strings these tests use (NFKD, marks removed, case folded, apostrophes removed). */
export function searchKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .replace(/ß|ẞ/g, 'ss')
    .toLowerCase()
    .replace(/['\u2019]/g, '');
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cmpCodePoints = (a: string, b: string) => {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/**
 * The order of §1.6: by the key (text keys by N(value) in code point order), `null` last in both
 * directions, then by id ascending.
 */
export function expectedOrder(records: any[], key: string, descending: boolean): any[] {
  return [...records].sort((a, b) => {
    const va = a[key];
    const vb = b[key];
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else {
      let c = typeof va === 'number' ? va - vb : key === 'name' ? cmpCodePoints(searchKey(va), searchKey(vb)) : cmp(va, vb);
      if (descending) c = -c;
      if (c !== 0) return c;
    }
    return cmp(a.id, b.id);
  });
}
