/**
 * An upload while object storage is down (API.md §1.4, §4.9): the file's own S3 emulator is
 * stopped (not misconfigured: the same address that served the previous upload), and
 * create-picture answers 503 service-unavailable with Retry-After; no Picture is appended (the
 * person is unchanged), so no Picture is left without its file. Started again on the same
 * directory, uploads work again, and every Picture's file is there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStorageEmulator, type Emulator } from '../../infra/local/engines.js';
import { picturesEnvironment } from '../../infra/local/runtime.js';
import { dueFiles, UPLOAD_GUARD_SECONDS } from '../../shared/db/files.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { fixture, keepPngChunks, STORED_PNG_CHUNKS } from '../support/images.js';
import { formData } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
const directory = mkdtempSync(join(tmpdir(), 'catalogue-s3-'));
let storage: Emulator;
let auth: Record<string, string>;
beforeAll(async () => {
  // Before the S3 client exists: it takes its endpoint when it is first made.
  storage = await startStorageEmulator(directory);
  Object.assign(process.env, { AWS_ENDPOINT_URL_S3: storage.url }, picturesEnvironment(storage.url));
  auth = (await server.user('contributor')).auth;
});
afterAll(async () => {
  await storage.stop();
  rmSync(directory, { recursive: true, force: true });
});

const upload = (personId: string) => {
  const { body, contentType } = formData([{ name: 'image', filename: 'a.png', type: 'image/png', data: fixture('rgba.png') }]);
  return send(server, 'POST', `/api/persons/${personId}/create-picture/`, { raw: body, headers: { ...auth, 'content-type': contentType } });
};

describe('storage down', () => {
  it('create-picture → 503 with Retry-After and no Picture while it is stopped; after it starts again uploads work and every Picture has its file', async () => {
    const p = expectJson(await send(server, 'POST', '/api/persons/', { body: { name: uniqueName('Person') }, headers: auth }), 201);
    const first = expectJson(await upload(p.id), 201);
    const before = await send(server, 'GET', `/api/persons/${p.id}/`);

    await storage.stop();
    const res = await upload(p.id);
    const problem = expectProblem(res, 503, 'service-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(problem.retry_after).toBe(Number(res.headers.get('retry-after')));
    expect(expectJson(await send(server, 'GET', `/api/persons/${p.id}/pictures/`), 200).results).toEqual([first]);
    expect((await send(server, 'GET', `/api/persons/${p.id}/`)).headers.get('etag')).toBe(before.headers.get('etag'));
    // The guard put before storing stays: whatever reached storage is removed after the hour.
    const guards = (await dueFiles(new Date(Date.now() + (UPLOAD_GUARD_SECONDS + 60) * 1000), 1000)).entries;
    expect(guards.some((g) => g.keys.some((k) => k.startsWith(`pictures/${p.id}/`)))).toBe(true);

    await storage.start();
    const second = expectJson(await upload(p.id), 201);
    const list = expectJson(await send(server, 'GET', `/api/persons/${p.id}/pictures/`), 200).results;
    expect(list.map((x: { id: string }) => x.id)).toEqual([first.id, second.id]);
    for (const picture of list) {
      const file = await fetch(picture.url);
      expect(file.status, picture.url).toBe(200);
      // The PNG as stored: without the tIME, bKGD and tEXt chunks ImageMagick wrote (§7.1).
      expect(Buffer.from(await file.arrayBuffer()).equals(keepPngChunks(fixture('rgba.png'), STORED_PNG_CHUNKS))).toBe(true);
    }
  });
});
