/**
 * The middleware chain every API function runs (DESIGN.md §3), built with middy:
 *
 *   observe    request id, one structured log line per request, errors → problem+json,
 *              X-Request-Id / CORS / Vary on every response
 *   interpret  the request checks in the precedence order of API.md §1.4:
 *              413 body size → 401 credentials → 403 role → 415 content type →
 *              400 malformed body / invalid query (incl. the cursor) → 404 path values
 *   represent  JSON body, sparse fields, ETag / 304, Cache-Control
 *
 * The operation itself gets an `ApiRequest` and returns a `Reply`; it checks what depends on
 * stored data (404 for records, 403 for ownership, 412, body validation, 409) in that order.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import type { z } from 'zod';
import { callerFromAuthorization } from '../auth/identity.js';
import { hasRole, isRole, type Caller } from '../auth/roles.js';
import { InvalidToken } from '../auth/tokens.js';
import { isUnavailable } from '../db/errors.js';
import { issuesToErrors } from '../domain/fields.js';
import { newId } from '../ids.js';
import { logger } from '../log.js';
import { corsHeaders } from './cors.js';
import { decodeCursor, queryBinding, type Cursor } from './cursor.js';
import { HttpError, invalidQuery, problemBody, problemHeaders, serviceUnavailable, validationError } from './problem.js';
import { cacheControl, etagOf, noneMatch, projectFields } from './represent.js';
import {
  JSON_BODY_LIMIT,
  bodyBytes,
  isJsonContentType,
  lowerCaseHeaders,
  parseEntityTags,
  parseJsonObject,
  parseQuery,
  type EntityTags,
} from './request.js';
import { pathParamNames, type RouteDecl } from './route.js';
import { idParams, pageQuerySchema } from './schemas.js';

/** What the Lambda authorizer passes on (see functions/authorizer/handler.ts). */
export interface AuthorizerContext {
  /** `unavailable`: the user could not be read (database unavailable) → 503; `error`: the authorizer failed → 500. */
  status: 'user' | 'anonymous' | 'invalid' | 'unavailable' | 'error';
  user_id?: string;
  username?: string;
  role?: string;
}

export interface ApiEvent {
  version?: string;
  routeKey?: string;
  rawPath: string;
  rawQueryString?: string;
  headers?: Record<string, string | undefined>;
  pathParameters?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
  requestContext: {
    requestId?: string;
    domainName?: string;
    http: { method: string; path?: string; sourceIp?: string; protocol?: string; userAgent?: string };
    authorizer?: { lambda?: AuthorizerContext };
    [other: string]: unknown;
  };
}

export interface ApiResult {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiRequest<R extends RouteDecl = RouteDecl> {
  route: R;
  requestId: string;
  /** The request path (the `instance` of problems). */
  path: string;
  /** `{base}`: absolute URLs start with it. */
  baseUrl: string;
  headers: Record<string, string>;
  params: R['params'] extends z.ZodObject ? z.output<R['params']> : Record<string, string>;
  query: (R['query'] extends z.ZodObject ? z.output<R['query']> : Record<string, never>) & PageParams;
  /** The query parameters as sent, in order (repeated in `next`/`previous` links). */
  queryPairs: [string, string][];
  caller: Caller | null;
  ifMatch: EntityTags | null;
  /** The body validated against the route's schema; throws 400 validation-error. */
  body(): R['body'] extends z.ZodType ? z.output<R['body']> : never;
  /** The parsed JSON body before validation (`{}` when empty). */
  rawBody: Record<string, unknown>;
}

export interface PageParams {
  limit?: number;
  cursor?: Cursor | null;
  fields?: string[];
}

type Impl<R extends RouteDecl> = (req: ApiRequest<R>) => Promise<Reply>;

interface State {
  started: number;
  requestId: string;
  origin?: string;
  api?: ApiRequest;
}

const states = new WeakMap<object, State>();
const stateOf = (event: object): State => states.get(event)!;

export function baseUrl(event: ApiEvent, headers: Record<string, string>): string {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/$/, '');
  const proto = headers['x-forwarded-proto'] ?? 'https';
  return `${proto}://${headers.host ?? event.requestContext.domainName ?? 'localhost'}`;
}

