/**
 * The fuzz test of issue 9 §2: every one of the operations (§2.5's 151 and the 2 extensions of §8) gets requests whose inputs come
 * from the OpenAPI document (`GET /api/schema/`: path, query and body schemas) and from a valid
 * request of the operation (test/support/operations.ts), deliberately broken: wrong types,
 * out-of-range numbers, huge strings, deep nesting, invalid UTF-8 and lone surrogates, duplicate
 * keys, prototype keys, unknown fields, bad path ids, bad query values and cursors, bad content
 * types and Authorization headers — from an anonymous caller, a member acting on their own
 * records and an administrator acting on another member's.
 *
 * Each operation is a fast-check property over such requests (a fixed seed per run). It holds
 * when the response is below 500, every error response is a problem document of API.md §1.4
 * (problems.ts), and a rejected (4xx) request changed nothing in the table: the table's stream
 * (stream-tail.ts) carries no record written while it ran, except the writes the contract
 * requires of a rejected request (FUZZ_EXCLUSIONS). Requests go one at a time, so every stream
 * record belongs to the request that was running; no stream consumer or job may run meanwhile.
 *
 * Used by test/e2e/fuzz.test.ts (a small budget) and `npm run bench -- --only=fuzz` (≥ 20,000
 * requests); nothing here imports the test runner.
 */
import fc from 'fast-check';
import type { Account } from './accounts.js';
import { send, type Sent, type Server } from './http.js';
import { OPERATION_FIXTURES, type Call, type OperationFixture, type Target, type World } from './operations.js';
import { problemDefects } from './problems.js';
import type { Change, StreamTail } from './stream-tail.js';

type Json = Record<string, any>;

/** The support endpoints of §4.22 (not among the operations). */
const SUPPORT_PATHS = new Set(['/api/schema/', '/api/docs/', '/.well-known/jwks.json']);

export interface FuzzOperation {
  /** `METHOD path` as in spec/operations.tsv (the fixture's key). */
  key: string;
  method: string;
  /** Path template of the document (`{id_2}` for a review's id). */
  path: string;
  query: { name: string; schema: Json }[];
  /** The path parameters' schemas, in path order. */
  params: Json[];
  body: { mediaType: string; schema: Json } | null;
  fixture: OperationFixture;
}

/** The operations of the OpenAPI document, each with its request fixture. */
export function fuzzOperations(doc: Json): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    if (SUPPORT_PATHS.has(path)) continue;
    for (const [method, operation] of Object.entries(item as Json)) {
      const key = `${method.toUpperCase()} ${path.replace('{id_2}', '{id}')}`;
      const fixture = OPERATION_FIXTURES.get(key);
      if (!fixture) throw new Error(`no request fixture for ${key}`);
      const content = (operation.requestBody?.content ?? {}) as Json;
      const [mediaType, media] = Object.entries(content)[0] ?? [];
      ops.push({
        key,
        method: method.toUpperCase(),
        path,
        query: ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        params: ((operation.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.schema ?? {}),
        body: mediaType ? { mediaType, schema: resolve(doc, media.schema ?? {}) } : null,
        fixture,
      });
    }
  }
  return ops;
}

/** The schema with `$ref`s into the document resolved (recursively, to a depth). */
function resolve(doc: Json, schema: Json, depth = 0): Json {
  if (depth > 12 || schema === null || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const target = (schema.$ref as string).replace(/^#\//, '').split('/').reduce((o: Json | undefined, k) => o?.[k], doc);
    return resolve(doc, target ?? {}, depth + 1);
  }
  if (Array.isArray(schema)) return schema.map((s) => resolve(doc, s, depth + 1));
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, typeof v === 'object' ? resolve(doc, v, depth + 1) : v]));
}

// ---------------------------------------------------------------------------------------------
// Values: from the schema, and broken ones.

