import { createHandler } from '../../shared/http/handler.js';
import { openApiDocument } from '../../shared/openapi.js';
import { ROUTES } from '../registry.js';
import { routes } from './routes.js';

let document: { base: string; body: unknown } | undefined;

export const handler = createHandler(routes.schema, async (req) => {
  if (document?.base !== req.baseUrl) document = { base: req.baseUrl, body: openApiDocument(ROUTES, req.baseUrl) };
  return { status: 200, body: document.body };
});
