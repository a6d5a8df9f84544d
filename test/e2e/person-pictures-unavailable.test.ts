/**
 * An upload while object storage cannot be reached (API.md §1.4, §4.9): 503 service-unavailable
 * with Retry-After, and no Picture is appended (the person is unchanged). This file points the
 * S3 endpoint at a loopback port where nothing listens, before the client exists.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/engines.js';
import { dueFiles, UPLOAD_GUARD_SECONDS } from '../../shared/db/files.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { fixture } from '../support/images.js';
import { formData } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  process.env.AWS_ENDPOINT_URL_S3 = `http://127.0.0.1:${await freePort()}`;
  auth = (await server.user('contributor')).auth;
});

describe('storage unavailable', () => {
  it('create-picture → 503 with Retry-After; no Picture; the person is unchanged', async () => {
    const p = expectJson(await send(server, 'POST', '/api/persons/', { body: { name: uniqueName('Person') }, headers: auth }), 201);
    const before = await send(server, 'GET', `/api/persons/${p.id}/`);
    const { body, contentType } = formData([{ name: 'image', filename: 'a.png', type: 'image/png', data: fixture('rgba.png') }]);
    const res = await send(server, 'POST', `/api/persons/${p.id}/create-picture/`, { raw: body, headers: { ...auth, 'content-type': contentType } });
    const problem = expectProblem(res, 503, 'service-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(problem.retry_after).toBe(Number(res.headers.get('retry-after')));
    expect(expectJson(await send(server, 'GET', `/api/persons/${p.id}/pictures/`), 200).count).toBe(0);
    const after = await send(server, 'GET', `/api/persons/${p.id}/`);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
    // The guard put before storing stays: whatever reached storage is removed after the hour.
    const guards = (await dueFiles(new Date(Date.now() + (UPLOAD_GUARD_SECONDS + 60) * 1000), 1000)).entries;
    expect(guards.some((g) => g.keys.some((k) => k.startsWith(`pictures/${p.id}/`)))).toBe(true);
  });
});
