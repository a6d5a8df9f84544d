/**
 * End-to-end assertions written from the contract (API.md), not from the implementation:
 * problem documents (§1.4), record shapes of the five taxonomy resources (§3.7), and helpers
 * to send raw bodies, walk pages and compute expected orders.
 */
import { expect } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { send, type Sent } from './http.js';
import { PROBLEM_TYPES, problemDefects, type ProblemKind } from './problems.js';
import type { TestServer } from './server.js';

export { relative, send, type SendOptions, type Sent } from './http.js';
export { PROBLEM_TYPE, PROBLEM_TYPES, type ProblemKind } from './problems.js';

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const ID = /^[A-Za-z0-9_-]{1,64}$/;
export const JSON_TYPE = 'application/json; charset=utf-8';
export const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Asserts the problem document of §1.4 (problems.ts) with this status and type, and returns its body. */
export function expectProblem(res: Sent, status: number, type: ProblemKind): any {
  const ctx = `${res.method} ${res.path} → ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, ctx).toBe(status);
  expect(PROBLEM_TYPES[type][0]).toBe(status);
  expect(res.body?.type, ctx).toBe(`urn:problem:${type}`);
  expect(problemDefects(res), ctx).toEqual([]);
  return res.body;
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

/** Genres and themes also have `explicit` (API.md §8.3). */
const explicitLike = {
  ...genreLike,
  keys: ['id', 'name', 'description', 'explicit', 'anime_count', 'manga_count', 'created_at', 'updated_at'],
  defaults: { description: '', explicit: false },
  filled: { description: 'First line.\nSecond line.', explicit: true },
};

export const KINDS: TaxonomyKind[] = [
  { segment: 'genres', ...explicitLike },
  { segment: 'themes', ...explicitLike },
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
