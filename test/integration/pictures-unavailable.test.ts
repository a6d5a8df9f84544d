/**
 * Object storage that cannot be reached (API.md §1.4, §4.9): storing or deleting a picture file
 * is a 503 service-unavailable with Retry-After, like a database outage. This file points the
 * S3 endpoint at a loopback port where nothing listens, before the client exists.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/engines.js';
import { judgeImage } from '../../shared/domain/images.js';
import { HttpError, problemHeaders } from '../../shared/problem.js';
import { deleteStoredFile, storePicture } from '../../shared/storage/pictures.js';
import { fixture } from '../support/images.js';

beforeAll(async () => {
  process.env.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${await freePort()}`;
});

describe('storage unavailable', () => {
  it('store and delete → 503 with Retry-After', async () => {
    for (const attempt of [() => storePicture('p', judgeImage(fixture('rgba.png'))), () => deleteStoredFile('pictures/p/AAAAAAAAAAAAAAAAAAAAAA.png')]) {
      const err = await attempt().then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).type).toBe('service-unavailable');
      expect(problemHeaders(err as HttpError)['retry-after']).toBe('2');
    }
  });
});