/** A value the JSON schema describes (mostly valid; lengths and sizes kept small). */
export function fromSchema(schema: Json, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => fromSchema({ ...schema, type: t }, depth + 1)));
  switch (type[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringFor(schema);
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      const props = (schema.properties ?? {}) as Json;
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(s as Json, depth + 1)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFor(schema: Json): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 40, 40));
  switch (schema.format) {
    case 'date':
      return fc.date({ min: new Date('1790-01-01'), max: new Date('2110-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc.date({ noInvalidDate: true, min: new Date('1970-01-01'), max: new Date('2100-01-01') }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'binary':
      return fc.string({ maxLength: 20 });
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= Math.max(max, 64));
    } catch {
      // a pattern fast-check cannot generate from: any string
    }
  }
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' });
}

/** Strings that break the rules of §1.2 (control characters, lone surrogates, blanks, …). */
const nastyString = fc.oneof(
  fc.constantFrom('\uD800', 'a\uDFFFb', '\uDBFF\uDBFF', '\u0000', 'tab\there', 'line\nbreak', '\u007F', '\u202Eevil', 'é', 'e\u0301', '𝔸𝔹', '\u2028', '   ', '', '\uFEFF', 'ﬁ', 'İ', 'ß'),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
);

/** A string over the limits: 256, 1,001, 10,001 or 200,001 code points (under the 1 MiB body limit). */
const hugeString = fc.constantFrom(256, 1_001, 10_001, 200_001).chain((n) => fc.constantFrom('x', 'ж', '語', '𝔸').map((c) => c.repeat(n)));

/** Strings that are not what a format field wants. */
const badFormatted = fc.constantFrom(
  '2024-02-30',
  '1899-12-31',
  '2101-01-01',
  '0000-00-00',
  '2024-13-01',
  '2024-1-1',
  '24:00',
  '23:60',
  'Mars/Olympus',
  'javascript:alert(1)',
  'http://user:pw@example.org/',
  'https://',
  'ftp://example.org/',
  'https://a b.example.org/',
  `https://example.org/${'a'.repeat(2100)}`,
  'not an address',
  'a@b',
  `${'a'.repeat(250)}@example.org`,
  'AAAAAAAAAAAAAAAAAAAAAA',
  'x'.repeat(65),
);

/** Nested arrays or objects `depth` deep. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

/** Any value of the wrong type or out of range for a field. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 0.5, 1.005, -1, 0, 11, 101, 5_001, 100_001, 86_401, 4_294_967_296),
  fc.double(),
  nastyString,
  hugeString,
  badFormatted,
  fc.constantFrom('5', 'true', 'null', '[]', '{}'),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
  fc.constantFrom(Array.from({ length: 501 }, (_, i) => `x${i}`), ['a', 'a'], ['recommended', 'not_recommended']),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
  fc.integer({ min: 2, max: 300 }).map((d) => nested(d)),
);

/** Names of fields that are not in any write shape, or must not be written. */
const strangeKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'id', 'created_at', 'updated_at', 'score', 'role', 'is_staff', 'helpful', 'user_id', 'anime_id', 'author', ''),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

// ---------------------------------------------------------------------------------------------
// Plans: what to do to the valid request (pure data, applied when the request is sent).

export type CallerKind = 'anonymous' | 'owner' | 'administrator';

type Mutation =
  | { t: 'schema-body'; value: unknown }
  | { t: 'set'; pick: number; value: unknown }
  | { t: 'drop'; pick: number }
  | { t: 'add'; key: string; value: unknown }
  | { t: 'raw'; kind: RawKind; n: number; value: unknown }
  | { t: 'content-type'; value: string | null }
  | { t: 'path'; pick: number; value: string }
  | { t: 'query'; how: 'set' | 'add' | 'empty' | 'bare'; name: string; value: string }
  | { t: 'auth'; form: number }
  | { t: 'form'; kind: FormKind; n: number; bytes: number[] };

type RawKind = 'duplicate-key' | 'prototype' | 'deep' | 'bad-utf8' | 'not-json' | 'too-large' | 'bom';
type FormKind = 'random-image' | 'no-image' | 'extra-part' | 'no-boundary' | 'truncated' | 'long-name' | 'twice' | 'empty-image';

