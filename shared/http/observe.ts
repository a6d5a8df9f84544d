/**
 * What every function does around its work, declared route or not (the catch-all): a request id,
 * the edge check and the client address (edge.ts), one structured log line per request, every
 * error turned into a problem document (API.md §1.4), and the headers every response carries
 * (X-Request-Id, CORS, Vary). This module reaches no database, and no secret but the edge's
 * (only with the edge), so functions that need neither stay small.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { Contended, isUnavailable } from '../db/errors.js';
import { newId } from '../ids.js';
import { logger } from '../log.js';
import { corsHeaders } from './cors.js';
import { clientAddress } from './edge.js';
import { HttpError, problemBody, problemHeaders, serviceUnavailable } from '../problem.js';
import { lowerCaseHeaders } from './request.js';

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

interface State {
  started: number;
  requestId: string;
  origin?: string;
  /** The client address the per-address rate limits count (edge.ts clientAddress). */
  clientIp?: string;
  /** The caller, once known (logged). */
  userId?: string;
  /** Headers that every response to this request carries, success or problem (RateLimit-*). */
  headers?: Record<string, string>;
}

const states = new WeakMap<object, State>();

/** What observe() knows of a request (its id; the caller once the function knows it). */
export const requestState = (event: object): State => states.get(event)!;

export function baseUrl(event: ApiEvent, headers: Record<string, string>): string {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/$/, '');
  const proto = headers['x-forwarded-proto'] ?? 'https';
  return `${proto}://${headers.host ?? event.requestContext.domainName ?? 'localhost'}`;
}

/** Errors → problem responses; anything unexpected becomes a 500 without internals. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isUnavailable(err)) return serviceUnavailable();
  if (err instanceof Contended) return serviceUnavailable(err.retryAfter);
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
  const state = requestState(event);
  const cors = corsHeaders(state.origin);
  // A response's own Vary (e.g. `Authorization` on personalised reads) is kept beside CORS's `Origin`.
  const vary = [...new Set([...String(result.headers?.vary ?? '').split(','), cors.vary!].map((v) => v.trim()).filter(Boolean))].join(', ');
  result.headers = { ...result.headers, ...state.headers, ...cors, vary, 'x-request-id': state.requestId };
  logger.info('request', {
    request_id: state.requestId,
    method: event.requestContext.http.method,
    path: event.rawPath,
    route,
    status: result.statusCode,
    duration_ms: Date.now() - state.started,
    ...(state.userId ? { user_id: state.userId } : {}),
  });
  return result;
}

/** Request id, logging and the conversion of every error into a problem response. */
export function observe(routeName: string): middy.MiddlewareObj<ApiEvent, ApiResult> {
  return {
    before: async (request) => {
      const headers = lowerCaseHeaders(request.event.headers);
      const state: State = { started: Date.now(), requestId: request.event.requestContext.requestId ?? newId(), origin: headers.origin };
      states.set(request.event, state);
      // Before anything else: a request around the edge is refused here (403).
      state.clientIp = await clientAddress(request.event, headers);
    },
    after: (request) => {
      request.response = finish(request.event, request.response!, routeName);
    },
    onError: (request) => {
      const err = toHttpError(request.error);
      const request_id = requestState(request.event).requestId;
      if (err.status === 500) logger.error('unhandled error', { request_id, error: request.error as Error });
      else if (err.status === 503) logger.warn('dependency unavailable', { request_id, error: request.error as Error });
      request.response = finish(request.event, problemResult(err, request.event.rawPath, request_id), routeName);
    },
  };
}

/** The Lambda context of each invocation in its log lines (never the event: it holds tokens and bodies). */
export const lambdaLogging = (): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context> => ({
  before: (request) => {
    if (request.context) logger.addContext(request.context);
  },
});

/**
 * A function outside the declared routes (the catch-all): the same request id, logging, CORS
 * and error handling, with the response built by `impl`.
 */
export function createRawHandler(name: string, impl: (event: ApiEvent, headers: Record<string, string>) => Promise<ApiResult>) {
  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(lambdaLogging())
    .use(observe(name))
    .handler(async (event) => impl(event, lowerCaseHeaders(event.headers)));
}
