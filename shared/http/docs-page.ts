/**
 * The docs page (GET /api/docs/, API.md §4.22): Swagger UI rendering `/api/schema/`, as one
 * self-contained HTML document. The renderer's script and style sheet (the `swagger-ui-dist`
 * package) are inlined, so the page loads nothing from anywhere but the API itself: no CDN, it
 * works offline and behind networks that allow only the API. Its Content-Security-Policy allows
 * exactly the two inline scripts (by hash), requests to the page's own origin (the document and
 * "Try it out") and nothing else.
 *
 * The page is built from the package's files on first use, wherever the function runs: locally
 * they are the installed package, on AWS the copies the CDK puts into the function's package
 * (`packageFiles` of the route, infra/aws/function.ts); module resolution finds either.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { PackageFiles } from './route.js';

/** The renderer's files the page is made of (and their licence, shipped with them). */
export const RENDERER: PackageFiles = {
  package: 'swagger-ui-dist',
  files: ['package.json', 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js', 'swagger-ui.css'],
};

/** Swagger UI's settings: the document next to the page, its operations listed, no outside validator. */
const INIT = `window.ui = SwaggerUIBundle({
  url: new URL('../schema/', window.location.href).href,
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  filter: true,
  displayRequestDuration: true,
  validatorUrl: null,
});`;

const PAGE_STYLE = 'body { margin: 0; background: #fafafa; } .swagger-ui .information-container { padding: 0 20px; }';

export interface DocsPage {
  /** The HTML, UTF-8. */
  html: Buffer;
  /** The same, gzip-encoded. */
  gzip: Buffer;
  /** The Content-Security-Policy header of the page. */
  csp: string;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * A script's text made safe inside `<script>`: the HTML parser ends the element at the first
 * `</script` and enters its escaped states at `<!--`. Both only occur inside the bundle's string
 * and regular-expression literals, where `\x3C` is the same character.
 */
export function inlineScript(js: string): string {
  return js.replace(/<(?=\/script|!--)/gi, '\\x3C');
}

/** The page for the renderer's script and style sheet. */
export function renderDocsPage(bundle: string, css: string): DocsPage {
  if (/<\/style/i.test(css)) throw new Error('the style sheet cannot be inlined: it contains </style');
  const scripts = [inlineScript(bundle), INIT];
  const html = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Anime &amp; Manga Catalogue API: reference</title>',
    // An empty icon: the browser would otherwise ask for /favicon.ico (a 404).
    '<link rel="icon" href="data:,">',
    `<style>${css}</style>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    '<div id="swagger-ui"></div>',
    ...scripts.map((s) => `<script>${s}</script>`),
    '</body>',
    '</html>',
    '',
  ].join('\n');
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map(sha256).join(' ')}`,
    // Swagger UI sets style attributes; styles cannot fetch anything with img-src and font-src closed.
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  const bytes = Buffer.from(html, 'utf8');
  return { html: bytes, gzip: gzipSync(bytes), csp };
}

let built: DocsPage | undefined;

/** The page from the renderer's installed files, built once per process. */
export function docsPage(): DocsPage {
  if (!built) {
    const dir = dirname(createRequire(import.meta.url).resolve(`${RENDERER.package}/package.json`));
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    built = renderDocsPage(read('swagger-ui-bundle.js'), read('swagger-ui.css'));
  }
  return built;
}
