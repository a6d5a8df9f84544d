/**
 * Names a client chooses that are also members of Object.prototype (`__proto__`, `constructor`,
 * `toString`, …): they are ordinary keys in `errors`, query parameters and headers, and never
 * find anything in a lookup table (docs/decisions.md, decision 66).
 */
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { gatewayEvents } from '../../infra/local/functions.js';
import { SOCIAL_ENV, socialProvider } from '../../shared/auth/social.js';
import { listRecords } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { issuesToErrors } from '../../shared/domain/fields.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { listQuery } from '../../shared/http/crud-routes.js';
import { addError, fieldErrors, problemBody, validationError } from '../../shared/problem.js';
import { parseSetting } from '../../shared/http/rate-limits.js';
import { projectFields } from '../../shared/http/represent.js';
import { lowerCaseHeaders, parseQuery } from '../../shared/http/request.js';
import { thrown } from '../support/errors.js';

const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

/** `errors` as a client reads it: the problem body serialised and parsed again. */
const wireErrors = (errors: Record<string, string[]>) =>
  JSON.parse(JSON.stringify(problemBody(validationError(errors), '/x/', 'r'))).errors as Record<string, string[]>;


describe('fieldErrors and addError', () => {
  it.each(KEYS)('%s is an own key, serialised in the problem body', (key) => {
    const errors = fieldErrors();
    addError(errors, key, 'Unknown field.');
    addError(errors, key, 'Unknown field.');
    addError(errors, key, 'Other.');
    expect(Object.keys(errors)).toEqual([key]);
    expect(Object.getPrototypeOf(errors)).toBeNull();
    expect(wireErrors(errors)).toEqual(JSON.parse(`{"${key}": ["Unknown field.", "Other."]}`));
    expect(Object.hasOwn(wireErrors(errors), key)).toBe(true);
  });
});

describe('issuesToErrors', () => {
  const schema = z.strictObject({ name: z.string(), nested: z.optional(z.strictObject({ a: z.number() })) });

  it.each(KEYS)('an unknown field %s, at the top and nested', (key) => {
    const body = JSON.parse(`{"name": "x", "${key}": 1, "nested": {"a": 1, "${key}": {"${key}": 1}}}`);
    const out = schema.safeParse(body, { reportInput: true });
    expect(out.success).toBe(false);
    const errors = wireErrors(issuesToErrors(out.error!.issues));
    expect(Object.keys(errors).sort()).toEqual([key, `nested.${key}`].sort());
    expect(errors[key]).toEqual(['Unknown field.']);
  });
});

describe('parseQuery', () => {
  const allowed = new Set(['q', 'ordering']);

  it.each(KEYS)('%s is an unknown parameter (alone, repeated, beside known ones)', (key) => {
    for (const raw of [`${key}=x`, `${key}=x&${key}=y`, `q=a&${key}=&ordering=name`, `${encodeURIComponent(key)}`]) {
      const e = thrown(() => parseQuery(raw, allowed));
      expect(e.type, raw).toBe('invalid-query');
      expect(Object.keys(e.extras.errors!), raw).toEqual([key]);
      expect(wireErrors(e.extras.errors!)[key], raw).toEqual(['Unknown query parameter.']);
    }
  });

  it('an allowed parameter named constructor is not taken for a repeat', () => {
    expect(parseQuery('constructor=1', new Set(['constructor'])).values).toEqual({ constructor: '1' });
  });
});

describe('lowerCaseHeaders', () => {
  it('keeps every header, in an object without a prototype', () => {
    const headers = lowerCaseHeaders(JSON.parse('{"__proto__": "a", "Constructor": "b", "toString": "c", "Host": "h"}'));
    expect(Object.keys(headers).sort()).toEqual(['__proto__', 'constructor', 'host', 'tostring']);
    expect(Object.hasOwn(headers, '__proto__')).toBe(true);
    expect(headers.constructor).toBe('b');
    expect(Object.getPrototypeOf(headers)).toBeNull();
  });
});

describe('lookups by client values', () => {
  const query = listQuery(genres);

  it.each(KEYS)('%s is no ordering and no field', (key) => {
    expect(query.safeParse({ ordering: key }).success).toBe(false);
    expect(query.safeParse({ ordering: `-${key}` }).success).toBe(false);
    expect(projectFields({ id: 'i', name: 'n' }, [key])).toEqual({ id: 'i' });
  });

  it.each(KEYS)('listRecords refuses the ordering %s before reading anything', async (key) => {
    await expect(listRecords(genreEntity, { ordering: key, descending: false, limit: 1, cursor: null })).rejects.toThrow(/unknown ordering/);
  });

  it.each(KEYS)('RATE_LIMITS: "%s.ip" names no limit', (key) => {
    expect(() => parseSetting(`{"${key}.ip": {"limit": 1}}`)).toThrow(/names no limit/);
  });

  it('a provider named like a prototype member is not configured', () => {
    vi.stubEnv(
      SOCIAL_ENV.providers,
      JSON.stringify([{ name: 'idp', kind: 'oidc', issuer: 'https://idp.example.org', client_id: 'c', redirect_uris: ['https://app.example.org/cb'] }]),
    );
    try {
      expect(socialProvider('idp')?.name).toBe('idp');
      for (const key of KEYS) expect(socialProvider(key), key).toBeNull();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('the local gateway’s events', () => {
  it('query parameters and headers named like prototype members are own properties', () => {
    const { event } = gatewayEvents({
      method: 'GET',
      url: '/api/genres/?__proto__=a&constructor=b&constructor=c&toString=d',
      headers: JSON.parse('{"__proto__": "x", "constructor": "y"}'),
      body: Buffer.alloc(0),
      sourceIp: '127.0.0.1',
      route: { method: 'GET', path: '/api/genres/' },
      params: {},
    });
    const query = event.queryStringParameters as Record<string, string>;
    expect(Object.keys(query)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.hasOwn(query, '__proto__')).toBe(true);
    expect(query.constructor).toBe('b,c');
    expect(event.rawQueryString).toBe('__proto__=a&constructor=b&constructor=c&toString=d');
    expect(Object.keys(event.headers!)).toEqual(['__proto__', 'constructor']);
  });
});
