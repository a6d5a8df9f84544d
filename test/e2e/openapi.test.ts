/**
 * Support endpoints (API.md §4.22): the OpenAPI 3.1 document, the docs page rendering it (its
 * behaviour in a browser: test/e2e/docs-page.test.ts) and the JWK Set of the token signing keys.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/registry.js';
import { gatewayPath } from '../../shared/http/route.js';
import { METHOD_ORDER, contractMethods, expectErrors, expectJson, expectProblem, send } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();

describe('GET /api/schema/', () => {
  it('is a valid OpenAPI 3.1 document, cacheable for an hour', async () => {
    const res = await send(server, 'GET', '/api/schema/');
    const doc = expectJson(res, 200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes exactly the declared routes', async () => {
    const doc = (await send(server, 'GET', '/api/schema/')).body;
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHOD_ORDER.includes(m.toUpperCase()))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    // A path naming `{id}` twice (a review under its title) is documented, like its API Gateway
    // route, with the second one renamed (`{id_2}`): OpenAPI needs unique parameter names.
    const declared = ROUTES.map((r) => `${r.method} ${gatewayPath(r.path)}`);
    expect(documented.sort()).toEqual(declared.sort());
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('every operation has responses, and every path parameter is declared', async () => {
    const doc = (await send(server, 'GET', '/api/schema/')).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        if (!METHOD_ORDER.includes(method.toUpperCase())) continue;
        expect(Object.keys(op.responses ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(declared.sort(), `${method} ${path}`).toEqual([...names].sort());
      }
    }
  });

  it('If-None-Match → 304', async () => {
    const first = await send(server, 'GET', '/api/schema/');
    const again = await send(server, 'GET', '/api/schema/', { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
  });

  it('takes no query parameters (fields included) and only GET', async () => {
    expectErrors(await send(server, 'GET', '/api/schema/?fields=openapi'), 400, 'invalid-query', ['fields']);
    expectErrors(await send(server, 'GET', '/api/schema/?foo=1'), 400, 'invalid-query', ['foo']);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await send(server, method, '/api/schema/');
      expectProblem(res, 405, 'method-not-allowed');
      expect(contractMethods(res.headers.get('allow'))).toEqual(['GET']);
    }
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('is the public key set: kty, crv, x, kid, alg, use "sig"; no private members', async () => {
    const res = await send(server, 'GET', '/.well-known/jwks.json');
    const body = expectJson(res, 200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(Object.keys(body)).toEqual(['keys']);
    expect(body.keys.length).toBeGreaterThan(0);
    const kids = new Set<string>();
    for (const key of body.keys) {
      for (const member of ['kty', 'crv', 'x', 'kid', 'alg']) expect(key[member], member).toBeTypeOf('string');
      expect(key.use).toBe('sig');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
      if (key.alg === 'EdDSA') {
        expect([key.kty, key.crv]).toEqual(['OKP', 'Ed25519']);
      } else {
        expect([key.alg, key.kty, key.crv]).toEqual(['ES256', 'EC', 'P-256']);
        expect(key.y).toBeTypeOf('string');
      }
      kids.add(key.kid);
    }
    expect(kids.size).toBe(body.keys.length);
  });

  it('verifies the access tokens the service issues (by kid)', async () => {
    const { token } = await server.user('member');
    const set = (await send(server, 'GET', '/.well-known/jwks.json')).body as JSONWebKeySet;
    const { kid } = decodeProtectedHeader(token);
    expect(set.keys.map((k) => k.kid)).toContain(kid);
    const { payload } = await jwtVerify(token, createLocalJWKSet(set));
    expect(payload.token_type).toBe('access');
  });

  it('takes no query parameters and only GET', async () => {
    expectErrors(await send(server, 'GET', '/.well-known/jwks.json?fields=keys'), 400, 'invalid-query', ['fields']);
    const res = await send(server, 'POST', '/.well-known/jwks.json', { body: {} });
    expectProblem(res, 405, 'method-not-allowed');
    expect(contractMethods(res.headers.get('allow'))).toEqual(['GET']);
  });
});

describe('GET /api/docs/', () => {
  const scriptsOf = (html: string) => [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

  it('is one HTML page with the renderer inlined: it loads nothing, and its CSP allows only its own scripts and origin', async () => {
    const res = await send(server, 'GET', '/api/docs/', { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = res.text;
    expect(html).toMatch(/^<!DOCTYPE html>/);
    // No element that loads anything from a URL: every resource is in the page (the icon is empty).
    const markup = html.replace(/<script>[\s\S]*?<\/script>|<style>[\s\S]*?<\/style>/g, '');
    expect([...markup.matchAll(/\s(?:src|href)=("[^"]*"|\S+)/gi)].map((m) => m[1])).toEqual(['"data:,"']);
    const scripts = scriptsOf(html);
    expect(scripts).toHaveLength(2);
    expect(scripts[0]).toContain('SwaggerUIBundle');
    expect(scripts[1]).toContain("'../schema/'");
    const csp = Object.fromEntries(res.headers.get('content-security-policy')!.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']!.sort()).toEqual(scripts.map(hash).sort());
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
  });

  it('is sent gzip-encoded to a client that accepts gzip, with its own ETag; If-None-Match → 304', async () => {
    const plain = await send(server, 'GET', '/api/docs/', { headers: { 'accept-encoding': 'identity' } });
    const gzip = await send(server, 'GET', '/api/docs/', { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(gzip.status).toBe(200);
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('vary')).toMatch(/Accept-Encoding/);
    expect(gzip.text).toBe(plain.text);
    const compressed = Number(gzip.headers.get('content-length'));
    expect(compressed).toBeLessThan(Buffer.byteLength(plain.text) / 3);
    expect(gzipSync(Buffer.from(plain.text)).length).toBeGreaterThan(compressed * 0.9);
    expect(gzip.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    const again = await send(server, 'GET', '/api/docs/', { headers: { 'accept-encoding': 'gzip', 'if-none-match': gzip.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=3600');
    const refused = await send(server, 'GET', '/api/docs/', { headers: { 'accept-encoding': 'gzip;q=0, *' } });
    expect(refused.headers.get('content-encoding')).toBeNull();
  });

  it('takes no query parameters and only GET', async () => {
    expectErrors(await send(server, 'GET', '/api/docs/?url=https://example.org/x.json'), 400, 'invalid-query', ['url']);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await send(server, method, '/api/docs/');
      expectProblem(res, 405, 'method-not-allowed');
      expect(contractMethods(res.headers.get('allow'))).toEqual(['GET']);
    }
  });
});
