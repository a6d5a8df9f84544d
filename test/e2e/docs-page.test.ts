/**
 * The docs page (GET /api/docs/) in a real browser: Debian's Chromium, headless, driven by
 * playwright-core. The page must render the whole document without a console error, load
 * nothing but from the API, show every tag and every operation, and send a "Try it out" request
 * to the local server whose real response it renders. Screenshots land in test-artifacts/.
 *
 * Swagger UI renders a long list of operations virtually (only those near the viewport are in
 * the DOM), so the page is scrolled from top to bottom and every operation seen on the way is
 * counted.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORT } from '../../functions/registry.js';
import { gatewayPath } from '../../shared/http/route.js';
import { send } from '../support/contract.js';
import { SPEC_OPERATIONS } from '../support/spec.js';
import { useServer } from '../support/server.js';

const server = useServer();

/** Debian's package (`apt-get install chromium`; .ci/run installs it when missing). */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Flags for a headless run as root on a closed network: no sandbox, GPU, QUIC or background traffic. */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** Every operation of the contract (docs/spec/: the 151 and the 2 extensions) and the support endpoints, as the document names them. */
const expected = [...SPEC_OPERATIONS.map((o) => [o.method, o.path]), ...SUPPORT.map((r) => [r.method, r.path])].map(([method, path]) => `${method} ${gatewayPath(path!)}`);

let profile: string;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];
const requested: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  profile = mkdtempSync(join(tmpdir(), 'docs-browser-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 } });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(`${e.name}: ${e.message}`));
  page.on('request', (r) => requested.push(r.url()));
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Operations and tags in the DOM now (evaluated in the page, hence a string: no DOM types here). */
const VISIBLE = `({
  ops: [...document.querySelectorAll('.opblock')].map((e) => e.querySelector('.opblock-summary-method')?.textContent + ' ' + e.querySelector('.opblock-summary-path')?.dataset.path),
  tags: [...document.querySelectorAll('.opblock-tag')].map((e) => e.dataset.tag),
  atBottom: window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2,
})`;
const visible = (p: Page) => p.evaluate<{ ops: string[]; tags: string[]; atBottom: boolean }>(VISIBLE);

describe('the docs page in a browser', () => {
  it('renders every tag and every operation of the document, without a console error, loading nothing from elsewhere', { timeout: 240_000 }, async () => {
    const doc = (await send(server, 'GET', '/api/schema/')).body as { paths: Record<string, Record<string, { tags: string[] }>> };
    const tags = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.tags[0]!)));

    await page.goto(`${server.url}/api/docs/`);
    await page.locator('.opblock').first().waitFor({ timeout: 120_000 });
    await expect.poll(() => page.locator('.info .title').innerText()).toMatch(/Anime & Manga Catalogue API/);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-page.png') });

    const seenOps = new Set<string>();
    const seenTags = new Set<string>();
    for (let step = 0; step < 500; step++) {
      const now = await visible(page);
      for (const op of now.ops) seenOps.add(op);
      for (const tag of now.tags) seenTags.add(tag);
      if (now.atBottom) break;
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(40);
    }
    expect([...seenOps].sort()).toEqual([...expected].sort());
    expect(expected).toHaveLength(SPEC_OPERATIONS.length + SUPPORT.length);
    expect([...seenTags].sort()).toEqual([...tags].sort());

    const origin = new URL(server.url).origin;
    expect(requested.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin)).toEqual([]);
    expect(requested.map((u) => new URL(u).pathname)).toEqual(expect.arrayContaining(['/api/docs/', '/api/schema/']));
    expect(consoleErrors).toEqual([]);
  });

  it('"Try it out" → "Execute" sends the request to the server and renders its real response', { timeout: 180_000 }, async () => {
    const { auth } = await server.user('contributor');
    const name = `Iyashikei ${Date.now()}`;
    const created = await send(server, 'POST', '/api/genres/', { headers: auth, body: { name } });
    expect(created.status).toBe(201);

    // The page's filter (by tag) brings the operation up, as a reader would.
    await page.goto(`${server.url}/api/docs/`);
    await page.locator('.operation-filter-input').fill('genres');
    const op = page.locator('.opblock.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/api/genres/"]') });
    await op.waitFor({ timeout: 120_000 });
    await op.locator('.opblock-summary-control').click();
    await op.locator('.try-out__btn').click();
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/genres/' && r.request().method() === 'GET'),
      op.locator('.execute').click(),
    ]);
    expect(response.status()).toBe(200);
    const live = op.locator('.live-responses-table tbody tr.response');
    await expect.poll(() => live.locator('.response-col_status').innerText()).toBe('200');
    const body = JSON.parse(await live.locator('.highlight-code pre').innerText()) as { results: { id: string; name: string }[] };
    expect(body.results.map((g) => [g.id, g.name])).toContainEqual([created.body.id, name]);
    // The very response the server sent: its request id is among the headers shown.
    expect((await live.locator('.headerline').allInnerTexts()).map((h) => h.trim())).toContain(`x-request-id: ${response.headers()['x-request-id']}`);
    await op.screenshot({ path: join(ARTIFACTS, 'docs-page-try-it-out.png') });
    expect(consoleErrors).toEqual([]);
  });
});
