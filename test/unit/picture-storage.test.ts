/**
 * Storing picture files (shared/storage/pictures.ts) with S3 mocked: what PutObject is given (the
 * bytes unchanged, a new key under the person, the Content-Type of the content, the cache
 * lifetime), and which failures are a 503 (unavailable: network, throttling, 5xx) and which are
 * faults (500, passed on).
 */
import { DeleteObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { judgeImage } from '../../shared/domain/images.js';
import { HttpError } from '../../shared/http/problem.js';
import { deleteStoredFile, storePicture } from '../../shared/storage/pictures.js';
import { fixture } from '../support/images.js';

const s3 = mockClient(S3Client);
beforeEach(() => s3.reset());

const s3Error = (name: string, status: number) => new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });

describe('storePicture', () => {
  it('puts the bytes unchanged under pictures/<person>/<new id>.<ext>, with the content’s type', async () => {
    s3.on(PutObjectCommand).resolves({});
    const bytes = fixture('progressive.jpg');
    const stored = await storePicture('Pq1', judgeImage(bytes));
    const input = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(input).toMatchObject({ Bucket: 'unit-test-pictures', Key: stored.key, ContentType: 'image/jpeg', CacheControl: 'public, max-age=86400', ContentLength: bytes.length });
    expect((input.Body as Buffer).equals(bytes)).toBe(true);
    expect(stored.key).toMatch(/^pictures\/Pq1\/[A-Za-z0-9_-]{22}\.jpg$/);
    expect(stored.url).toBe(`https://pictures.example.org/${stored.key}`);
  });
});

describe('failures', () => {
  const unavailable: [string, unknown][] = [
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })],
    ['SlowDown (503)', s3Error('SlowDown', 503)],
    ['InternalError (500)', s3Error('InternalError', 500)],
    ['RequestTimeout (400)', s3Error('RequestTimeout', 400)],
    ['a timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
  ];
  it.each(unavailable)('%s → 503 service-unavailable with retry_after', async (_title, error) => {
    s3.on(PutObjectCommand).rejects(error as Error);
    s3.on(DeleteObjectCommand).rejects(error as Error);
    for (const call of [() => storePicture('p', judgeImage(fixture('rgba.png'))), () => deleteStoredFile('pictures/p/k.png')]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect(err).toMatchObject({ type: 'service-unavailable', extras: { retry_after: 2 } });
    }
  });

  it('other errors (e.g. access denied, a missing bucket) are passed on: faults, not outages', async () => {
    for (const error of [s3Error('AccessDenied', 403), s3Error('NoSuchBucket', 404)]) {
      s3.on(PutObjectCommand).rejects(error);
      const err = await storePicture('p', judgeImage(fixture('rgba.png'))).catch((e: unknown) => e);
      expect(err).toBe(error);
    }
  });
});
