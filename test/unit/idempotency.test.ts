/**
 * The Idempotency-Key's form (API.md §8.7: 1–255 visible ASCII characters, else 400), what a
 * request is fingerprinted by (method, path and query string, body; a multipart body whatever
 * its boundary), the scopes of callers and keys, and the stored answer sealed under its key
 * (shared/http/idempotency.ts, shared/db/idempotency.ts).
 */
import { describe, expect, it } from 'vitest';
import { routes as genres } from '../../functions/genres/routes.js';
import { routes as persons } from '../../functions/persons/routes.js';
import { completionPlan, idempotencyScope, openOutcome } from '../../shared/db/idempotency.js';
import { checkIdempotencyKey, requestFingerprint } from '../../shared/http/idempotency.js';
import type { ApiEvent } from '../../shared/http/observe.js';
import { formData } from '../support/multipart.js';
import { thrown } from '../support/errors.js';

describe('checkIdempotencyKey', () => {
  it('takes 1–255 visible ASCII characters, and no header at all', () => {
    for (const ok of [undefined, 'a', '0', '~'.repeat(255), '!"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~', '9f1c2a4e-6b1d-4c8e-9d0a-3f2b1c4d5e6f']) {
      expect(() => checkIdempotencyKey(ok), String(ok)).not.toThrow();
    }
  });

  it('anything else → 400 malformed-request naming the header', () => {
    for (const bad of ['', ' ', 'a b', 'x'.repeat(256), 'tab\there', 'caf\u00e9', '\u0000', 'new\nline', '\u007f', 'ü'.repeat(10)]) {
      const e = thrown(() => checkIdempotencyKey(bad));
      expect(e.type, JSON.stringify(bad)).toBe('malformed-request');
      expect(e.message).toMatch(/Idempotency-Key/);
    }
  });
});

const event = (method: string, path: string, body: Buffer, query = '', base64 = false): ApiEvent => ({
  rawPath: path,
  rawQueryString: query,
  body: base64 ? body.toString('base64') : body.toString('utf8'),
  isBase64Encoded: base64,
  requestContext: { http: { method } },
});

describe('requestFingerprint', () => {
  const scope = idempotencyScope('user:u1', 'key-1');
  const json = (body: unknown, path = '/api/genres/', query = '') => requestFingerprint(scope, genres.create, event('POST', path, Buffer.from(JSON.stringify(body)), query), 'application/json');

  it('the same request has the same fingerprint; another path, query string, body or method another', () => {
    const fp = json({ name: 'Isekai' });
    expect(json({ name: 'Isekai' })).toBe(fp);
    expect(json({ name: 'Isekai ' })).not.toBe(fp);
    expect(json({ name: 'Isekai' }, '/api/themes/')).not.toBe(fp);
    expect(json({ name: 'Isekai' }, '/api/genres/', 'code=x')).not.toBe(fp);
    expect(requestFingerprint(scope, genres.create, event('PUT', '/api/genres/', Buffer.from('{"name":"Isekai"}')), 'application/json')).not.toBe(fp);
    // The body's bytes, whether API Gateway passed them as text or base64.
    expect(requestFingerprint(scope, genres.create, event('POST', '/api/genres/', Buffer.from('{"name":"Isekai"}'), '', true), 'application/json')).toBe(fp);
    // Keyed: another caller's or another key's fingerprint of the same request differs (nothing in the table can be checked against a guessed body).
    expect(requestFingerprint(idempotencyScope('user:u2', 'key-1'), genres.create, event('POST', '/api/genres/', Buffer.from('{"name":"Isekai"}')), 'application/json')).not.toBe(fp);
    expect(requestFingerprint(idempotencyScope('user:u1', 'key-2'), genres.create, event('POST', '/api/genres/', Buffer.from('{"name":"Isekai"}')), 'application/json')).not.toBe(fp);
  });

  it('a multipart body is the same form whatever its boundary, and another form otherwise', () => {
    const image = { name: 'image', filename: 'a.png', type: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]) };
    const upload = (boundary: string, name = 'Portrait', quoted = false) => {
      const { body, contentType } = formData([image, { name: 'name', value: name }], boundary);
      const type = quoted ? contentType.replace(`boundary=${boundary}`, `boundary="${boundary}"`) : contentType;
      return requestFingerprint(scope, persons.createPicture, event('POST', '/api/persons/p1/create-picture/', body, '', true), type);
    };
    const fp = upload('----a1');
    expect(upload('----formdata-undici-0123456789')).toBe(fp);
    expect(upload('xyz', 'Portrait', true)).toBe(fp);
    expect(upload('----a1', 'Other')).not.toBe(fp);
  });
});

describe('idempotencyScope and the stored answer', () => {
  it('keys items by caller and key (hashed: neither appears in the key)', () => {
    const a = idempotencyScope('user:u1', 'k');
    expect(a.key.sk).toBe('I');
    expect(a.key.pk).toMatch(/^IDEM#[A-Za-z0-9_-]{43}$/);
    expect(idempotencyScope('user:u1', 'k').key).toEqual(a.key);
    expect(idempotencyScope('user:u2', 'k').key).not.toEqual(a.key);
    expect(idempotencyScope('ip:203.0.113.9', 'k').key).not.toEqual(a.key);
    expect(idempotencyScope('user:u1', 'k2').key).not.toEqual(a.key);
  });

  it('an answer is stored sealed, and opens only with the key that stored it', () => {
    const scope = idempotencyScope('ip:203.0.113.9', 'the key');
    const payload = { reply: { status: 201, headers: { location: 'https://api.example.org/api/users/u1/' }, body: { access: 'eyJ.secret.token', refresh: 'eyJ.other.token' } } };
    const plan = completionPlan({ scope, fp: 'fp', lease: 'lease-1' }, { status: 201, payload }, 1_700_000_000_000);
    const put = (plan.items[0] as { Put: { Item: Record<string, unknown>; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } }).Put;
    expect(put.ConditionExpression).toBe('#lease = :lease');
    expect(put.ExpressionAttributeValues).toEqual({ ':lease': 'lease-1' });
    expect(put.Item).toMatchObject({ ...scope.key, fp: 'fp', state: 'done', status: 201, expires_at: 1_700_000_000 + 86_400 });
    const sealed = Buffer.from(put.Item.sealed as Uint8Array);
    expect(sealed.includes('eyJ.secret.token')).toBe(false);
    expect(JSON.stringify(put.Item)).not.toContain('secret');
    expect(openOutcome(scope, put.Item)).toEqual({ status: 201, payload });
    expect(() => openOutcome(idempotencyScope('ip:203.0.113.9', 'another key'), put.Item)).toThrow();
    // Bound to its status: an item whose status was changed does not open.
    expect(() => openOutcome(scope, { ...put.Item, status: 400 })).toThrow();
  });
});
