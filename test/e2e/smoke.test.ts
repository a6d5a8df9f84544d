import { describe, expect, it } from 'vitest';
import { call, useServer } from '../support/server.js';

const server = useServer();

describe('genres smoke', () => {
  it('creates, reads, lists', async () => {
    const c = await server.user('contributor');
    const created = await call(server, 'POST', '/api/genres/', { body: { name: 'Action' }, headers: c.auth });
    expect(created.status).toBe(201);
    const got = await call(server, 'GET', `/api/genres/${created.body.id}/`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
    expect(got.headers.get('etag')).toBe(created.headers.get('etag'));
    const list = await call(server, 'GET', '/api/genres/');
    expect(list.body.count).toBe(1);
  });
});