export interface Plan {
  caller: CallerKind;
  mutations: Mutation[];
}

const NOT_JSON = ['', ' ', '{', '{"a":}', 'null', '[]', '[{}]', '"text"', '1', 'true', 'NaN', '{"a":NaN}', '{"a":Infinity}', "{'a':1}", '{"a":1}{"b":2}', '{"a":1,}', '/*c*/{}', '{"a":"\\x41"}', '{"a":"\\ud800"}', '{"a":1e999999}', '{"a":-}', '\u0000'];
/** Byte sequences that are not UTF-8: a lone continuation byte, an overlong slash, an encoded surrogate, a truncated sequence, bytes never valid. */
const BAD_UTF8 = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xff, 0xfe], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xf4, 0x90, 0x80, 0x80]];
const CONTENT_TYPES = [
  null,
  'text/plain',
  'application/json; charset=iso-8859-1',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=----x',
  'application/json;charset=UTF-8',
  'Application/JSON',
  'application/problem+json',
  'application/json; charset="utf-8"',
  'application/jsonx',
  '*/*',
  'application/json, text/plain',
  ';;;',
  'application/json; charset=utf-8; charset=latin1',
  'image/png',
];
const PATH_VALUES = ['x'.repeat(65), 'AAAAAAAAAAAAAAAAAAAAAA', '%00', '%FF', '%2F', '%2E%2E', '%E2%80%AE', '__proto__', 'constructor', 'me', 'my-profile', 'create', 'null', '0', '-1', '1e3', '%20', 'a%2Fb', '~', '%C0%AF', '%ED%A0%80', '1899', '2101', '20240', 'WINTER', 'winter%00'];
const QUERY_NAMES = ['offset', 'page', 'p', '__proto__', 'constructor', 'toString', 'a[b]', '', 'limit', 'cursor', 'fields', 'ordering', 'q', 'format', 'redirect_uri', 'code', 'state'];
/** Placeholders for cursors taken at run time: a genuine one of another list, and one with a byte changed. */
const FOREIGN_CURSOR = '<foreign cursor>';
const TAMPERED_CURSOR = '<tampered cursor>';
const QUERY_VALUES = [FOREIGN_CURSOR, TAMPERED_CURSOR, '', 'abc', '-1', '0', '101', '1e2', '%D9%A3', '%EF%BC%91', '%FF', '%00', 'x'.repeat(5_000), ',', 'name,-name', '--name', 'Name', 'id,nope', 'true', 'TRUE', '1.001', '10.5', '2100', '1899', 'eyJ4IjoxfQ', 'AAAA', '%E2%80%AE'];
/** Authorization headers that are not a valid access token (from the caller's token `t`). */
const AUTH_FORMS: ((t: string) => string)[] = [
  () => 'Bearer',
  () => 'Bearer ',
  () => 'Basic dXNlcjpwYXNz',
  () => 'Bearer a.b.c',
  () => 'JWT',
  (t) => `Bearer ${t}x`,
  (t) => `Bearer ${t.slice(0, 20)}${t[20] === 'A' ? 'B' : 'A'}${t.slice(21)}`,
  (t) => `Bearer ${t} ${t}`,
  (t) => `Token ${t}`,
  () => `Bearer ${'A'.repeat(8_000)}`,
  (t) => `Bearer ${t.split('.').slice(0, 2).join('.')}.`,
  (t) => `bearer   ${t}`,
  (t) => `JWT ${t}`,
];

/** Values a query parameter's schema allows, as they would appear in a query string. */
function queryValue(schema: Json): fc.Arbitrary<string> {
  const fromDescription = /(?:One of|keys to return:) ([^;.]+)/.exec(String(schema.description ?? ''))?.[1];
  const keys = fromDescription ? fromDescription.split(',').map((k) => k.trim()).filter(Boolean) : [];
  const valid = keys.length > 0 ? fc.constantFrom(...keys, ...keys.map((k) => `-${k}`)) : fromSchema(schema).map((v) => String(v));
  return fc.oneof(valid.map(encodeValue), fc.constantFrom(...QUERY_VALUES), nastyString.map(encodeValue));
}

