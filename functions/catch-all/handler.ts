/**
 * The API's default route: every request no declared route takes. Answers 308 for a documented
 * path without its final slash, 405 with Allow for a method the path does not list, the CORS
 * preflight (OPTIONS) of documented paths, and 404 for everything else (API.md §1.1). It needs
 * the method and path of every declared route: a data file of its package (written when the
 * package is built, infra/aws/package-files.ts), or the declarations when the sources run.
 */
import { preflightHeaders } from '../../shared/http/cors.js';
import { baseUrl, createRawHandler, problemResult } from '../../shared/http/observe.js';
import { HttpError } from '../../shared/problem.js';
import { Router, type RoutePath } from '../../shared/http/router.js';
import { PACKAGE_FILES } from '../../shared/package.js';
import { importFromSources, readPackageJson } from '../../shared/package-file.js';
import type * as Registry from '../registry.js';

async function loadRouter(): Promise<Router<RoutePath>> {
  if (typeof FUNCTION_PACKAGE !== 'undefined') return new Router((await readPackageJson(PACKAGE_FILES.routeTable)) as RoutePath[]);
  const { ROUTES } = await importFromSources<typeof Registry>(new URL('../registry.js', import.meta.url));
  return new Router(ROUTES);
}

let router: Promise<Router<RoutePath>> | undefined;

export const handler = createRawHandler('catch-all', async (event, headers) => {
  if (!router) {
    router = loadRouter();
    router.catch(() => (router = undefined));
  }
  const routes = await router;
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath;
  const requestId = event.requestContext.requestId ?? '';
  if (method === 'OPTIONS') {
    const methods = routes.methodsFor(path);
    if (methods !== null) {
      return { statusCode: 204, headers: { ...preflightHeaders(headers.origin, methods), allow: methods, 'cache-control': 'no-store' } };
    }
  }
  const match = routes.match(method, path, event.rawQueryString ?? '');
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
