/**
 * The OpenAPI document (API.md §4.22). A function package carries it as a data file written when
 * the package is built (infra/aws/package-files.ts), so the function loads no declaration and no
 * schema to serve it; run from the sources, it is built from the declarations on first use. The
 * `servers` entry is the request's base URL.
 */
import { createHandler } from '../../shared/http/handler.js';
import { PACKAGE_FILES } from '../../shared/package.js';
import { importFromSources, readPackageJson } from '../../shared/package-file.js';
import type * as OpenApi from '../../shared/openapi.js';
import type * as Registry from '../registry.js';
import { routes } from './routes.js';

type Json = Record<string, unknown>;

async function buildDocument(): Promise<Json> {
  if (typeof FUNCTION_PACKAGE !== 'undefined') return (await readPackageJson(PACKAGE_FILES.openApi)) as Json;
  const [{ openApiDocument }, { ROUTES }] = await Promise.all([
    importFromSources<typeof OpenApi>(new URL('../../shared/openapi.js', import.meta.url)),
    importFromSources<typeof Registry>(new URL('../registry.js', import.meta.url)),
  ]);
  return openApiDocument(ROUTES, '') as Json;
}

let template: Promise<Json> | undefined;
let document: { base: string; body: Json } | undefined;

export const handler = createHandler(routes.schema, async (req) => {
  if (!template) {
    template = buildDocument();
    template.catch(() => (template = undefined));
  }
  const body = await template;
  if (document?.base !== req.baseUrl) document = { base: req.baseUrl, body: { ...body, servers: [{ url: req.baseUrl }] } };
  return { status: 200, body: document.body };
});
