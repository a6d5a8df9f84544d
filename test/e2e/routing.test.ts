/**
 * Routing and cross-cutting response rules (API.md §1.1, §1.3, §1.4, §1.7): unknown paths,
 * methods not listed, the final slash, CORS, request ids, problem documents and Cache-Control.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  METHOD_ORDER,
  contractMethods,
  create,
  expectJson,
  expectProblem,
  kind,
  minimal,
  send,
  uniqueName,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const ORIGIN = 'https://app.example.org';
const OTHER_ORIGIN = 'https://evil.example.com';
const SEGMENTS = ['genres', 'themes', 'demographics', 'magazines', 'producers'];
const EXPOSED = ['ETag', 'Location', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id'];
const REQUEST_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match'];

let contributor: Record<string, string>;
let genreId: string;
beforeAll(async () => {
  contributor = (await server.user('contributor')).auth;
  genreId = (await create(server, kind('genres'), contributor, minimal(kind('genres'), uniqueName('Routing')))).id;
});

/** The documented paths of this service and their §2.5 methods. */
function documented(): [string, string[]][] {
  return [
    ...SEGMENTS.flatMap((s): [string, string[]][] => [
      [`/api/${s}/`, ['GET', 'POST']],
      [`/api/${s}/AAAAAAAAAAAAAAAAAAAAAA/`, ['GET', 'PUT', 'PATCH', 'DELETE']],
    ]),
    ['/api/schema/', ['GET']],
    ['/.well-known/jwks.json', ['GET']],
  ];
}
const lower = (list: string[]) => list.map((s) => s.toLowerCase()).sort();
const headerList = (h: string | null) => (h ?? '').split(',').map((s) => s.trim()).filter(Boolean);

describe('unknown paths → 404 (§1.1)', () => {
  it.each([
    '/',
    '/api/',
    '/api/nothing/',
    '/api/GENRES/',
    '/api/Genres/',
    '/API/genres/',
    '/api/genres/abc/def/',
    '/api/genres//',
    '/api/genres/abc/def',
    '/apigenres/',
    '/api/schema/extra/',
    '/.well-known/jwks.json/',
    '/.well-known/other.json',
  ])('%s', async (path) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await send(server, method, path, { body: method === 'POST' ? { name: 'x' } : undefined });
      expectProblem(res, 404, 'not-found');
    }
  });

  it('a 404 for an unknown path beats a bad token, a huge body and a wrong content type', async () => {
    const res = await send(server, 'POST', '/api/nothing/', {
      body: 'x'.repeat(2 * 1_048_576),
      headers: { authorization: 'Bearer nope', 'content-type': 'text/plain' },
    });
    expectProblem(res, 404, 'not-found');
  });
});