/** Percent-encodes every byte outside the unreserved set (UTF-8; a lone surrogate becomes U+FFFD). */
export function encodeValue(s: string): string {
  return [...Buffer.from(s, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** The plans of one operation: a caller and one to three mutations. */
export function planArbitrary(op: FuzzOperation): fc.Arbitrary<Plan> {
  const pathParams = (op.path.match(/\{[a-z_0-9]+\}/g) ?? []).length;
  const json = op.body?.mediaType === 'application/json';
  const multipart = op.body?.mediaType === 'multipart/form-data';
  const options: fc.WeightedArbitrary<Mutation>[] = [
    { weight: 2, arbitrary: fc.record({ t: fc.constant('content-type' as const), value: fc.constantFrom(...CONTENT_TYPES) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('auth' as const), form: fc.nat(AUTH_FORMS.length - 1) }) },
    {
      weight: op.query.length > 0 ? 4 : 1,
      arbitrary: fc.oneof(
        ...(op.query.length > 0 ? [fc.constantFrom(...op.query).chain((q) => fc.record({ t: fc.constant('query' as const), how: fc.constantFrom('set' as const, 'add' as const, 'empty' as const, 'bare' as const), name: fc.constant(q.name), value: queryValue(q.schema) }))] : []),
        fc.record({ t: fc.constant('query' as const), how: fc.constantFrom('set' as const, 'add' as const, 'bare' as const), name: fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ maxLength: 8 }).map(encodeValue)), value: fc.constantFrom(...QUERY_VALUES) }),
      ),
    },
  ];
  if (pathParams > 0) {
    options.push({
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant('path' as const),
        pick: fc.nat(pathParams - 1),
        // Values of the parameters' schemas (well-formed ids of nothing, other years and seasons), and broken ones.
        value: fc.oneof(...op.params.map((schema) => fromSchema(schema).map((v) => encodeValue(String(v)))), fc.constantFrom(...PATH_VALUES, 'KIND-CONFUSED'), fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeValue)),
      }),
    });
  }
  if (json || op.method !== 'GET') {
    const schemaBody = op.body && json ? fromSchema(op.body.schema) : fc.jsonValue({ maxDepth: 2 });
    options.push(
      { weight: 4, arbitrary: fc.record({ t: fc.constant('schema-body' as const), value: schemaBody }) },
      { weight: 5, arbitrary: fc.record({ t: fc.constant('set' as const), pick: fc.nat(), value: badValue }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('drop' as const), pick: fc.nat() }) },
      { weight: 2, arbitrary: fc.record({ t: fc.constant('add' as const), key: strangeKey, value: fc.oneof(badValue, fc.constant({ role: 'administrator' })) }) },
      {
        weight: 4,
        arbitrary: fc.record({
          t: fc.constant('raw' as const),
          kind: fc.constantFrom<RawKind>('duplicate-key', 'prototype', 'deep', 'bad-utf8', 'not-json', 'too-large', 'bom'),
          n: fc.nat(),
          value: badValue,
        }),
      },
    );
  }
  if (multipart) {
    options.push({
      weight: 6,
      arbitrary: fc.record({
        t: fc.constant('form' as const),
        kind: fc.constantFrom<FormKind>('random-image', 'no-image', 'extra-part', 'no-boundary', 'truncated', 'long-name', 'twice', 'empty-image'),
        n: fc.nat(),
        bytes: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 64 }),
      }),
    });
  }
  return fc.record({
    caller: fc.constantFrom<CallerKind>('anonymous', 'owner', 'administrator', 'owner', 'administrator'),
    mutations: fc.array(fc.oneof(...options), { minLength: 1, maxLength: 3 }),
  });
}

// ---------------------------------------------------------------------------------------------
// Applying a plan to a valid request.

