/**
 * Person pictures (API.md §4.9): `POST /api/persons/{id}/create-picture/` with real image bytes
 * (test/fixtures/images, PNGs encoded by test/support/images.ts) in multipart bodies written
 * byte by byte, the stored file fetched back from the S3 emulator, and
 * `GET /api/persons/{id}/pictures/`. Stored files hold no metadata and nothing after the image's
 * end (§7.1): uploads carrying HTML after IEND, scripts in PNG text chunks, EXIF with GPS, XMP
 * and comments are read back by their URL and checked byte by byte; animations and malformed
 * chunk structures are refused. Also: the files of uploaded pictures that a PATCH/PUT drops or
 * the person's deletion removes are queued (FILE#GONE) in the write's transaction and removed by
 * the cleanup job; refusals store nothing.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { runFileCleanup } from '../../functions/jobs/cleanup.js';
import type { Role } from '../../shared/auth/roles.js';
import { dueFiles, UPLOAD_GUARD_SECONDS } from '../../shared/db/files.js';
import { picturesBucket } from '../../shared/storage/pictures.js';
import { expectErrors, expectJson, expectProblem, ID, send, TIMESTAMP, uniqueName, usersByRole, walk } from '../support/contract.js';
import {
  commentSegment, encodeApng, encodePng, exifSegment, exifTiff, expectStoredImage, extendWebp, fixture, insertJpegSegments, insertPngChunks, keepPngChunks, metadataLeft,
  pngChunk, pngItxt, pngText, pngZtxt, STORED_PNG_CHUNKS, webpChunk, webpChunks, webpFile, XMP_PACKET, xmpSegment,
} from '../support/images.js';
import { formData, type Part } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
const PICTURE_KEYS = ['id', 'name', 'url', 'width', 'height', 'created_at', 'updated_at'];
let users: Record<Role, Record<string, string>>;
let auth: Record<string, string>;
beforeAll(async () => {
  users = await usersByRole(server);
  auth = users.contributor;
});

const person = async (extra: Record<string, unknown> = {}) => expectJson(await send(server, 'POST', '/api/persons/', { body: { name: uniqueName('Person'), ...extra }, headers: auth }), 201);
const image = (data: Buffer, filename = 'photo.png', type = 'image/png'): Part => ({ name: 'image', filename, type, data });
const upload = (id: string, parts: Part[], headers: Record<string, string> = auth) => {
  const { body, contentType } = formData(parts);
  return send(server, 'POST', `/api/persons/${id}/create-picture/`, { raw: body, headers: { ...headers, 'content-type': contentType } });
};
const pictures = async (id: string, query = '') => expectJson(await send(server, 'GET', `/api/persons/${id}/pictures/${query}`), 200);
/** The files stored for a person (the keys under its prefix in the bucket), listed with the SDK's S3 client. */
let s3: S3Client | undefined;
const storedFiles = async (id: string) => {
  s3 ??= new S3Client({ forcePathStyle: true });
  const out = await s3.send(new ListObjectsV2Command({ Bucket: picturesBucket(), Prefix: `pictures/${id}/` }));
  return (out.Contents ?? []).map((o) => o.Key!);
};
const queued = async (key: string, within = 0) => (await dueFiles(new Date(Date.now() + within * 1000), 1000)).entries.some((e) => e.keys.includes(key));
const keyOf = (url: string) => url.slice(url.indexOf('/pictures/') + 1);