describe('methods not listed → 405 with Allow (§1.1)', () => {
  it.each(documented())('%s', async (path, methods) => {
    for (const method of METHOD_ORDER.filter((m) => !methods.includes(m))) {
      const res = await send(server, method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expectProblem(res, 405, 'method-not-allowed');
      expect(contractMethods(res.headers.get('allow')), `${method} ${path}`).toEqual(methods);
      expect(res.headers.get('allow')!.split(', ').filter((m) => METHOD_ORDER.includes(m))).toEqual(methods);
    }
  });

  it('405 beats 401, 413 and 415', async () => {
    const res = await send(server, 'DELETE', '/api/genres/', {
      body: 'x'.repeat(2 * 1_048_576),
      headers: { authorization: 'Bearer nope', 'content-type': 'text/plain' },
    });
    expectProblem(res, 405, 'method-not-allowed');
    expect(contractMethods(res.headers.get('allow'))).toEqual(['GET', 'POST']);
    expectProblem(await send(server, 'POST', `/api/genres/${genreId}/`, { body: { name: 'x' } }), 405, 'method-not-allowed');
  });

  it('HEAD on a GET path is answered like the GET without a body, or with 405', async () => {
    for (const path of ['/api/genres/', `/api/genres/${genreId}/`, '/api/schema/']) {
      const res = await send(server, 'HEAD', path);
      expect(res.text).toBe('');
      if (res.status === 405) {
        expect(contractMethods(res.headers.get('allow'))).toContain('GET');
      } else {
        expect(res.status).toBe(200);
        expect(res.headers.get('etag')).toBeTruthy();
      }
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });
});

describe('documented paths without the final slash (§1.1)', () => {
  /** Either a 308 to the documented path (same query string) or the same response as the documented path. */
  async function expectCanonical(method: string, path: string, canonical: string) {
    const res = await send(server, method, path, { headers: contributor });
    if (res.status === 308) {
      const location = new URL(res.headers.get('location')!, `${server.url}${path}`);
      expect(location.href).toBe(`${server.url}${canonical}`);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    } else {
      const served = await send(server, method, canonical, { headers: contributor });
      expect(res.status).toBe(served.status);
      expect(res.body).toEqual(served.body);
    }
  }

  it.each(SEGMENTS)('/api/%s and /api/%s/{id}', async (segment) => {
    await expectCanonical('GET', `/api/${segment}`, `/api/${segment}/`);
    await expectCanonical('GET', `/api/${segment}?q=x%20y&limit=2`, `/api/${segment}/?q=x%20y&limit=2`);
    await expectCanonical('GET', `/api/${segment}/${genreId}`, `/api/${segment}/${genreId}/`);
    await expectCanonical('DELETE', `/api/${segment}/AAAAAAAAAAAAAAAAAAAAAA`, `/api/${segment}/AAAAAAAAAAAAAAAAAAAAAA/`);
  });

  it('/api/schema', async () => {
    await expectCanonical('GET', '/api/schema', '/api/schema/');
  });

  it('a redirect keeps the request method (308, not 301/302)', async () => {
    const res = await send(server, 'POST', '/api/genres', { body: { name: uniqueName('Slash') }, headers: contributor });
    expect([308, 201]).toContain(res.status);
  });
});

describe('CORS (§1.1)', () => {
  it.each(documented())('preflight OPTIONS %s → 204 with the CORS headers for an allowed origin', async (path, methods) => {
    const res = await send(server, 'OPTIONS', path, {
      headers: { origin: ORIGIN, 'access-control-request-method': methods.at(-1)!, 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(headerList(res.headers.get('vary')).map((v) => v.toLowerCase())).toContain('origin');
    expect(contractMethods(res.headers.get('access-control-allow-methods')).sort()).toEqual([...methods].sort());
    expect(lower(headerList(res.headers.get('access-control-allow-headers')))).toEqual(expect.arrayContaining(lower(REQUEST_HEADERS)));
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('preflight from another origin, or without Origin: 204 without CORS grants', async () => {
    for (const headers of [{ origin: OTHER_ORIGIN, 'access-control-request-method': 'POST' }, {}] as Record<string, string>[]) {
      const res = await send(server, 'OPTIONS', '/api/genres/', { headers });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toBeNull();
    }
  });

  it('a preflight needs no credentials, even on a write path', async () => {
    const res = await send(server, 'OPTIONS', `/api/genres/${genreId}/`, { headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE' } });
    expect(res.status).toBe(204);
  });

  it('OPTIONS on an unknown path → 404', async () => {
    expectProblem(await send(server, 'OPTIONS', '/api/nothing/', { headers: { origin: ORIGIN } }), 404, 'not-found');
  });

  it('responses to an allowed origin carry Access-Control-Allow-Origin, Vary: Origin and the exposed headers — errors included', async () => {
    const requests: [string, string, Record<string, string>, unknown][] = [
      ['GET', '/api/genres/', {}, undefined],
      ['GET', `/api/genres/${genreId}/`, {}, undefined],
      ['POST', '/api/genres/', contributor, { name: uniqueName('Cors') }],
      ['GET', '/api/genres/nope!/', {}, undefined],
      ['POST', '/api/genres/', {}, { name: 'x' }],
      ['DELETE', '/api/genres/', {}, undefined],
      ['GET', '/api/nothing/', {}, undefined],
      ['GET', '/api/genres/?foo=1', {}, undefined],
    ];
    for (const [method, path, headers, body] of requests) {
      const res = await send(server, method, path, { body, headers: { ...headers, origin: ORIGIN } });
      expect(res.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe(ORIGIN);
      expect(headerList(res.headers.get('vary')).map((v) => v.toLowerCase())).toContain('origin');
      expect(lower(headerList(res.headers.get('access-control-expose-headers')))).toEqual(expect.arrayContaining(lower(EXPOSED)));
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('responses to another origin carry no CORS grant', async () => {
    const res = await send(server, 'GET', '/api/genres/', { headers: { origin: OTHER_ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const err = await send(server, 'GET', '/api/nothing/', { headers: { origin: OTHER_ORIGIN } });
    expect(err.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('every response carries X-Request-Id (§1.3)', () => {
  it('on successes, redirects, 204, 304 and problems; a new one per request; problems repeat it as request_id', async () => {
    const ids: string[] = [];
    const created = await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Req') }, headers: contributor });
    const etag = created.headers.get('etag')!;
    const responses = [
      created,
      await send(server, 'GET', '/api/genres/'),
      await send(server, 'GET', `/api/genres/${created.body.id}/`, { headers: { 'if-none-match': etag } }),
      await send(server, 'GET', '/api/genres'),
      await send(server, 'OPTIONS', '/api/genres/', { headers: { origin: ORIGIN } }),
      await send(server, 'DELETE', `/api/genres/${created.body.id}/`, { headers: contributor }),
      await send(server, 'GET', `/api/genres/${created.body.id}/`),
      await send(server, 'PUT', '/api/genres/'),
      await send(server, 'POST', '/api/genres/', { body: {} }),
      await send(server, 'GET', '/api/schema/'),
      await send(server, 'GET', '/.well-known/jwks.json'),
    ];
    expect(responses.map((r) => r.status)).toEqual([201, 200, 304, responses[3]!.status, 204, 204, 404, 405, 401, 200, 200]);
    for (const res of responses) {
      const id = res.headers.get('x-request-id');
      expect(id, `${res.method} ${res.path}`).toBeTruthy();
      ids.push(id!);
      if (res.status >= 400) expect(res.body.request_id).toBe(id);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('response formats (§1.3, §1.4, §1.7)', () => {
  it('problem documents have type, title, status, detail, instance and request_id; instance has no query string', async () => {
    const res = await send(server, 'GET', '/api/genres/AAAAAAAAAAAAAAAAAAAAAA/?fields=name');
    const body = expectProblem(res, 404, 'not-found');
    expect(body.instance).toBe('/api/genres/AAAAAAAAAAAAAAAAAAAAAA/');
    for (const key of ['type', 'title', 'status', 'detail', 'instance', 'request_id']) expect(body).toHaveProperty(key);
  });

  it('successes are application/json; charset=utf-8; GETs are public, max-age=60; writes no-store', async () => {
    const post = await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Fmt') }, headers: contributor });
    expect(expectJson(post, 201)).toBeTruthy();
    expect(post.headers.get('cache-control')).toBe('no-store');
    const id = post.body.id;
    for (const path of ['/api/genres/', `/api/genres/${id}/`]) {
      const res = await send(server, 'GET', path);
      expectJson(res, 200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    }
    for (const [method, body] of [['PUT', { name: uniqueName('Fmt') }], ['PATCH', {}]] as const) {
      const res = await send(server, method, `/api/genres/${id}/`, { body, headers: contributor });
      expectJson(res, 200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const del = await send(server, 'DELETE', `/api/genres/${id}/`, { headers: contributor });
    expect(del.status).toBe(204);
    expect(del.headers.get('cache-control')).toBe('no-store');
  });

  it('every error status carries a problem document with Cache-Control: no-store', async () => {
    const big = 'x'.repeat(1_048_577);
    const cases: [number, Parameters<typeof expectProblem>[2], string, string, Record<string, string>, unknown][] = [
      [400, 'invalid-query', 'GET', '/api/genres/?foo=1', {}, undefined],
      [400, 'malformed-request', 'POST', '/api/genres/', contributor, '{'],
      [400, 'validation-error', 'POST', '/api/genres/', contributor, {}],
      [401, 'authentication-required', 'POST', '/api/genres/', {}, {}],
      [401, 'invalid-token', 'GET', '/api/genres/', { authorization: 'Bearer x' }, undefined],
      [404, 'not-found', 'GET', '/api/genres/AAAAAAAAAAAAAAAAAAAAAA/', {}, undefined],
      [405, 'method-not-allowed', 'PATCH', '/api/genres/', {}, {}],
      [412, 'precondition-failed', 'PATCH', `/api/genres/${genreId}/`, { ...contributor, 'if-match': '"x"' }, {}],
      [413, 'payload-too-large', 'POST', '/api/genres/', contributor, big],
      [415, 'unsupported-media-type', 'POST', '/api/genres/', { ...contributor, 'content-type': 'text/plain' }, 'name'],
    ];
    for (const [status, type, method, path, headers, body] of cases) {
      expectProblem(await send(server, method, path, { body, headers }), status, type);
    }
  });
});
