/**
 * Storing picture files (shared/storage/pictures.ts) against a local S3 endpoint: what PutObject
 * sends (the judged image's bytes, a new key under the person, the Content-Type of the content,
 * the cache lifetime, signed), and which failures are a 503 (unavailable: network, throttling, 5xx)
 * and which are faults (500, passed on).
 */
import { createServer } from 'node:net';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { judgeImage } from '../../shared/domain/images.js';
import { HttpError } from '../../shared/problem.js';
import { deleteStoredFile, storePicture } from '../../shared/storage/pictures.js';
import { fixture } from '../support/images.js';
import { UNAVAILABLE_FAILURES, useS3Endpoint } from '../support/s3-endpoint.js';

const s3 = useS3Endpoint();
beforeEach(() => s3.reset());

/** A port nothing listens on (connection refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('storePicture', () => {
  it('puts the judged image’s bytes under pictures/<person>/<new id>.<ext>, with the content’s type, signed', async () => {
    const image = judgeImage(fixture('progressive.jpg'));
    const { bytes } = image;
    const stored = await storePicture('Pq1', image);
    expect(s3.requests).toHaveLength(1);
    const put = s3.requests[0]!;
    expect(put).toMatchObject({ method: 'PUT', bucket: 'unit-test-pictures', key: stored.key });
    expect(put.headers).toMatchObject({ 'content-type': 'image/jpeg', 'cache-control': 'public, max-age=86400', 'content-length': String(bytes.length) });
    expect(put.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/);
    expect(put.headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(put.body.equals(bytes)).toBe(true);
    expect(stored.key).toMatch(/^pictures\/Pq1\/[A-Za-z0-9_-]{22}\.jpg$/);
    expect(stored.url).toBe(`https://pictures.example.org/${stored.key}`);
  });

  it('deleteStoredFile deletes the key', async () => {
    await deleteStoredFile('pictures/p/k.png');
    expect(s3.requests.map((r) => [r.method, r.bucket, r.key])).toEqual([['DELETE', 'unit-test-pictures', 'pictures/p/k.png']]);
  });
});

describe('failures', () => {
  const calls = [() => storePicture('p', judgeImage(fixture('rgba.png'))), () => deleteStoredFile('pictures/p/k.png')];
  const expectUnavailable = async (call: () => Promise<unknown>) => {
    const err = await call().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ type: 'service-unavailable', extras: { retry_after: 2 } });
  };

  it.each(UNAVAILABLE_FAILURES)('%s on every attempt → 503 service-unavailable with retry_after', async (_title, failure) => {
    for (const call of calls) {
      s3.fail(failure, 3);
      await expectUnavailable(call);
    }
  });

  it('connection refused → 503', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${await closedPort()}`);
    try {
      for (const call of calls) await expectUnavailable(call);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a transient failure is retried: the second attempt stores the file', async () => {
    s3.fail({ status: 503, code: 'SlowDown' });
    await storePicture('p', judgeImage(fixture('rgba.png')));
    expect(s3.requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
  });

  it('other errors (e.g. access denied, a missing bucket) are passed on: faults, not outages', async () => {
    for (const [status, code] of [[403, 'AccessDenied'], [404, 'NoSuchBucket']] as const) {
      s3.fail({ status, code });
      const err = await storePicture('p', judgeImage(fixture('rgba.png'))).catch((e: unknown) => e);
      expect(err).not.toBeInstanceOf(HttpError);
      expect(err).toMatchObject({ name: code, $metadata: { httpStatusCode: status } });
    }
  });
});
