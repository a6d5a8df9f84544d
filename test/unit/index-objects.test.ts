/**
 * The index objects' calls against a local S3 endpoint (shared/storage/index-objects.ts): the key
 * format and the keys it refuses, what a put sends (the bytes, application/octet-stream,
 * `If-None-Match: *`, signed, to the INDEX_BUCKET), how S3's answers read — a missing key is
 * null, a taken key IndexObjectExists —, and which failures are outages (isUnavailable: network,
 * throttling, 5xx, RequestTimeout) and which are faults passed on. The emulator itself is
 * test/integration/index-objects.test.ts.
 */
import { createServer } from 'node:net';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { awsCalls, type AwsCallRecord } from '../../shared/aws-request.js';
import { isUnavailable } from '../../shared/db/errors.js';
import { deleteIndexObjects, getIndexObject, IndexObjectExists, indexObjectKey, indexVersionName, putIndexObject } from '../../shared/storage/index-objects.js';
import { UNAVAILABLE_FAILURES, useS3Endpoint } from '../support/s3-endpoint.js';

const s3 = useS3Endpoint();
beforeEach(() => s3.reset());

const ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const KEY = `index/ANIME/0000000007-${ID}/snapshot.gz`;

/** A port nothing listens on (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('indexObjectKey', () => {
  it('index/<kind>/<version, 10 digits>/<part>.gz', () => {
    expect(indexObjectKey('ANIME', indexVersionName(42, ID), 'snapshot')).toBe(`index/ANIME/0000000042-${ID}/snapshot.gz`);
    expect(indexObjectKey('MANGA', indexVersionName(0, ID), 'vectors')).toBe(`index/MANGA/0000000000-${ID}/vectors.gz`);
    expect(indexObjectKey('PERSON', indexVersionName(9_999_999_999, ID), 'snapshot')).toBe(`index/PERSON/9999999999-${ID}/snapshot.gz`);
    expect(indexVersionName(3)).toMatch(/^0000000003-[A-Za-z0-9_-]{22}$/);
    expect(indexVersionName(3)).not.toBe(indexVersionName(3));
  });

  it('refuses a kind that is not [A-Z]+, a version that is not an integer of at most 10 digits, another part', () => {
    for (const kind of ['', 'anime', 'Anime', 'ANIME/..', 'AN IME', 'ANIME1', 'ÄNIME', '../ANIME']) {
      expect(() => indexObjectKey(kind, indexVersionName(1, ID), 'snapshot'), kind).toThrow(/must match \[A-Z\]\+/);
    }
    for (const version of [-1, 1.5, Number.NaN, Infinity, 10_000_000_000]) {
      expect(() => indexVersionName(version), String(version)).toThrow(/at most 10 digits/);
    }
    for (const name of ['0000000001', '1-' + ID, `0000000001-${ID}x`, `0000000001-${ID.slice(1)}/`]) {
      expect(() => indexObjectKey('ANIME', name, 'snapshot'), name).toThrow(/10 digits, "-" and a 22-character id/);
    }
    expect(() => indexObjectKey('ANIME', indexVersionName(1, ID), 'pointer' as never)).toThrow(/snapshot or vectors/);
  });

  it('the calls refuse any other key before sending anything (the roles may touch only index/)', async () => {
    for (const key of ['pictures/p/x.png', `index/anime/0000000001-${ID}/snapshot.gz`, 'index/ANIME/0000000001/snapshot.gz', `index/ANIME/1-${ID}/snapshot.gz`, `index/ANIME/0000000001-${ID}/other.gz`, `${KEY}/..`]) {
      await expect(putIndexObject(key, new Uint8Array(1)), key).rejects.toThrow(/not an index object key/);
      await expect(getIndexObject(key), key).rejects.toThrow(/not an index object key/);
      await expect(deleteIndexObjects([KEY, key]), key).rejects.toThrow(/not an index object key/);
    }
    expect(s3.requests).toEqual([]);
  });
});

describe('the calls', () => {
  it('a put sends the bytes to the index bucket, application/octet-stream, only if the key is free, signed', async () => {
    const whole = new Uint8Array([9, 9, 1, 2, 3, 4, 9]);
    await putIndexObject(KEY, whole.subarray(2, 6));
    expect(s3.requests).toHaveLength(1);
    const put = s3.requests[0]!;
    expect(put).toMatchObject({ method: 'PUT', bucket: 'unit-test-index', key: KEY });
    expect(put.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'if-none-match': '*', 'content-length': '4' });
    expect(put.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[^,]*if-none-match[^,]*, Signature=[0-9a-f]{64}$/);
    expect([...put.body]).toEqual([1, 2, 3, 4]);
  });

  it('a taken key (412, or 409 while another conditional put runs) → IndexObjectExists', async () => {
    for (const failure of [{ status: 412, code: 'PreconditionFailed' }, { status: 409, code: 'ConditionalRequestConflict' }]) {
      s3.fail(failure);
      const err = await putIndexObject(KEY, new Uint8Array(1)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IndexObjectExists);
      expect(err).toMatchObject({ key: KEY });
      expect(isUnavailable(err)).toBe(false);
    }
  });

  it('a get reads the object of the index bucket; NoSuchKey → null, any other 404 or 403 is passed on', async () => {
    await expect(getIndexObject(KEY)).resolves.toEqual(new Uint8Array(0));
    expect(s3.requests.map((r) => [r.method, r.bucket, r.key])).toEqual([['GET', 'unit-test-index', KEY]]);
    s3.fail({ status: 404, code: 'NoSuchKey' });
    await expect(getIndexObject(KEY)).resolves.toBeNull();
    for (const [status, code] of [[404, 'NoSuchBucket'], [403, 'AccessDenied']] as const) {
      s3.fail({ status, code });
      await expect(getIndexObject(KEY)).rejects.toMatchObject({ name: code, $metadata: { httpStatusCode: status } });
    }
  });

  it('deleteIndexObjects deletes each key', async () => {
    const keys = Array.from({ length: 20 }, (_, v) => indexObjectKey('NEWS', indexVersionName(v, ID), v % 2 ? 'vectors' : 'snapshot'));
    await deleteIndexObjects(keys);
    expect(s3.requests.map((r) => `${r.method} ${r.bucket}/${r.key}`).sort()).toEqual(keys.map((k) => `DELETE unit-test-index/${k}`).sort());
    await deleteIndexObjects([]);
    expect(s3.requests).toHaveLength(20);
  });
});

describe('failures', () => {
  const calls = [() => putIndexObject(KEY, new Uint8Array(3)), () => getIndexObject(KEY), () => deleteIndexObjects([KEY])];
  const expectUnavailable = async (call: () => Promise<unknown>) => {
    const err = await call().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isUnavailable(err)).toBe(true);
  };

  it.each(UNAVAILABLE_FAILURES)('%s on every attempt → an error isUnavailable recognises', async (_title, failure) => {
    for (const call of calls) {
      s3.fail(failure, 3);
      await expectUnavailable(call);
    }
  });

  it('connection refused → an error isUnavailable recognises', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${await closedPort()}`);
    try {
      for (const call of calls) await expectUnavailable(call);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a transient failure is retried: the second attempt reads the object', async () => {
    s3.fail({ status: 503, code: 'SlowDown' });
    await expect(getIndexObject(KEY)).resolves.toEqual(new Uint8Array(0));
    expect(s3.requests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('each call is reported once when it ends (what the bench counts): its method, path, status, attempts and bytes', async () => {
    const seen: AwsCallRecord[] = [];
    awsCalls.listener = (c) => seen.push(c);
    try {
      await putIndexObject(KEY, new Uint8Array(4));
      s3.fail({ status: 503, code: 'SlowDown' });
      await getIndexObject(KEY);
      s3.fail({ status: 404, code: 'NoSuchKey' });
      await getIndexObject(KEY);
      s3.fail({ status: 403, code: 'AccessDenied' });
      await deleteIndexObjects([KEY]).catch(() => undefined);
    } finally {
      delete awsCalls.listener;
    }
    const path = `/unit-test-index/${KEY}`;
    expect(seen.map(({ startedAt: _, ...c }) => c)).toEqual([
      { service: 's3', method: 'PUT', path, status: 200, attempts: 1, bytesSent: 4, bytesReceived: 0 },
      { service: 's3', method: 'GET', path, status: 200, attempts: 2, bytesSent: 0, bytesReceived: 0 },
      { service: 's3', method: 'GET', path, status: 404, attempts: 1, bytesSent: 0, bytesReceived: expect.any(Number) as number },
      { service: 's3', method: 'DELETE', path, status: 403, attempts: 1, bytesSent: 0, bytesReceived: expect.any(Number) as number },
    ]);
    expect(seen.every((c) => c.startedAt <= performance.now())).toBe(true);
  });

  it('other errors (access denied, a missing bucket) are faults, not outages', async () => {
    for (const call of calls) {
      for (const [status, code] of [[403, 'AccessDenied'], [404, 'NoSuchBucket']] as const) {
        s3.fail({ status, code });
        const err = await call().catch((e: unknown) => e);
        expect(err).toMatchObject({ name: code, $metadata: { httpStatusCode: status } });
        expect(isUnavailable(err)).toBe(false);
      }
    }
  });
});