/** Errors → problem responses; anything unexpected becomes a 500 without internals. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof InvalidToken) return new HttpError('invalid-token', 'The token is invalid, expired or revoked.');
  if (isUnavailable(err)) return serviceUnavailable();
  return new HttpError('internal-error', 'An unexpected error occurred.');
}

export function problemResult(err: HttpError, path: string, requestId: string): ApiResult {
  return {
    statusCode: err.status,
    headers: {
      'content-type': 'application/problem+json; charset=utf-8',
      'cache-control': 'no-store',
      ...problemHeaders(err),
    },
    body: JSON.stringify(problemBody(err, path, requestId)),
  };
}

function finish(event: ApiEvent, result: ApiResult, route: string): ApiResult {
  const state = stateOf(event);
  result.headers = { ...result.headers, ...corsHeaders(state.origin), 'x-request-id': state.requestId };
  logger.info('request', {
    request_id: state.requestId,
    method: event.requestContext.http.method,
    path: event.rawPath,
    route,
    status: result.statusCode,
    duration_ms: Date.now() - state.started,
    ...(state.api?.caller ? { user_id: state.api.caller.user_id } : {}),
  });
  return result;
}

/** Request id, logging and the conversion of every error into a problem response. */
function observe(routeName: string): middy.MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: (request) => {
      const headers = lowerCaseHeaders(request.event.headers);
      states.set(request.event, {
        started: Date.now(),
        requestId: request.event.requestContext.requestId ?? newId(),
        origin: headers.origin,
      });
    },
    after: (request) => {
      request.response = finish(request.event, request.response!, routeName);
    },
    onError: (request) => {
      const err = toHttpError(request.error);
      const request_id = stateOf(request.event).requestId;
      if (err.status === 500) logger.error('unhandled error', { request_id, error: request.error as Error });
      else if (err.status === 503) logger.warn('dependency unavailable', { request_id, error: request.error as Error });
      request.response = finish(request.event, problemResult(err, request.event.rawPath, stateOf(request.event).requestId), routeName);
    },
  };
}

async function authenticate(route: RouteDecl, event: ApiEvent, headers: Record<string, string>): Promise<Caller | null> {
  if (route.access === 'credentials') return null;
  let caller: Caller | null = null;
  const fromAuthorizer = event.requestContext.authorizer?.lambda;
  if (fromAuthorizer && fromAuthorizer.status !== 'anonymous') {
    if (fromAuthorizer.status === 'unavailable') throw serviceUnavailable();
    if (fromAuthorizer.status === 'error') throw new HttpError('internal-error', 'An unexpected error occurred.');
    if (fromAuthorizer.status !== 'user' || !isRole(fromAuthorizer.role)) throw new InvalidToken('rejected by the authorizer');
    caller = { user_id: fromAuthorizer.user_id!, username: fromAuthorizer.username!, role: fromAuthorizer.role };
  } else if (!fromAuthorizer && headers.authorization !== undefined) {
    // Public routes have no authorizer: a token that is sent must still be valid (§2.1).
    caller = await callerFromAuthorization(headers.authorization);
  }
  if (route.access === 'public') return caller;
  if (!caller) throw new HttpError('authentication-required', 'Authentication credentials were not provided.');
  if (!hasRole(caller.role, route.access)) throw new HttpError('forbidden', 'Your role does not allow this operation.');
  return caller;
}

