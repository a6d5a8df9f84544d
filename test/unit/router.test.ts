/**
 * Path matching of API.md §1.1 (shared/http/router.ts): literal segments before parameters,
 * 405 with `Allow` in contract order, 308 for a missing final slash, 404 otherwise, and the
 * extra API Gateway routes that keep literal paths from reaching a parameter route.
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/registry.js';
import { Router } from '../../shared/http/router.js';
import { gatewayPath, pathParamNames, type Method, type RouteDecl } from '../../shared/http/route.js';

const decl = (method: Method, path: string): RouteDecl => ({
  name: `test.${method.toLowerCase()}${path.replace(/[^a-z]/g, '_')}`,
  method,
  path,
  access: 'public',
  summary: `${method} ${path}`,
  response: { status: 200 },
  keys: {},
});

// Parameter paths declared before the literal ones: the router must not depend on the order.
const USERS = [
  decl('GET', '/api/users/{id}/'),
  decl('PUT', '/api/users/{id}/'),
  decl('PATCH', '/api/users/{id}/'),
  decl('DELETE', '/api/users/{id}/'),
  decl('GET', '/api/users/me/'),
  decl('POST', '/api/users/activation/'),
  decl('GET', '/api/users/'),
  decl('POST', '/api/users/'),
  decl('GET', '/api/animes/{id}/reviews/{id}/'),
  decl('POST', '/api/animes/{id}/reviews/create/'),
];

describe('Router.match', () => {
  const router = new Router(USERS);

  it('a literal segment beats a parameter', () => {
    const me = router.match('GET', '/api/users/me/');
    expect(me).toMatchObject({ kind: 'route', params: {} });
    expect(me.kind === 'route' && me.route.path).toBe('/api/users/me/');
    const other = router.match('GET', '/api/users/abc_123/');
    expect(other.kind === 'route' && other.route.path).toBe('/api/users/{id}/');
    expect(other).toMatchObject({ params: { id: 'abc_123' } });
  });

  it('a literal path never falls through to the parameter path for a method it lacks', () => {
    expect(router.match('PUT', '/api/users/activation/')).toEqual({ kind: 'method-not-allowed', allow: 'POST', path: '/api/users/activation/' });
    expect(router.match('DELETE', '/api/users/me/')).toEqual({ kind: 'method-not-allowed', allow: 'GET', path: '/api/users/me/' });
    const create = router.match('POST', '/api/animes/x1/reviews/create/');
    expect(create.kind === 'route' && create.route.path).toBe('/api/animes/{id}/reviews/create/');
    expect(router.match('GET', '/api/animes/x1/reviews/create/')).toMatchObject({ kind: 'method-not-allowed', allow: 'POST' });
  });

  it('repeated {id} segments become id and id_2', () => {
    expect(router.match('GET', '/api/animes/a1/reviews/b2/')).toMatchObject({ kind: 'route', params: { id: 'a1', id_2: 'b2' } });
  });

  it('405 lists the methods in the order GET, POST, PUT, PATCH, DELETE', () => {
    expect(router.match('POST', '/api/users/xyz/')).toEqual({ kind: 'method-not-allowed', allow: 'GET, PUT, PATCH, DELETE', path: '/api/users/{id}/' });
    expect(router.match('DELETE', '/api/users/')).toMatchObject({ allow: 'GET, POST' });
    expect(router.match('HEAD', '/api/users/')).toMatchObject({ kind: 'method-not-allowed' });
    expect(router.methodsFor('/api/users/q/')).toBe('GET, PUT, PATCH, DELETE');
    expect(router.methodsFor('/api/nowhere/')).toBeNull();
  });

  it('a documented path without its final slash → 308 to the canonical path, with the query', () => {
    expect(router.match('GET', '/api/users', 'limit=2&q=a%20b')).toEqual({ kind: 'redirect', location: '/api/users/?limit=2&q=a%20b' });
    expect(router.match('GET', '/api/users/me')).toEqual({ kind: 'redirect', location: '/api/users/me/' });
    expect(router.match('PATCH', '/api/users/abc')).toEqual({ kind: 'redirect', location: '/api/users/abc/' });
  });

  it('anything else → not found', () => {
    for (const path of ['/api/nothing/', '/api/users/a/b/', '/api/', '/api', '/', '', 'api/users/', '/API/users/', '/api/users//', '/api/users/../', '/api/users/./']) {
      expect(router.match('GET', path), path).toEqual({ kind: 'not-found' });
    }
  });

  it('parameter values are URL-decoded; malformed escapes are kept as sent', () => {
    expect(router.match('GET', '/api/users/a%20b/')).toMatchObject({ params: { id: 'a b' } });
    expect(router.match('GET', '/api/users/%E0%A4%A/')).toMatchObject({ params: { id: '%E0%A4%A' } });
  });

  it('refuses a route declared twice', () => {
    expect(() => new Router([decl('GET', '/api/a/'), decl('GET', '/api/a/')])).toThrow(/declared twice/);
  });
});

describe('Router.gatewayRoutes', () => {
  it('adds catch-all routes for the methods a parameter path would take from a literal path', () => {
    const router = new Router([decl('GET', '/api/users/{id}/'), decl('PUT', '/api/users/{id}/'), decl('POST', '/api/users/activation/')]);
    const routes = router.gatewayRoutes().map((r) => `${r.method} ${r.path} ${r.route ? r.route.method : 'catch-all'}`);
    expect(routes.sort()).toEqual(
      [
        'GET /api/users/{id}/ GET',
        'PUT /api/users/{id}/ PUT',
        'POST /api/users/activation/ POST',
        'GET /api/users/activation/ catch-all',
        'PUT /api/users/activation/ catch-all',
      ].sort(),
    );
  });

  it('adds nothing where no parameter path shadows a literal path', () => {
    const router = new Router([decl('GET', '/api/genres/'), decl('POST', '/api/genres/'), decl('GET', '/api/genres/{id}/')]);
    expect(router.gatewayRoutes().every((r) => r.route !== null)).toBe(true);
    expect(router.gatewayRoutes()).toHaveLength(3);
  });

  it('uses unique parameter names in gateway paths', () => {
    const router = new Router([decl('GET', '/api/animes/{id}/reviews/{id}/')]);
    expect(router.gatewayRoutes()[0]!.path).toBe('/api/animes/{id}/reviews/{id_2}/');
    expect(gatewayPath('/api/animes/{id}/reviews/{id}/')).toBe('/api/animes/{id}/reviews/{id_2}/');
    expect(pathParamNames('/api/users/{username}/about/')).toEqual(['username']);
  });

  it('the declared routes: every one is a gateway route, and shadowed literal methods go to the catch-all', () => {
    const router = new Router(ROUTES);
    const gw = router.gatewayRoutes();
    for (const r of ROUTES) expect(gw.some((g) => g.route === r && g.method === r.method && g.path === gatewayPath(r.path))).toBe(true);
    for (const g of gw.filter((x) => x.route === null)) {
      expect(router.match(g.method, g.path.replace(/\{[a-z_0-9]+\}/g, 'x')).kind).toBe('method-not-allowed');
    }
  });
});

describe('the declared routes', () => {
  const router = new Router(ROUTES);
  it('resolve the catalogue paths', () => {
    const list = router.match('GET', '/api/genres/');
    expect(list.kind === 'route' && list.route.name).toBe('genres.list');
    const get = router.match('GET', '/api/producers/abcdefghijklmnopqrstuv/');
    expect(get.kind === 'route' && get.route.name).toBe('producers.get');
    expect(router.match('POST', '/api/genres/abc/')).toMatchObject({ kind: 'method-not-allowed', allow: 'GET, PUT, PATCH, DELETE' });
    expect(router.match('GET', '/.well-known/jwks.json').kind).toBe('route');
  });
});
