/**
 * The API's default route: every request no declared route takes. Answers 308 for a documented
 * path without its final slash, 405 with Allow for a method the path does not list, the CORS
 * preflight (OPTIONS) of documented paths, and 404 for everything else (API.md §1.1).
 */
import { preflightHeaders } from '../../shared/http/cors.js';
import { baseUrl, createRawHandler, problemResult } from '../../shared/http/observe.js';
import { HttpError } from '../../shared/http/problem.js';
import { Router } from '../../shared/http/router.js';
import { ROUTES } from '../registry.js';

const router = new Router(ROUTES);

export const handler = createRawHandler('catch-all', async (event, headers) => {
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const requestId = event.requestContext.requestId ?? '';
  if (method === 'OPTIONS') {
    const methods = router.methodsFor(path);
    if (methods !== null) {
      return { statusCode: 204, headers: { ...preflightHeaders(headers.origin, methods), allow: methods, 'cache-control': 'no-store' } };
    }
  }
  const match = router.match(method, path, event.rawQueryString ?? '');
  switch (match.kind) {
    case 'redirect':
      return { statusCode: 308, headers: { location: `${baseUrl(event, headers)}${match.location}`, 'cache-control': 'no-store' } };
    case 'method-not-allowed':
      return problemResult(
        new HttpError('method-not-allowed', `${method} is not allowed on this path.`, { headers: { allow: match.allow } }),
        path,
        requestId,
      );
    default:
      return problemResult(new HttpError('not-found', 'No such path.'), path, requestId);
  }
});
