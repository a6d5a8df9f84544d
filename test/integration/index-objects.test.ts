/**
 * The index objects in the real S3 emulator (shared/storage/index-objects.ts; the file's own index
 * bucket, test/support/setup.ts): what is put is read back byte for byte (a 4 MB body too: a
 * snapshot's size at MyAnimeList scale, docs/decisions.md I5), a missing key reads as null, a
 * deleted object is gone and deleting a missing one succeeds; storage that cannot be reached is
 * an error isUnavailable recognises, which a list function turns into a 503 and a job waits out.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { freePort } from '../../infra/local/engines.js';
import { isUnavailable } from '../../shared/db/errors.js';
import { deleteIndexObjects, getIndexObject, indexObjectKey, indexVersionName, putIndexObject } from '../../shared/storage/index-objects.js';

const name = (version: number) => indexVersionName(version, 'A'.repeat(22));

const bytesOf = (u: Uint8Array | null) => (u === null ? null : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

describe('index objects', () => {
  it('put then get gives the same bytes (a few bytes, and 4 MB of random ones)', async () => {
    for (const [version, body] of [[1, new Uint8Array([31, 139, 8, 0, 0])], [2, new Uint8Array(randomBytes(4 * 1024 * 1024))]] as const) {
      const key = indexObjectKey('ANIME', name(version), 'snapshot');
      await putIndexObject(key, body);
      const read = await getIndexObject(key);
      expect(read).toBeInstanceOf(Uint8Array);
      expect(read!.byteLength).toBe(body.byteLength);
      expect(bytesOf(read)!.equals(Buffer.from(body))).toBe(true);
    }
  });

  it('a part of a version is its own object: the snapshot and the vectors of one version, and of the next', async () => {
    const written = new Map<string, Buffer>();
    for (const version of [10, 11]) {
      for (const part of ['snapshot', 'vectors'] as const) {
        const key = indexObjectKey('MANGA', name(version), part);
        written.set(key, randomBytes(1000));
        await putIndexObject(key, written.get(key)!);
      }
    }
    for (const [key, body] of written) expect(bytesOf(await getIndexObject(key))!.equals(body), key).toBe(true);
  });

  it('a key never written reads as null', async () => {
    await expect(getIndexObject(indexObjectKey('ANIME', name(9_999_999_999), 'snapshot'))).resolves.toBeNull();
    await expect(getIndexObject(indexObjectKey('NOSUCHKIND', name(1), 'vectors'))).resolves.toBeNull();
  });

  it('deleted objects read as null, the others stay; deleting missing objects succeeds', async () => {
    const keys = [3, 4, 5].flatMap((v) => [indexObjectKey('PERSON', name(v), 'snapshot'), indexObjectKey('PERSON', name(v), 'vectors')]);
    for (const key of keys) await putIndexObject(key, randomBytes(64));
    await deleteIndexObjects(keys.slice(0, 4));
    for (const key of keys.slice(0, 4)) await expect(getIndexObject(key), key).resolves.toBeNull();
    for (const key of keys.slice(4)) expect(await getIndexObject(key), key).not.toBeNull();
    await expect(deleteIndexObjects(keys.slice(0, 4))).resolves.toBeUndefined();
    await expect(deleteIndexObjects([indexObjectKey('PERSON', name(77), 'snapshot')])).resolves.toBeUndefined();
  });

  it('storage that cannot be reached → an error isUnavailable recognises, for every call', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL_S3', `http://127.0.0.1:${await freePort()}`);
    try {
      const key = indexObjectKey('ANIME', name(1), 'snapshot');
      for (const call of [() => putIndexObject(key, new Uint8Array(8)), () => getIndexObject(key), () => deleteIndexObjects([key])]) {
        const err = await call().then(() => null, (e: unknown) => e);
        expect(err).not.toBeNull();
        expect(isUnavailable(err)).toBe(true);
      }
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
