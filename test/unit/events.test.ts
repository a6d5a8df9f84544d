/**
 * The sample events of events/ (used by tests and `npm run invoke`): each parses, has the keys
 * of an API Gateway HTTP API payload 2.0 event of its kind, and agrees with the declared routes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/registry.js';
import { Router } from '../../shared/http/router.js';
import { gatewayPath } from '../../shared/http/route.js';
import { isJsonContentType } from '../../shared/http/request.js';
import { EVENTS_DIR } from '../support/lambda.js';

const root = fileURLToPath(EVENTS_DIR);

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : [],
  );
}

const files = jsonFiles(root).map((f) => relative(root, f));
const router = new Router(ROUTES);

const isStringMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

function expectRequestContext(rc: any, method: string, path: string, routeKey: string) {
  expect(rc).toMatchObject({ accountId: expect.any(String), apiId: expect.any(String), domainName: expect.any(String), requestId: expect.any(String), stage: expect.any(String), time: expect.any(String), timeEpoch: expect.any(Number) });
  expect(rc.http).toMatchObject({ method, path, protocol: expect.any(String), sourceIp: expect.any(String), userAgent: expect.any(String) });
  expect(rc.routeKey).toBe(routeKey);
}

describe('events/', () => {
  it('has a sample for every kind of function there is', () => {
    const kinds = new Set(files.map((f) => f.split('/')[0]));
    expect([...kinds].sort()).toEqual(['api', 'authorizer', 'catch-all']);
    expect(files).toEqual(expect.arrayContaining(['api/genres-list.json', 'api/genres-create.json', 'api/genres-get.json', 'authorizer/request.json', 'catch-all/unknown-path.json']));
  });

  for (const file of files) {
    it(`${file} is a payload 2.0 event of its kind`, () => {
      const event = JSON.parse(readFileSync(join(root, file), 'utf8'));
      expect(event.version).toBe('2.0');
      expect(typeof event.routeKey).toBe('string');
      expect(event.rawPath).toMatch(/^\//);
      expect(typeof event.rawQueryString).toBe('string');
      expect(isStringMap(event.headers)).toBe(true);
      for (const name of Object.keys(event.headers)) expect(name).toBe(name.toLowerCase()); // HTTP APIs lower-case header names
      const kind = file.split('/')[0];
      const method: string = event.requestContext.http.method;

      if (kind === 'authorizer') {
        expect(event.type).toBe('REQUEST');
        expect(event.routeArn).toMatch(/^arn:aws:execute-api:/);
        expect(Array.isArray(event.identitySource)).toBe(true);
        expect(isStringMap(event.queryStringParameters)).toBe(true);
        expect(isStringMap(event.pathParameters)).toBe(true);
        expectRequestContext(event.requestContext, method, event.rawPath, event.routeKey);
        return;
      }

      expect(typeof event.isBase64Encoded).toBe('boolean');
      expectRequestContext(event.requestContext, method, event.rawPath, event.routeKey);
      if (event.queryStringParameters !== undefined) {
        expect(isStringMap(event.queryStringParameters)).toBe(true);
        expect(Object.fromEntries(new URLSearchParams(event.rawQueryString))).toEqual(event.queryStringParameters);
      }
      if (event.body !== undefined) {
        expect(typeof event.body).toBe('string');
        expect(isJsonContentType(event.headers['content-type'])).toBe(true);
        if (!event.isBase64Encoded) {
          expect(() => JSON.parse(event.body)).not.toThrow();
          if (event.headers['content-length']) expect(Number(event.headers['content-length'])).toBe(Buffer.byteLength(event.body));
        }
      }
      if (event.requestContext.authorizer !== undefined) {
        expect(['user', 'anonymous', 'invalid', 'unavailable']).toContain(event.requestContext.authorizer.lambda.status);
      }

      const match = router.match(method, event.rawPath, event.rawQueryString);
      if (kind === 'catch-all') {
        expect(event.routeKey).toBe('$default');
        expect(match.kind).not.toBe('route');
        return;
      }
      // An API event is what API Gateway sends to the route's function.
      expect(match.kind, `${method} ${event.rawPath}`).toBe('route');
      if (match.kind !== 'route') return;
      expect(event.routeKey).toBe(`${match.route.method} ${gatewayPath(match.route.path)}`);
      expect(event.pathParameters ?? {}).toEqual(match.params);
      const protectedRoute = match.route.access !== 'public' && match.route.access !== 'credentials';
      expect(event.requestContext.authorizer !== undefined, 'only protected routes have an authorizer context').toBe(protectedRoute);
    });
  }
});
