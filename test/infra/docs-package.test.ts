/**
 * The docs page's function as the CDK packages it: its bundle plus the renderer's files under
 * `node_modules/swagger-ui-dist/` (the route's `packageFiles`), and nothing else of the package.
 * The bundle is run from that directory, outside the repository, as Lambda runs it: it finds
 * the files by module resolution and serves the page.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/support/routes.js';
import { CatalogueFunction } from '../../infra/aws/function.js';
import { RENDERER } from '../../shared/http/docs-page.js';
import { routeEntry } from '../../shared/http/route.js';

const outdir = mkdtempSync(join(tmpdir(), 'cdk-docs-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the docs function package', () => {
  it('holds the bundle and the renderer files, and serves the page from them', { timeout: 120_000 }, async () => {
    const app = new App({ outdir });
    const stack = new Stack(app, 'Docs');
    new CatalogueFunction(stack, 'Docs', { entry: routeEntry(routes.docs), component: routes.docs.name, description: 'docs' });
    app.synth();
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')));
    expect(assets).toHaveLength(1);
    const dir = join(outdir, assets[0]!);
    // Its modules (the entry and the chunks it reaches, with their maps) and the renderer's files.
    expect(readdirSync(dir).filter((f) => !/\.mjs(\.map)?$/.test(f))).toEqual(['node_modules']);
    expect(readdirSync(dir)).toContain('index.mjs');
    expect(readdirSync(join(dir, 'node_modules'))).toEqual([RENDERER.package]);
    expect(readdirSync(join(dir, 'node_modules', RENDERER.package)).sort()).toEqual([...RENDERER.files].sort());

    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    const { handler } = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as { handler: (e: unknown, c: unknown) => Promise<any> };
    const event = {
      version: '2.0',
      routeKey: 'GET /api/docs/',
      rawPath: '/api/docs/',
      rawQueryString: '',
      headers: { host: 'api.example.org', 'accept-encoding': 'gzip' },
      requestContext: { requestId: 'r-1', http: { method: 'GET', path: '/api/docs/', sourceIp: '192.0.2.1' } },
      isBase64Encoded: false,
    };
    const context = { functionName: 'support.docs', awsRequestId: 'a-1', getRemainingTimeInMillis: () => 10_000 };
    const out = await handler(event, context);
    expect(out.statusCode).toBe(200);
    expect(out.isBase64Encoded).toBe(true);
    expect(out.headers['content-encoding']).toBe('gzip');
    expect(out.headers['content-type']).toBe('text/html; charset=utf-8');
    const { gunzipSync } = await import('node:zlib');
    const html = gunzipSync(Buffer.from(out.body, 'base64')).toString('utf8');
    expect(html).toContain('SwaggerUIBundle');
    // Lambda's response payload limit is 6 MB.
    expect(out.body.length).toBeLessThan(6 * 1024 * 1024);
  });
});
