/**
 * Picture files in the real S3 emulator (shared/storage/pictures.ts, API.md §4.9): a judged
 * image's bytes (without its metadata, §7.1) are stored under a new key of its person, with
 * the Content-Type of its content, and served at their public URL (locally the emulator's
 * bucket URL); deleting a file removes it, and deleting a file that is already gone succeeds
 * (the cleanup job repeats deletions).
 */
import { describe, expect, it } from 'vitest';
import { judgeImage } from '../../shared/domain/images.js';
import { deleteStoredFile, pictureKeyOf, storePicture } from '../../shared/storage/pictures.js';
import { fixture } from '../support/images.js';

describe('picture files', () => {
  it.each([
    ['baseline.jpg', 'image/jpeg', 'jpg'],
    ['rgba.png', 'image/png', 'png'],
    ['extended.webp', 'image/webp', 'webp'],
  ])('%s is stored as judged, as %s, and served at its URL', async (name, mime, ext) => {
    const image = judgeImage(fixture(name));
    const { bytes } = image;
    const stored = await storePicture('person_1', image);
    expect(stored.key).toMatch(new RegExp(`^pictures/person_1/[A-Za-z0-9_-]{22}\\.${ext}$`));
    expect(stored.url).toBe(`${process.env.PICTURES_BASE_URL}/${stored.key}`);
    expect(pictureKeyOf(stored.url)).toBe(stored.key);
    const res = await fetch(stored.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(mime);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('every upload gets its own key', async () => {
    const image = judgeImage(fixture('rgba.png'));
    const [a, b] = await Promise.all([storePicture('p', image), storePicture('p', image)]);
    expect(a.key).not.toBe(b.key);
  });

  it('a deleted file is gone; deleting it again succeeds', async () => {
    const stored = await storePicture('person_2', judgeImage(fixture('lossy.webp')));
    await deleteStoredFile(stored.key);
    expect((await fetch(stored.url)).status).toBe(404);
    await expect(deleteStoredFile(stored.key)).resolves.toBeUndefined();
  });

  it('URLs that are not of a stored file have no key', () => {
    const base = process.env.PICTURES_BASE_URL!;
    for (const url of ['https://example.org/pictures/p/x.png', `${base}/other/p/AAAAAAAAAAAAAAAAAAAAAA.png`, `${base}/pictures/p/short.png`, `${base}/pictures/p/AAAAAAAAAAAAAAAAAAAAAA.gif`]) {
      expect(pictureKeyOf(url), url).toBeNull();
    }
  });
});