/** The request checks, in the precedence order of §1.4, producing the ApiRequest. */
function interpret(route: RouteDecl, query: z.ZodObject, allowedQuery: ReadonlySet<string>): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const params = route.params ?? idParams(pathParamNames(route.path));
  return {
    before: async (request) => {
      const event = request.event;
      const state = stateOf(event);
      const headers = lowerCaseHeaders(event.headers);
      const bytes = bodyBytes(event.body, event.isBase64Encoded === true);
      if (bytes.length > JSON_BODY_LIMIT) throw new HttpError('payload-too-large', 'The request body is larger than 1 MiB.');
      const caller = await authenticate(route, event, headers);

      let rawBody: Record<string, unknown> = {};
      if (route.body && bytes.length > 0) {
        if (!isJsonContentType(headers['content-type'])) {
          throw new HttpError('unsupported-media-type', 'The body must be sent as application/json (UTF-8).');
        }
        rawBody = parseJsonObject(bytes);
      }
      const { pairs, values } = parseQuery(event.rawQueryString ?? '', allowedQuery);
      const parsedQuery = query.safeParse(values, { reportInput: true });
      if (!parsedQuery.success) throw invalidQuery(issuesToErrors(parsedQuery.error.issues));
      const q = parsedQuery.data as Record<string, unknown> & { cursor?: unknown };
      if (typeof values.cursor === 'string') q.cursor = await decodeCursor(values.cursor, queryBinding(route.path, pairs));

      const parsedParams = params.safeParse(event.pathParameters ?? {});
      if (!parsedParams.success) throw new HttpError('not-found', 'No such record.');

      let validated: { value: unknown } | undefined;
      state.api = {
        route,
        requestId: state.requestId,
        path: event.rawPath,
        baseUrl: baseUrl(event, headers),
        headers,
        params: parsedParams.data,
        query: q,
        queryPairs: pairs,
        caller,
        ifMatch: parseEntityTags(headers['if-match']),
        rawBody,
        body: () => {
          if (!validated) {
            const out = route.body!.safeParse(rawBody, { reportInput: true });
            if (!out.success) throw validationError(issuesToErrors(out.error.issues));
            validated = { value: out.data };
          }
          return validated.value as never;
        },
      } as ApiRequest;
    },
  };
}

/** JSON body, sparse fields, ETag / If-None-Match, Cache-Control. */
function represent(route: RouteDecl): middy.MiddlewareObj<ApiEvent, ApiResult> {
  return {
    after: (request) => {
      const api = stateOf(request.event).api!;
      const reply = request.response as unknown as Reply;
      const headers: Record<string, string> = { ...reply.headers };
      let body = reply.body;
      const fields = api.query.fields;
      if (fields && body !== undefined) {
        body = route.response.page
          ? { ...(body as object), results: (body as { results: unknown[] }).results.map((r) => projectFields(r, fields)) }
          : projectFields(body, fields);
      }
      const json = body === undefined ? undefined : JSON.stringify(body);
      if (route.method === 'GET' && reply.status === 200) {
        const policy = route.cache ?? (route.access === 'public' ? 'public' : 'private');
        headers['cache-control'] = cacheControl(policy, api.caller !== null);
        if (policy === 'public-vary') headers.vary = 'Authorization';
        if (policy !== 'no-store' && json !== undefined) {
          headers.etag = etagOf(json);
          const inm = parseEntityTags(api.headers['if-none-match']);
          if (inm && noneMatch(inm, headers.etag)) {
            request.response = { statusCode: 304, headers };
            return;
          }
        }
      } else {
        headers['cache-control'] = 'no-store';
        if (json !== undefined && route.response.etag !== false && (reply.status === 200 || reply.status === 201)) {
          headers.etag = etagOf(json);
        }
      }
      if (json !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      request.response = { statusCode: reply.status, headers, ...(json === undefined ? {} : { body: json }) };
    },
  };
}

/** Builds the Lambda handler of a declared route. */
export function createHandler<R extends RouteDecl>(route: R, impl: Impl<R>) {
  const query = pageQuerySchema(route);
  const allowed = new Set(Object.keys(query.shape));
  return middy<ApiEvent, ApiResult, Error, Context>()
    // The event holds the Authorization header and the body: never logged, whatever
    // POWERTOOLS_LOGGER_LOG_EVENT says.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(observe(route.name))
    .use(interpret(route, query, allowed))
    .use(represent(route))
    .handler(async (event) => (await impl(stateOf(event).api as ApiRequest<R>)) as unknown as ApiResult);
}

/**
 * A function outside the declared routes (the catch-all): the same request id, logging, CORS
 * and error handling, with the response built by `impl`.
 */
export function createRawHandler(name: string, impl: (event: ApiEvent, headers: Record<string, string>) => Promise<ApiResult>) {
  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(observe(name))
    .handler(async (event) => impl(event, lowerCaseHeaders(event.headers)));
}
