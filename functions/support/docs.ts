import { docsPage } from '../../shared/http/docs-page.js';
import { acceptsGzip } from '../../shared/http/represent.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.docs, async (req) => {
  const page = docsPage();
  const gzip = acceptsGzip(req.headers['accept-encoding']);
  return {
    status: 200,
    content: { bytes: gzip ? page.gzip : page.html, type: 'text/html; charset=utf-8', ...(gzip ? { encoding: 'gzip' as const } : {}) },
    headers: {
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      vary: 'Accept-Encoding',
    },
  };
});