interface Draft {
  method: string;
  segments: string[];
  query: [string, string | null][];
  headers: Record<string, string>;
  /** A JSON value to serialise, raw bytes, or nothing. */
  body: { json: unknown } | { bytes: Buffer } | null;
  contentType: string | null;
}

/** Paths into a JSON value where a field or element can be set or removed (objects' keys, arrays' indexes). */
function slots(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = [], depth = 0): (string | number)[][] {
  if (depth > 4 || value === null || typeof value !== 'object') return out;
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) {
    out.push([...prefix, k]);
    slots(v, [...prefix, k], out, depth + 1);
  }
  return out;
}

/** Sets an own property (never the prototype, even for `__proto__`). */
function define(target: object, key: string | number, value: unknown): void {
  if (Array.isArray(target) && typeof key === 'number') target[key] = value;
  else Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

function at(root: unknown, path: (string | number)[]): unknown {
  return path.reduce((o: any, k) => (o === null || typeof o !== 'object' ? undefined : o[k]), root);
}

function serialise(draft: Draft): Buffer | undefined {
  if (!draft.body) return undefined;
  if ('bytes' in draft.body) return draft.body.bytes;
  return Buffer.from(JSON.stringify(draft.body.json) ?? 'null', 'utf8');
}

const FORM_BOUNDARY = '----fuzz-boundary-7MA4YWxk';

/** A multipart body of these parts (name → text or file bytes). */
function form(parts: [string, string | Buffer, string?][], boundary = FORM_BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, value, filename] of parts) {
    const file = Buffer.isBuffer(value);
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${filename ?? 'f.png'}"\r\nContent-Type: image/png` : ''}\r\n\r\n`), Buffer.isBuffer(value) ? value : Buffer.from(value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** What a mutation may need besides the draft: the caller's token, an id of another kind, the path value positions, the valid request. */
interface ApplyContext {
  token: string | null;
  /** A genuine cursor of another list (`GET /api/genres/?limit=1`'s `next`). */
  cursor: string;
  confusedId: string;
  holes: number[];
  template: Call;
}

function apply(draft: Draft, original: Mutation, ctx: ApplyContext): void {
  // Generated values may be shared between runs (constants): the body gets a copy of its own.
  const m = structuredClone(original);
  const json = () => (draft.body && 'json' in draft.body ? draft.body.json : (draft.body = { json: {} }).json);
  switch (m.t) {
    case 'schema-body':
      draft.body = { json: m.value };
      break;
    case 'set': {
      const root = json();
      const all = slots(root);
      if (all.length === 0 || root === null || typeof root !== 'object') {
        draft.body = { json: m.value };
        break;
      }
      const path = all[m.pick % all.length]!;
      define(at(root, path.slice(0, -1)) as object, path.at(-1)!, m.value);
      break;
    }
    case 'drop': {
      const root = json();
      const all = slots(root);
      if (all.length === 0) break;
      const path = all[m.pick % all.length]!;
      const parent = at(root, path.slice(0, -1)) as any;
      if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
      else delete parent[path.at(-1)!];
      break;
    }
    case 'add': {
      const root = json();
      if (root !== null && typeof root === 'object' && !Array.isArray(root)) define(root, m.key, m.value);
      else draft.body = { json: { [m.key]: m.value } };
      break;
    }
    case 'raw': {
      const text = serialise(draft)?.toString('utf8') ?? '{}';
      const inner = text.startsWith('{') && text.length > 2 ? text.slice(1) : '}';
      const firstKey = /^\{"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ?? 'name';
      const raw: Record<RawKind, () => Buffer> = {
        'duplicate-key': () => Buffer.from(`{"${firstKey}":${JSON.stringify(m.value) ?? 'null'},${inner}`),
        prototype: () => Buffer.from([`{"__proto__":{"role":"administrator","is_staff":true},${inner}`, `{"constructor":{"prototype":{"polluted":true}},${inner}`, `{"__proto__":null,${inner}`, '{"__proto__":[]}'][m.n % 4]!),
        deep: () => {
          const depth = [64, 1_000, 20_000, 200_000][m.n % 4]!;
          return Buffer.from(m.n % 2 === 0 ? `{"${firstKey}":${'['.repeat(depth)}${']'.repeat(depth)}}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
        },
        'bad-utf8': () => {
          const bytes = Buffer.from(text, 'utf8');
          const at = bytes.indexOf('":"');
          const bad = Buffer.from(BAD_UTF8[m.n % BAD_UTF8.length]!);
          return at < 0 ? Buffer.concat([Buffer.from('{"name":"'), bad, Buffer.from('"}')]) : Buffer.concat([bytes.subarray(0, at + 3), bad, bytes.subarray(at + 3)]);
        },
        'not-json': () => Buffer.from(NOT_JSON[m.n % NOT_JSON.length]!, 'utf8'),
        'too-large': () => Buffer.from(`{"${firstKey}":"${'x'.repeat(1_048_576 + (m.n % 3) - 1 - firstKey.length - 6)}"}`),
        bom: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
      };
      draft.body = { bytes: raw[m.kind]() };
      break;
    }
    case 'content-type':
      draft.contentType = m.value;
      break;
    case 'path': {
      if (ctx.holes.length === 0) break;
      draft.segments[ctx.holes[m.pick % ctx.holes.length]!] = m.value === 'KIND-CONFUSED' ? ctx.confusedId : m.value;
      break;
    }
    case 'query': {
      if (m.how === 'set') draft.query = draft.query.filter(([k]) => k !== m.name);
      const value = m.value === FOREIGN_CURSOR ? ctx.cursor : m.value === TAMPERED_CURSOR ? tampered(ctx.cursor) : m.value;
      draft.query.push([m.name, m.how === 'empty' ? '' : m.how === 'bare' ? null : value]);
      break;
    }
    case 'auth':
      draft.headers.authorization = AUTH_FORMS[m.form]!(ctx.token ?? 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln');
      break;
    case 'form': {
      const png = draft.body && 'bytes' in draft.body ? draft.body.bytes : Buffer.alloc(0);
      const bytes = Buffer.from(m.bytes);
      const parts: Record<FormKind, () => void> = {
        'random-image': () => {
          draft.body = { bytes: form([['image', Buffer.concat([[Buffer.alloc(0), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('RIFF\0\0\0\0WEBP')][m.n % 4]!, bytes])]]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
        'no-image': () => {
          draft.body = { bytes: form([['name', 'just a name']]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
        'extra-part': () => {
          draft.body = { bytes: form([['image', ctx.template.form?.bytes ?? bytes], ['__proto__', 'x'], ['other', 'y']]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
        'no-boundary': () => {
          draft.contentType = 'multipart/form-data';
        },
        truncated: () => {
          draft.body = { bytes: png.subarray(0, Math.max(0, png.length - 1 - (m.n % Math.max(1, png.length)))) };
        },
        'long-name': () => {
          draft.body = { bytes: form([['image', ctx.template.form ? extractFile(ctx.template.form.bytes) : bytes], ['name', 'n'.repeat(101 + (m.n % 1000))]]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
        twice: () => {
          const file = ctx.template.form ? extractFile(ctx.template.form.bytes) : bytes;
          draft.body = { bytes: form([['image', file], ['image', file]]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
        'empty-image': () => {
          draft.body = { bytes: form([['image', Buffer.alloc(0)]]) };
          draft.contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`;
        },
      };
      parts[m.kind]();
      break;
    }
  }
}

/** A cursor with one character changed (its signature no longer matches). */
function tampered(cursor: string): string {
  const i = Math.floor(cursor.length / 2);
  return `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
}

/** The file part's bytes of a multipart body made by test/support/multipart.ts (its first part). */
function extractFile(body: Buffer): Buffer {
  const start = body.indexOf('\r\n\r\n') + 4;
  const end = body.indexOf('\r\n--', start);
  return body.subarray(start, end);
}

// ---------------------------------------------------------------------------------------------
// Running.

/**
 * Writes a rejected request makes because the contract requires them (the store check leaves
 * them out; docs/decisions.md F-entries):
 * - a social sign-in's state is consumed by the first POST that presents it, whatever the
 *   outcome (§4.17 step 1);
 * - presenting a spent refresh token revokes its family (§2.2 reuse detection).
 */
export const FUZZ_EXCLUSIONS: { operation: string; what: string; matches: (c: Change) => boolean }[] = [
  { operation: 'POST /api/socials/o/{provider}/', what: 'the sign-in state it presented, consumed (REMOVE SOCIAL#STATE#…)', matches: (c) => c.event === 'REMOVE' && c.pk.startsWith('SOCIAL#STATE#') },
  { operation: 'POST /api/tokens/jwt/refresh/', what: "the token family's revocation in the user's auth state (MODIFY AUTH#…)", matches: (c) => c.event === 'MODIFY' && c.pk.startsWith('AUTH#') },
];

export interface FuzzFailure {
  operation: string;
  /** The request and what was wrong with its response. */
  problem: string;
  /** fast-check's replay: `FUZZ_SEED=<seed> FUZZ_OPS=<operation>` and this path. */
  seed: number;
  path: string | null;
}

export interface FuzzReport {
  seed: number;
  operations: number;
  requests: number;
  seconds: number;
  /** Responses by status. */
  statuses: Map<number, number>;
  /** Rejected requests whose stream check ran (all of them). */
  rejected: number;
  /** Stream records left out as required by the contract (FUZZ_EXCLUSIONS), by operation. */
  excluded: Map<string, number>;
  failures: FuzzFailure[];
}

export interface FuzzOptions {
  server: Server;
  world: World;
  /** The OpenAPI document (GET /api/schema/). */
  doc: Json;
  stream: StreamTail;
  seed: number;
  /** Requests per operation (fast-check runs of its property). */
  runs: number;
  /** Only these operations (`METHOD path`). */
  only?: readonly string[];
  /** Progress lines. */
  log?: (line: string) => void;
}

const describe = (draft: Draft, bytes: Buffer | undefined) => {
  const query = draft.query.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&');
  const body = bytes === undefined ? '' : ` body(${bytes.length} B)=${bytes.subarray(0, 200).toString('utf8')}${bytes.length > 200 ? '…' : ''}`;
  return `${draft.method} ${draft.segments.join('/')}${query ? `?${query.slice(0, 200)}` : ''} [content-type: ${draft.contentType ?? 'none'}; authorization: ${(draft.headers.authorization ?? 'none').slice(0, 40)}]${body}`;
};

/** Runs the property of every operation; never throws for a failing request (it is reported). */
export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const { server, world, stream } = opts;
  const ops = fuzzOperations(opts.doc).filter((o) => !opts.only || opts.only.includes(o.key));
  const report: FuzzReport = { seed: opts.seed, operations: ops.length, requests: 0, seconds: 0, statuses: new Map(), rejected: 0, excluded: new Map(), failures: [] };
  const callers: Record<Exclude<CallerKind, 'anonymous'>, Account> = { owner: await world.account('member'), administrator: await world.account('administrator') };
  const anotherKind = { animes: await world.record('genres'), other: await world.record('animes') };
  const cursor = await world.foreignCursor();
  const started = Date.now();

  for (const [index, op] of ops.entries()) {
    const holes = op.path.split('/').flatMap((s, i) => (s.startsWith('{') ? [i] : []));
    /** Valid requests by caller kind; dropped when a request used up their record or caller. */
    const templates = new Map<CallerKind, Call>();
    /** Something was written since the stream was last read (a template built, a caller made). */
    let wrote = true;
    const template = async (kind: CallerKind): Promise<Call> => {
      let t = templates.get(kind);
      if (!t) {
        wrote = true;
        const caller = kind === 'anonymous' ? null : callers[kind];
        const target: Target = kind === 'owner' ? 'own' : 'other';
        t = await op.fixture.build({ world, caller, target, fresh: op.method !== 'GET' });
        templates.set(kind, t);
      }
      return t;
    };
    const seed = opts.seed + index;
    const property = fc.asyncProperty(planArbitrary(op), async (plan) => {
      const base = await template(plan.caller);
      const account = plan.caller === 'anonymous' ? null : callers[plan.caller];
      const [pathname, search] = base.path.split('?');
      const draft: Draft = {
        method: base.method,
        segments: pathname!.split('/'),
        query: search ? search.split('&').map((kv) => (kv.includes('=') ? [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] : [kv, null])) : [],
        headers: account ? { ...account.auth } : {},
        body: base.form ? { bytes: base.form.bytes } : base.body === undefined ? null : { json: structuredClone(base.body) },
        contentType: base.form ? base.form.contentType : base.body === undefined ? null : 'application/json',
      };
      const confusedId = pathname!.startsWith('/api/animes/') ? anotherKind.animes : anotherKind.other;
      for (const m of plan.mutations) apply(draft, m, { token: account?.token ?? null, cursor, confusedId, holes, template: base });
      const bytes = serialise(draft);
      const headers = { ...draft.headers, ...(draft.contentType === null ? {} : { 'content-type': draft.contentType }) };
      const query = draft.query.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join('&');
      // As the client sends it (dot segments, `%2E%2E` included, resolved): the `instance` to expect.
      const url = new URL(`${draft.segments.join('/')}${query ? `?${query}` : ''}`, server.url);
      const path = `${url.pathname}${url.search}`;

      if (wrote) await stream.take(); // what building the template wrote
      wrote = false;
      let res: Sent;
      try {
        res = await send(server, draft.method, path, { headers, ...(bytes === undefined ? {} : { raw: bytes }) });
      } catch (err) {
        throw new Error(`${describe(draft, bytes)} → no response: ${(err as Error).message}`);
      }
      report.requests += 1;
      report.statuses.set(res.status, (report.statuses.get(res.status) ?? 0) + 1);
      const changes = await stream.take();
      const fail = (problem: string) => {
        throw new Error(`${describe(draft, bytes)} → ${res.status}: ${problem}`);
      };
      if (res.status >= 500) fail(`a server error: ${res.text.slice(0, 300)}`);
      if (res.status >= 400) {
        report.rejected += 1;
        const defects = problemDefects(res);
        if (defects.length > 0) fail(`not a problem document of §1.4: ${defects.join('; ')}; ${res.text.slice(0, 200)}`);
        const allowed = FUZZ_EXCLUSIONS.filter((e) => e.operation === op.key);
        const unexpected = changes.filter((c) => !allowed.some((e) => e.matches(c)));
        const excused = changes.length - unexpected.length;
        if (excused > 0) report.excluded.set(op.key, (report.excluded.get(op.key) ?? 0) + excused);
        if (unexpected.length > 0) fail(`a rejected request changed the store: ${unexpected.map((c) => `${c.event} ${c.pk} ${c.sk}`).join(', ')}`);
      } else {
        // A success may have used up what the template names (a record deleted, a token spent,
        // the caller deleted or signed out): the next request gets a new one.
        templates.delete(plan.caller);
        if (op.fixture.consumesCaller && plan.caller !== 'anonymous') {
          if (op.fixture.consumesCaller === 'always' || plan.caller === 'owner') {
            callers[plan.caller] = await world.account(plan.caller === 'owner' ? 'member' : 'administrator');
            wrote = true;
            templates.clear();
          }
        }
      }
      // A social sign-in's state is spent by any POST that presents it.
      if (op.key === 'POST /api/socials/o/{provider}/') templates.delete(plan.caller);
    });
    const out = await fc.check(property, { seed, numRuns: opts.runs, endOnFailure: true });
    if (out.failed) {
      const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
      report.failures.push({ operation: op.key, problem: error, seed, path: out.counterexamplePath });
      opts.log?.(`✗ ${op.key}: ${error}`);
    }
    if ((index + 1) % 25 === 0) opts.log?.(`${index + 1}/${ops.length} operations, ${report.requests} requests, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}
