/**
 * Direct invocation of function modules with the events API Gateway sends (payload format 2.0),
 * without HTTP: the same modules, the same exports and the same event shape as the local
 * gateway of infra/local uses, so a function's cost can be measured apart from the gateway's.
 */
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { AUTHORIZER_ENTRY, ROUTES } from '../../functions/registry.js';
import { gatewayEvents, lambdaContext, loadHandler } from '../../infra/local/functions.js';
import { AUTHORIZER } from '../../infra/api-config.js';
import type { ApiEvent, ApiResult, AuthorizerContext } from '../../shared/http/handler.js';
import { Router } from '../../shared/http/router.js';
import { needsAuthorizer, routeEntry, type RouteDecl } from '../../shared/http/route.js';
import type { SdkCall, SdkCallRecorder } from './sdk-calls.js';

export interface RequestSpec {
  method: RouteDecl['method'];
  /** Path with its query string. */
  path: string;
  token?: string;
  /** A JSON body. */
  body?: unknown;
  /** A body sent as these bytes with this Content-Type (e.g. a multipart upload). */
  raw?: { bytes: Buffer; contentType: string };
}

const router = new Router(ROUTES);

export interface PreparedEvent {
  route: RouteDecl;
  event: ApiEvent;
  /** Present when API Gateway runs the authorizer for the route. */
  authorizerEvent?: APIGatewayRequestAuthorizerEventV2;
}

/** The events API Gateway would send for `spec` (the route must be a declared one). */
export function prepareEvent(spec: RequestSpec, host: string): PreparedEvent {
  const url = new URL(spec.path, 'http://localhost');
  const rawQueryString = spec.path.includes('?') ? spec.path.slice(spec.path.indexOf('?') + 1) : '';
  const match = router.match(spec.method, url.pathname, rawQueryString);
  if (match.kind !== 'route') throw new Error(`${spec.method} ${spec.path} is not a declared route (${match.kind})`);
  const { route } = match;
  const headers: Record<string, string> = { host, 'user-agent': 'bench', accept: '*/*', 'x-forwarded-proto': 'http' };
  if (spec.token) headers.authorization = `Bearer ${spec.token}`;
  const body = spec.raw?.bytes ?? (spec.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(spec.body)));
  if (body.length > 0) {
    headers['content-type'] = spec.raw?.contentType ?? 'application/json';
    headers['content-length'] = String(body.length);
  }
  const events = gatewayEvents({ method: spec.method, url: spec.path, headers, body, sourceIp: '127.0.0.1', route, params: match.params });
  const event = events.event;
  if (!needsAuthorizer(route)) return { route, event };
  const authorizerEvent = events.authorizerEvent([...AUTHORIZER.identitySource]);
  return { route, event, authorizerEvent };
}

export interface DirectResult {
  route: RouteDecl;
  result: ApiResult;
  authorizerCalls: SdkCall[];
  functionCalls: SdkCall[];
}

/** Runs the authorizer (when the route has it) and then the route's function, counting SDK calls of each. */
export async function invokeDirect(prepared: PreparedEvent, sdk: SdkCallRecorder): Promise<DirectResult> {
  const { route, event, authorizerEvent } = prepared;
  sdk.take();
  let authorizerCalls: SdkCall[] = [];
  if (authorizerEvent) {
    const authorize = await loadHandler<APIGatewayRequestAuthorizerEventV2, { isAuthorized: boolean; context: AuthorizerContext }>(AUTHORIZER_ENTRY);
    const out = await authorize(authorizerEvent, lambdaContext('authorizer'));
    authorizerCalls = sdk.take();
    if (!out.isAuthorized) throw new Error(`the authorizer denied ${route.name}`);
    event.requestContext.authorizer = { lambda: out.context };
  }
  const handler = await loadHandler<ApiEvent, ApiResult>(routeEntry(route));
  const result = await handler(event, lambdaContext(route.name));
  return { route, result, authorizerCalls, functionCalls: sdk.take() };
}
