/**
 * Pagination cursors (shared/http/cursor.ts, API.md §1.5): opaque, tamper-evident, bound to the
 * path and every query parameter except `limit`. The HMAC key is read from Secrets Manager
 * (a local endpoint here).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cursor } from '../../shared/db/sort-keys.js';
import { decodeCursor, encodeCursor, queryBinding } from '../../shared/http/cursor.js';
import { HttpError } from '../../shared/problem.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';

const secrets = useSecretsEndpoint();

beforeAll(() => {
  process.env.AWS_REGION = 'us-east-1';
  process.env.CURSOR_SECRET_ID = 'cursor-key';
  secrets.set('cursor-key', 'k'.repeat(43));
});

async function refusal(raw: string, binding: string): Promise<HttpError> {
  try {
    await decodeCursor(raw, binding);
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('the cursor was accepted');
}

const binding = queryBinding('/api/genres/', [['q', 'action'], ['ordering', '-name']]);

describe('cursor round trip', () => {
  it('decodes what it encoded', async () => {
    const cursors: Cursor[] = [
      { d: 'n', k: '1action\u0001AbCdEfGhIjKlMnOpQrStUv' },
      { d: 'p', k: '2\u0001x', i: true },
      { d: 'n', k: '1進撃の巨人 😀\u0001id' },
    ];
    for (const c of cursors) expect(await decodeCursor(await encodeCursor(c, binding), binding)).toEqual(c);
  });

  it('is URL-safe and opaque', async () => {
    const raw = await encodeCursor({ d: 'n', k: '1secret name\u0001id' }, binding);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(raw).not.toContain('secret');
  });

  it('reads the key once and keeps it', async () => {
    const before = secrets.reads('cursor-key');
    for (let i = 0; i < 5; i++) await encodeCursor({ d: 'n', k: String(i) }, binding);
    expect(secrets.reads('cursor-key') - before).toBeLessThanOrEqual(1);
  });
});

describe('tampering', () => {
  it('an altered payload is refused', async () => {
    const raw = await encodeCursor({ d: 'n', k: '1abc\u0001id' }, binding);
    const [payload, sig] = raw.split('.') as [string, string];
    // Re-encode a different position with the old signature.
    const forged = Buffer.from(JSON.stringify({ d: 'n', k: '1abd\u0001id', b: binding })).toString('base64url');
    const e = await refusal(`${forged}.${sig}`, binding);
    expect(e.type).toBe('invalid-query');
    expect(e.extras.errors).toHaveProperty('cursor');
    // Flip one character of the payload.
    const flipped = payload.slice(0, 3) + (payload[3] === 'A' ? 'B' : 'A') + payload.slice(4);
    expect((await refusal(`${flipped}.${sig}`, binding)).type).toBe('invalid-query');
  });

  it('an altered or truncated signature is refused', async () => {
    const raw = await encodeCursor({ d: 'p', k: 'x' }, binding);
    const last = raw.at(-1) === 'A' ? 'B' : 'A';
    expect((await refusal(raw.slice(0, -1) + last, binding)).type).toBe('invalid-query');
    expect((await refusal(raw.slice(0, -1), binding)).type).toBe('invalid-query');
    expect((await refusal(`${raw}A`, binding)).type).toBe('invalid-query');
  });

  it('garbage is refused', async () => {
    for (const raw of ['', 'abc', '.abc', 'abc.', '..', `${'a'.repeat(5000)}.b`, 'eyJkIjoibiJ9.xyz']) {
      expect((await refusal(raw, binding)).type, raw).toBe('invalid-query');
    }
  });

  it('a signed payload of the wrong shape is refused', async () => {
    // Sign a payload directly with the same key: correct signature, unusable content.
    const { createHmac } = await import('node:crypto');
    const sign = (payload: string) => createHmac('sha256', 'k'.repeat(43)).update(payload).digest('base64url').slice(0, 32);
    for (const body of ['not json', JSON.stringify({ d: 'x', k: 'a', b: binding }), JSON.stringify({ d: 'n', k: 5, b: binding }), JSON.stringify({ d: 'n', k: 'a' })]) {
      const payload = Buffer.from(body).toString('base64url');
      expect((await refusal(`${payload}.${sign(payload)}`, binding)).type, body).toBe('invalid-query');
    }
    // …and the same technique yields an accepted cursor when the payload is well-formed.
    const payload = Buffer.from(JSON.stringify({ d: 'n', k: 'a', b: binding })).toString('base64url');
    expect(await decodeCursor(`${payload}.${sign(payload)}`, binding)).toEqual({ d: 'n', k: 'a' });
  });
});

describe('binding (§1.5)', () => {
  it('a cursor replayed on another path or with other parameters is refused', async () => {
    const raw = await encodeCursor({ d: 'n', k: 'k' }, binding);
    const others = [
      queryBinding('/api/themes/', [['q', 'action'], ['ordering', '-name']]),
      queryBinding('/api/genres/', [['q', 'action']]),
      queryBinding('/api/genres/', [['q', 'actio'], ['ordering', '-name']]),
      queryBinding('/api/genres/', [['q', 'action'], ['ordering', 'name']]),
      queryBinding('/api/genres/', [['q', 'action'], ['ordering', '-name'], ['fields', 'name']]),
      queryBinding('/api/genres/', []),
    ];
    for (const other of others) {
      expect(other).not.toBe(binding);
      expect((await refusal(raw, other)).type).toBe('invalid-query');
    }
  });

  it('limit and cursor are not part of the binding; parameter order does not matter', () => {
    const base = queryBinding('/api/genres/', [['q', 'action'], ['ordering', '-name']]);
    expect(queryBinding('/api/genres/', [['limit', '5'], ['q', 'action'], ['ordering', '-name']])).toBe(base);
    expect(queryBinding('/api/genres/', [['q', 'action'], ['limit', '100'], ['ordering', '-name'], ['cursor', 'zzz']])).toBe(base);
    expect(queryBinding('/api/genres/', [['ordering', '-name'], ['q', 'action']])).toBe(base);
  });

  it('names and values cannot be shifted into each other', () => {
    expect(queryBinding('/p/', [['a', 'b&c=d']])).not.toBe(queryBinding('/p/', [['a', 'b'], ['c', 'd']]));
    expect(queryBinding('/p/', [['q', '']])).not.toBe(queryBinding('/p/', []));
  });

  it('a cursor signed under another key is refused (key rotation invalidates cursors)', async () => {
    const raw = await encodeCursor({ d: 'n', k: 'k' }, binding);
    const { createHmac } = await import('node:crypto');
    const payload = raw.split('.')[0]!;
    const otherSig = createHmac('sha256', 'another key').update(payload).digest('base64url').slice(0, 32);
    expect((await refusal(`${payload}.${otherSig}`, binding)).type).toBe('invalid-query');
  });
});