describe('POST /api/persons/{id}/create-picture/', () => {
  it.each([
    ['baseline.jpg', 'image/jpeg', (b: Buffer) => b],
    ['rgba.png', 'image/png', (b: Buffer) => keepPngChunks(b, STORED_PNG_CHUNKS)], // without ImageMagick's tIME, bKGD and tEXt
    ['lossless.webp', 'image/webp', (b: Buffer) => b],
  ])('%s: 201 Picture with its size; the image is stored and served at its URL; no Location, no ETag', async (name, mime, storedOf) => {
    const p = await person();
    const before = await send(server, 'GET', `/api/persons/${p.id}/`);
    const bytes = fixture(name);
    const res = await upload(p.id, [image(bytes, name, 'application/octet-stream'), { name: 'name', value: ' Portrait ' }]);
    const pic = expectJson(res, 201);
    expect(Object.keys(pic)).toEqual(PICTURE_KEYS);
    expect(pic.id).toMatch(ID);
    expect(pic.name).toBe('Portrait');
    expect(pic.created_at).toMatch(TIMESTAMP);
    expect(pic.updated_at).toBe(pic.created_at);
    expect(pic.width).toBeGreaterThan(0);
    expect(pic.height).toBeGreaterThan(0);
    expect(pic.url.startsWith(`${process.env.PICTURES_BASE_URL}/pictures/${p.id}/`)).toBe(true);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    const file = await fetch(pic.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(mime);
    expect(Buffer.from(await file.arrayBuffer()).equals(storedOf(bytes))).toBe(true);
    // Appended to the person's pictures; the person's updated_at and ETag change (§1.3).
    const list = await pictures(p.id);
    expect(list).toEqual({ count: 1, next: null, previous: null, results: [pic] });
    const after = await send(server, 'GET', `/api/persons/${p.id}/`);
    expect(after.body.updated_at).toBe(pic.created_at);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // The guard of the upload is gone: the file is kept after the hour.
    expect(await queued(keyOf(pic.url), UPLOAD_GUARD_SECONDS + 60)).toBe(false);
  });

  it('the size is read from the content: 3000×2 PNG; name defaults to ""', async () => {
    const p = await person();
    const pic = expectJson(await upload(p.id, [image(encodePng(3000, 2))]), 201);
    expect(pic).toMatchObject({ name: '', width: 3000, height: 2 });
    expect(expectJson(await upload(p.id, [image(encodePng(1, 1))]), 201)).toMatchObject({ width: 1, height: 1 });
  });

  it('not an image by content (a renamed text file), over 2 MiB, or over 3,000 pixels → 400 errors.image, nothing stored', async () => {
    const p = await person();
    const text = Buffer.from('This is not a picture at all.\n'.repeat(20));
    const big = encodePng(900, 800, { noise: true }); // ~2.16 MB
    expect(big.length).toBeGreaterThan(2_097_152);
    expect(big.length).toBeLessThan(3_000_000);
    for (const part of [image(text, 'cat.png', 'image/png'), image(big), image(fixture('3001x1.png')), image(encodePng(1, 3001)), image(fixture('rgba.png').subarray(0, 60))]) {
      expectErrors(await upload(p.id, [part]), 400, 'validation-error', ['image']);
    }
    expect((await pictures(p.id)).count).toBe(0);
    expect(await storedFiles(p.id)).toEqual([]);
  });

  it('a body over 3 MiB → 413; JSON → 415; a form that cannot be parsed → 400 malformed-request', async () => {
    const p = await person();
    const huge = encodePng(1100, 1000, { noise: true });
    expect(huge.length).toBeGreaterThan(3_145_728);
    expectProblem(await upload(p.id, [image(huge)]), 413, 'payload-too-large');
    expectProblem(await send(server, 'POST', `/api/persons/${p.id}/create-picture/`, { body: { image: 'x' }, headers: auth }), 415, 'unsupported-media-type');
    const { body } = formData([image(fixture('rgba.png'))]);
    const cut = await send(server, 'POST', `/api/persons/${p.id}/create-picture/`, {
      raw: body.subarray(0, 120),
      headers: { ...auth, 'content-type': 'multipart/form-data; boundary=----catalogue-test-7MA4YWxkTrZu0gW' },
    });
    expectProblem(cut, 400, 'malformed-request');
    expect(await storedFiles(p.id)).toEqual([]);
  });

  it('unknown parts, a missing image, an image sent as text and a name over 100 characters → 400 at each part', async () => {
    const p = await person();
    const png = image(fixture('rgba.png'));
    expectErrors(await upload(p.id, [png, { name: 'caption', value: 'x' }]), 400, 'validation-error', ['caption']);
    expectErrors(await upload(p.id, [{ name: 'name', value: 'Only a name' }]), 400, 'validation-error', ['image']);
    expectErrors(await upload(p.id, [{ name: 'image', value: 'not a file' }]), 400, 'validation-error', ['image']);
    expectErrors(await upload(p.id, [png, { name: 'name', value: 'x'.repeat(101) }]), 400, 'validation-error', ['name']);
    expectErrors(await upload(p.id, [png, image(fixture('rgba.png'), 'other.png')]), 400, 'validation-error', ['image']);
    expect(expectJson(await upload(p.id, [png, { name: 'name', value: 'é'.repeat(100) }]), 201).name).toBe('é'.repeat(100));
    expect((await pictures(p.id)).count).toBe(1);
  });

  it('at most 100 pictures: the 100th upload is accepted, the 101st → 400 errors.image and nothing is added', async () => {
    const p = await person();
    const byUrl = Array.from({ length: 99 }, (_, i) => ({ url: `https://img.example.org/${p.id}/${i}.png` }));
    expectJson(await send(server, 'PATCH', `/api/persons/${p.id}/`, { body: { pictures: byUrl }, headers: auth }), 200);
    const hundredth = expectJson(await upload(p.id, [image(fixture('rgba.png'))]), 201);
    expectErrors(await upload(p.id, [image(fixture('rgba.png'))]), 400, 'validation-error', ['image']);
    const { results: list } = await walk(server, `/api/persons/${p.id}/pictures/?limit=100`);
    expect(list.map((x: { url: string }) => x.url)).toEqual([...byUrl.map((b) => b.url), hundredth.url]);
    expect(await storedFiles(p.id)).toEqual([keyOf(hundredth.url)]);
  });

  it('anonymous → 401, member → 403, unknown person → 404 (before the parts are judged); nothing stored', async () => {
    const p = await person();
    expectProblem(await upload(p.id, [image(fixture('rgba.png'))], {}), 401, 'authentication-required');
    expectProblem(await upload(p.id, [image(fixture('rgba.png'))], users.member), 403, 'forbidden');
    expectProblem(await upload(p.id, [image(fixture('rgba.png'))], users.premium), 403, 'forbidden');
    expectProblem(await upload('nobodyhere', [image(fixture('rgba.png'))]), 404, 'not-found');
    expectProblem(await upload('nobodyhere', [image(Buffer.from('not an image'))]), 404, 'not-found');
    expect((await pictures(p.id)).count).toBe(0);
    expect(await storedFiles(p.id)).toEqual([]);
    expect(await storedFiles('nobodyhere')).toEqual([]);
    for (const role of ['moderator', 'administrator'] as const) expectJson(await upload(p.id, [image(fixture('gray.jpg'), 'g.jpg')], users[role]), 201);
  });

  it('counted by the upload policy (60 per hour per user) when the limits are on', async () => {
    const p = await person();
    const saved = process.env.RATE_LIMITS;
    process.env.RATE_LIMITS = 'on';
    try {
      const res = await upload(p.id, [image(fixture('rgba.png'))]);
      expectJson(res, 201);
      expect(res.headers.get('ratelimit-limit')).toBe('60');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(60);
    } finally {
      process.env.RATE_LIMITS = saved;
    }
  });
});

/** The stored file of an uploaded picture, read back by its URL. */
const served = async (pic: { url: string }) => {
  const file = await fetch(pic.url);
  expect(file.status).toBe(200);
  return { type: file.headers.get('content-type'), bytes: Buffer.from(await file.arrayBuffer()) };
};

describe('uploaded files are stored without metadata or bytes after the image’s end (§7.1)', () => {
  const [vp8x, ...webpRest] = webpChunks(fixture('extended.webp')).chunks;
  it.each([
    ['a PNG with an HTML page appended after IEND', Buffer.concat([fixture('rgba.png'), Buffer.from('<html><script>fetch("/api/users/me/")</script></html>')]), keepPngChunks(fixture('rgba.png'), STORED_PNG_CHUNKS)],
    [
      'a PNG whose tEXt holds a script, with zTXt, iTXt and eXIf (GPS)',
      insertPngChunks(encodePng(4, 3), 'IDAT', pngText('Comment', '<script>alert(document.cookie)</script>'), pngZtxt('Description', '<svg onload=alert(1)>'), pngItxt('Author', '<html>'), pngChunk('eXIf', exifTiff())),
      encodePng(4, 3),
    ],
    ['a JPEG with EXIF holding a GPS IFD, and a comment with GPS text', insertJpegSegments(fixture('baseline.jpg'), exifSegment(), commentSegment('GPS 48.858222 N, 2.294500 E')), fixture('baseline.jpg')],
    ['a JPEG with XMP, and bytes after EOI', Buffer.concat([insertJpegSegments(fixture('progressive.jpg'), xmpSegment()), fixture('gray.jpg')]), fixture('progressive.jpg')],
    [
      'a WebP with EXIF (GPS) and XMP chunks, and bytes after the RIFF',
      Buffer.concat([extendWebp(fixture('extended.webp'), { flags: 0x08 | 0x04, last: [webpChunk('EXIF', exifTiff()), webpChunk('XMP ', Buffer.from(XMP_PACKET))] }), Buffer.from('<html>')]),
      webpFile(webpChunk('VP8X', vp8x!.data), ...webpRest.map((c) => webpChunk(c.type, c.data))),
    ],
  ])('%s: 201; the file read back by its URL is the image alone, of the same size', async (_, sent, expected) => {
    const p = await person();
    const pic = expectJson(await upload(p.id, [image(sent, 'upload.bin', 'application/octet-stream')]), 201);
    const file = await served(pic);
    expect(metadataLeft(sent).length).toBeGreaterThan(0);
    expect(metadataLeft(file.bytes)).toEqual([]);
    expect(file.bytes.equals(expected)).toBe(true);
    // Read back: only the parts that may stay, every PNG CRC right, nothing after the end; the same type and size.
    const type = ({ 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' } as const)[file.type as 'image/png'];
    expectStoredImage(file.bytes, { type, width: pic.width, height: pic.height });
    expect(await storedFiles(p.id)).toEqual([keyOf(pic.url)]);
  });

  it('an animated PNG or WebP, and malformed chunk structures → 400 errors.image; nothing stored', async () => {
    const p = await person();
    const badCrc = insertPngChunks(encodePng(4, 3), 'IDAT', pngText('Comment', 'hello'));
    badCrc[badCrc.indexOf('hello')] = 0x48; // the text changes, its CRC does not
    const longChunk = insertPngChunks(encodePng(4, 3), 'IDAT', pngText('Comment', 'hello'));
    longChunk.writeUInt32BE(100_000, longChunk.indexOf('tEXt') - 4);
    const [vp8] = webpChunks(fixture('lossy.webp')).chunks;
    const runaway = webpFile(webpChunk(vp8!.type, vp8!.data), webpChunk('EXIF', exifTiff()));
    runaway.writeUInt32LE(5000, runaway.indexOf('EXIF') + 4); // the EXIF chunk runs past the RIFF's end
    const endless = Buffer.from(fixture('baseline.jpg').subarray(0, -2)); // a scan without EOI
    const cases: [Buffer, RegExp][] = [
      [encodeApng(3, 2), /animated/],
      [fixture('animated.webp'), /animated/],
      [badCrc, /checksum mismatch/],
      [longChunk, /truncated/],
      [runaway, /truncated/],
      [endless, /truncated/],
    ];
    for (const [bytes, reason] of cases) {
      const problem = expectErrors(await upload(p.id, [image(bytes, 'upload.bin', 'application/octet-stream')]), 400, 'validation-error', ['image']);
      expect(problem.errors.image[0]).toMatch(reason);
    }
    expect((await pictures(p.id)).count).toBe(0);
    expect(await storedFiles(p.id)).toEqual([]);
  });
});

describe('GET /api/persons/{id}/pictures/', () => {
  it('position (default) or created_at order, exact count, pages, fields; uploads keep their size through a PATCH that keeps their url', async () => {
    const p = await person({ pictures: [{ url: 'https://img.example.org/b.png', name: 'B' }, { url: 'https://img.example.org/a.png' }] });
    const up = expectJson(await upload(p.id, [image(fixture('rgba.png')), { name: 'name', value: 'Up' }]), 201);
    const first = await pictures(p.id);
    expect(first.count).toBe(3);
    expect(first.results.map((x: { url: string }) => x.url)).toEqual(['https://img.example.org/b.png', 'https://img.example.org/a.png', up.url]);
    expect(first.results[0]).toMatchObject({ name: 'B', width: null, height: null });
    // Reordered by a PATCH: the upload keeps its id, size and created_at.
    const reordered = [{ url: up.url, name: 'Up' }, { url: 'https://img.example.org/a.png' }, { url: 'https://img.example.org/b.png', name: 'B' }];
    expectJson(await send(server, 'PATCH', `/api/persons/${p.id}/`, { body: { pictures: reordered }, headers: auth }), 200);
    const now = await pictures(p.id);
    expect(now.results[0]).toEqual(up);
    expect(now.results.map((x: { url: string }) => x.url)).toEqual(reordered.map((r) => r.url));
    const byCreation = await pictures(p.id, '?ordering=-created_at');
    expect(byCreation.results[0].id).toBe(up.id);
    const { results: paged } = await walk(server, `/api/persons/${p.id}/pictures/?limit=1`);
    expect(paged.map((x: { id: string }) => x.id)).toEqual(now.results.map((x: { id: string }) => x.id));
    expect((await pictures(p.id, '?fields=url')).results[0]).toEqual({ id: up.id, url: up.url });
    expect(await queued(keyOf(up.url))).toBe(false);
  });

  it('unknown person → 404; a person without pictures → empty page; bad ordering → 400', async () => {
    expectProblem(await send(server, 'GET', '/api/persons/nobodyhere/pictures/'), 404, 'not-found');
    const p = await person();
    expect(await pictures(p.id)).toEqual({ count: 0, next: null, previous: null, results: [] });
    expectErrors(await send(server, 'GET', `/api/persons/${p.id}/pictures/?ordering=name`), 400, 'invalid-query', ['ordering']);
  });
});

describe('files of removed pictures', () => {
  it('a PATCH that drops an upload queues its file; the cleanup job removes it', async () => {
    const p = await person();
    const kept = expectJson(await upload(p.id, [image(fixture('rgba.png'))]), 201);
    const dropped = expectJson(await upload(p.id, [image(fixture('lossy.webp'), 'l.webp')]), 201);
    expectJson(await send(server, 'PATCH', `/api/persons/${p.id}/`, { body: { pictures: [{ url: kept.url }] }, headers: auth }), 200);
    expect(await queued(keyOf(dropped.url))).toBe(true);
    expect(await queued(keyOf(kept.url))).toBe(false);
    await runFileCleanup();
    expect((await fetch(dropped.url)).status).toBe(404);
    expect((await fetch(kept.url)).status).toBe(200);
    // Writing the dropped file's URL back makes a picture by URL: it carries no file (nothing queued on its removal).
    expectJson(await send(server, 'PUT', `/api/persons/${p.id}/`, { body: { name: 'Again', pictures: [{ url: dropped.url }] }, headers: auth }), 200);
    expect((await pictures(p.id)).results).toMatchObject([{ url: dropped.url, width: null, height: null }]);
    // A PUT without `pictures` removed the kept upload: queued now.
    expect(await queued(keyOf(kept.url))).toBe(true);
  });

  it('deleting a person queues every uploaded file in one FILE#GONE item; the cleanup job removes them', async () => {
    const p = await person({ pictures: [{ url: 'https://img.example.org/x.png' }] });
    const ups = [];
    for (const name of ['rgba.png', 'baseline.jpg', 'extended.webp']) ups.push(expectJson(await upload(p.id, [image(fixture(name), name)]), 201));
    expect((await send(server, 'DELETE', `/api/persons/${p.id}/`, { headers: auth })).status).toBe(204);
    expectProblem(await send(server, 'GET', `/api/persons/${p.id}/pictures/`), 404, 'not-found');
    const items = (await dueFiles(new Date(), 1000)).entries.filter((e) => e.keys.some((k) => k.startsWith(`pictures/${p.id}/`)));
    expect(items).toHaveLength(1);
    expect([...items[0]!.keys].sort()).toEqual(ups.map((u) => keyOf(u.url)).sort());
    expect((await runFileCleanup()).removed ?? 0).toBeGreaterThanOrEqual(3);
    for (const u of ups) expect((await fetch(u.url)).status).toBe(404);
    expect(await storedFiles(p.id)).toEqual([]);
  });
});
