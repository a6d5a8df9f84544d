/**
 * The catch-all function (the API's default route) on the sample event: 404 for unknown paths,
 * 405 with Allow, 308 for a missing final slash, CORS preflights (API.md §1.1).
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/catch-all/handler.js';
import { invokeApi, loadEvent } from '../support/lambda.js';
import type { ApiEvent } from '../../shared/http/handler.js';

function event(method: string, path: string, opts: { query?: string; headers?: Record<string, string> } = {}): ApiEvent {
  const e = loadEvent<ApiEvent>('catch-all/unknown-path.json');
  e.rawPath = path;
  e.requestContext.http.method = method;
  e.requestContext.http.path = path;
  e.rawQueryString = opts.query ?? '';
  Object.assign(e.headers!, opts.headers);
  return e;
}

describe('catch-all', () => {
  it('the sample event: 404 not-found problem with the request id', async () => {
    const res = await invokeApi(handler, loadEvent<ApiEvent>('catch-all/unknown-path.json'));
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.body).toMatchObject({ type: 'urn:problem:not-found', status: 404, instance: '/api/no-such-thing/', request_id: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a' });
    expect(res.headers['x-request-id']).toBe('2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a');
  });

  it('a method the path does not list → 405 with Allow', async () => {
    const res = await invokeApi(handler, event('POST', '/api/genres/abc/'));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PUT, PATCH, DELETE');
    expect(res.body).toMatchObject({ type: 'urn:problem:method-not-allowed', status: 405 });
  });

  it('a documented path without its final slash → 308 to the absolute canonical URL, same query', async () => {
    const res = await invokeApi(handler, event('GET', '/api/genres', { query: 'q=mecha&limit=2' }));
    expect(res.status).toBe(308);
    expect(res.headers.location).toBe('https://api.example.org/api/genres/?q=mecha&limit=2');
  });

  it('OPTIONS on a documented path → 204 preflight for an allowed origin', async () => {
    const res = await invokeApi(handler, event('OPTIONS', '/api/genres/', { headers: { origin: 'https://app.example.org', 'access-control-request-method': 'POST' } }));
    expect(res.status).toBe(204);
    expect(res.raw).toBeUndefined();
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example.org',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key',
      'access-control-max-age': '600',
    });
    expect(res.headers.vary).toContain('Origin');
  });

  it('OPTIONS from an origin that is not allowed → no CORS grant', async () => {
    const res = await invokeApi(handler, event('OPTIONS', '/api/genres/', { headers: { origin: 'https://evil.example.org' } }));
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('OPTIONS on an unknown path → 404', async () => {
    expect((await invokeApi(handler, event('OPTIONS', '/api/nope/'))).status).toBe(404);
  });
});
