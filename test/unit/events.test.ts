/**
 * The sample events of events/ (used by tests and `npm run invoke`): each parses, has the keys
 * of an API Gateway HTTP API payload 2.0 event of its kind and agrees with the declared routes,
 * or is the DynamoDB Streams / EventBridge schedule event of a declared consumer or job.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOBS } from '../../functions/jobs/registry.js';
import { ROUTES } from '../../functions/registry.js';
import { matchesFilter, STREAM_CONSUMERS } from '../../functions/streams/registry.js';
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

const allFiles = jsonFiles(root).map((f) => relative(root, f));
const kindOf = (f: string) => f.split('/')[0]!;
/** Events of the HTTP API (payload 2.0). */
const files = allFiles.filter((f) => ['api', 'authorizer', 'catch-all'].includes(kindOf(f)));
const router = new Router(ROUTES);

const isStringMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

function expectRequestContext(rc: any, method: string, path: string, routeKey: string) {
  expect(rc).toMatchObject({ accountId: expect.any(String), apiId: expect.any(String), domainName: expect.any(String), requestId: expect.any(String), stage: expect.any(String), time: expect.any(String), timeEpoch: expect.any(Number) });
  expect(rc.http).toMatchObject({ method, path, protocol: expect.any(String), sourceIp: expect.any(String), userAgent: expect.any(String) });
  expect(rc.routeKey).toBe(routeKey);
}

describe('events/', () => {
  it('has a sample for every kind of function there is', () => {
    const kinds = new Set(allFiles.map(kindOf));
    expect([...kinds].sort()).toEqual(['api', 'authorizer', 'catch-all', 'jobs', 'streams']);
    expect(files).toEqual(expect.arrayContaining(['api/genres-list.json', 'api/genres-create.json', 'api/genres-get.json', 'authorizer/request.json', 'catch-all/unknown-path.json']));
    // One schedule event per job, one stream event per consumer.
    for (const job of JOBS) expect(allFiles, job.name).toContain(`jobs/${job.name}.json`);
    for (const c of STREAM_CONSUMERS) expect(allFiles.filter((f) => f.startsWith(`streams/${c.name}-`)), c.name).not.toEqual([]);
  });

  for (const file of allFiles.filter((f) => kindOf(f) === 'jobs')) {
    it(`${file} is an EventBridge schedule event`, () => {
      const event = JSON.parse(readFileSync(join(root, file), 'utf8'));
      expect(event).toMatchObject({ version: '0', 'detail-type': 'Scheduled Event', source: 'aws.events', detail: {} });
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
      expect(event.resources[0]).toMatch(/^arn:aws:events:/);
    });
  }

  for (const file of allFiles.filter((f) => kindOf(f) === 'streams')) {
    it(`${file} is a DynamoDB Streams event its consumer's filter passes`, () => {
      const event = JSON.parse(readFileSync(join(root, file), 'utf8'));
      const consumer = STREAM_CONSUMERS.find((c) => file.startsWith(`streams/${c.name}-`));
      expect(consumer, file).toBeDefined();
      expect(event.Records.length).toBeGreaterThan(0);
      for (const r of event.Records) {
        expect(r).toMatchObject({ eventSource: 'aws:dynamodb', eventSourceARN: expect.stringMatching(/^arn:aws:dynamodb:.*\/stream\//) });
        expect(typeof r.dynamodb.SequenceNumber).toBe('string');
        expect(Object.keys(r.dynamodb.Keys).sort()).toEqual(['pk', 'sk']);
        expect(matchesFilter(consumer!.filter, r)).toBe(true);
      }
    });
  }

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
