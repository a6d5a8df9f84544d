/**
 * Running function modules locally as Lambda runs them: the module's `handler` export, called
 * with the events API Gateway builds and a Lambda context (as far as handlers and Powertools
 * read it). The local gateway and the benchmark both build their events here.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEventV2, Context } from 'aws-lambda';
import type { ApiEvent } from '../../shared/http/handler.js';
import { gatewayPath } from '../../shared/http/route.js';

export type LambdaHandler<E = unknown, R = unknown> = (event: E, context: Context) => Promise<R>;

const modules = new Map<string, Promise<unknown>>();

/**
 * The function whose handler is running (the `functionName` of its context: a route name,
 * `authorizer`, `job.<name>`, …), for code that observes what functions do in this process
 * (test/support/key-trace.ts attributes DynamoDB calls with it).
 */
export const runningFunction = new AsyncLocalStorage<string>();

/** The `handler` export of a function module (path relative to the repository root), loaded once. */
export function loadHandler<E = unknown, R = unknown>(entry: string): Promise<LambdaHandler<E, R>> {
  let loaded = modules.get(entry);
  if (!loaded) {
    loaded = import(new URL(`../../${entry}`, import.meta.url).href).then(
      (m: { handler: LambdaHandler<E, R> }): LambdaHandler<E, R> =>
        (event, context) => runningFunction.run(context.functionName, () => m.handler(event, context)),
    );
    modules.set(entry, loaded);
  }
  return loaded as Promise<LambdaHandler<E, R>>;
}

/**
 * How long a function may run: API Gateway's 29 s integration timeout, after which middy answers
 * 503 (observe.ts). LOCAL_FUNCTION_DEADLINE_MS overrides it: the test suites set it higher, as
 * their files share two cores with DynamoDB Local and one write at the contract's maxima can take
 * ten times its unloaded time there; latency is the benchmark's to measure (docs/decisions.md 106).
 */
const deadlineMs = () => Number(process.env.LOCAL_FUNCTION_DEADLINE_MS ?? 29_000);

/**
 * The context of one invocation. `timeoutMs`: the function's own timeout (stream consumers and
 * jobs declare theirs); default the API deadline above.
 */
export function lambdaContext(name: string, timeoutMs = deadlineMs()): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}


/** What API Gateway knows of a request when it builds the events of its functions. */
export interface GatewayRequest {
  method: string;
  /** Path with its query string, as sent. */
  url: string;
  /** Lower-cased header names; repeated headers joined with commas. */
  headers: Record<string, string>;
  body: Buffer;
  sourceIp: string;
  /** The matched route's method and path (absent: the default route) and its path parameters. */
  route: { method: string; path: string } | null;
  params: Record<string, string>;
}

/** Content types whose bodies HTTP APIs pass as text (others arrive base64-encoded). */
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)\b|[^;]*\+(json|xml)\b)/i;

function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The payload-2.0 event of an HTTP API function, and the event of its Lambda authorizer. */
export function gatewayEvents(req: GatewayRequest) {
  const url = new URL(req.url, 'http://localhost');
  const rawQueryString = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  const values = new Map<string, string>();
  for (const [k, v] of url.searchParams) values.set(k, values.has(k) ? `${values.get(k)},${v}` : v);
  const query = Object.fromEntries(values);
  const text = req.body.length === 0 || (TEXT_TYPES.test(req.headers['content-type'] ?? '') && isValidUtf8(req.body));
  const routeKey = req.route ? `${req.route.method} ${gatewayPath(req.route.path)}` : '$default';
  const now = new Date();
  const requestContext = {
    accountId: '000000000000',
    apiId: 'local',
    domainName: req.headers.host ?? 'localhost',
    domainPrefix: 'localhost',
    http: { method: req.method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: req.sourceIp, userAgent: req.headers['user-agent'] ?? '' },
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
    headers: req.headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(Object.keys(req.params).length > 0 ? { pathParameters: req.params } : {}),
    requestContext,
    ...(req.body.length > 0 ? { body: text ? req.body.toString('utf8') : req.body.toString('base64') } : {}),
    isBase64Encoded: !text,
  };
  const authorizerEvent = (identitySource: string[]) =>
    ({
      version: '2.0',
      type: 'REQUEST',
      routeArn: `arn:aws:execute-api:local:000000000000:local/$default/${req.method}${url.pathname}`,
      identitySource,
      routeKey,
      rawPath: url.pathname,
      rawQueryString,
      headers: req.headers,
      queryStringParameters: query,
      pathParameters: req.params,
      requestContext,
    }) as unknown as APIGatewayRequestAuthorizerEventV2;
  return { event, authorizerEvent, requestId: requestContext.requestId };
}
