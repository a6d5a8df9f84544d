/**
 * Direct invocation of function modules with the events API Gateway sends (payload format 2.0),
 * without HTTP: the same modules, the same exports and the same event shape as the local
 * gateway of infra/local uses, so a function's cost can be measured apart from the gateway's.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { AUTHORIZER_ENTRY, ROUTES } from '../../functions/registry.js';
import { lambdaContext, loadHandler } from '../../infra/local/functions.js';
import type { ApiEvent, ApiResult, AuthorizerContext } from '../../shared/http/handler.js';
import { Router } from '../../shared/http/router.js';
import { gatewayPath, needsAuthorizer, routeEntry, type RouteDecl } from '../../shared/http/route.js';
import type { SdkCall, SdkCallRecorder } from './sdk-calls.js';

export interface RequestSpec {
  method: RouteDecl['method'];
  /** Path with its query string. */
  path: string;
  token?: string;
  body?: unknown;
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
  const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const routeKey = `${route.method} ${gatewayPath(route.path)}`;
  const now = new Date();
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: host,
    domainPrefix: 'localhost',
    http: { method: spec.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
    requestId: randomUUID(),
    routeKey,
    stage: '$default',
    time: now.toISOString(),
    timeEpoch: now.getTime(),
  };
  const event: ApiEvent & Record<string, unknown> = {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(Object.keys(match.params).length > 0 ? { pathParameters: match.params } : {}),
    requestContext,
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
  };
  if (!needsAuthorizer(route)) return { route, event };
  const authorizerEvent = {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${spec.method}${url.pathname}`,
    identitySource: [],
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    headers,
    queryStringParameters: query,
    pathParameters: match.params,
    requestContext,
  } as unknown as APIGatewayRequestAuthorizerEventV2;
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
