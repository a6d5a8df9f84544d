/**
 * Invoking function handlers directly in unit tests: the sample events of events/, a Lambda
 * context like the one the local gateway passes, and the result with its JSON body parsed.
 */
import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult, AuthorizerContext } from '../../shared/http/handler.js';
import * as z from 'zod/mini';
import { lambdaContext } from '../../infra/local/functions.js';
import type { PolicyName } from '../../shared/http/rate-limits.js';
import { defineRoute } from '../../shared/http/route.js';

export const EVENTS_DIR = new URL('../../events/', import.meta.url);

/** A fresh copy of a sample event (`events/<path>`). */
export function loadEvent<T = ApiEvent>(path: string): T {
  return JSON.parse(readFileSync(new URL(path, EVENTS_DIR), 'utf8')) as T;
}

/** A sample API event with changes: another authorizer context (`null`: none), headers, body. */
export function apiEvent(
  path: string,
  changes: { authorizer?: AuthorizerContext | null; headers?: Record<string, string | undefined>; body?: string | null; rawQueryString?: string } = {},
): ApiEvent {
  const event = loadEvent<ApiEvent>(path);
  if (changes.authorizer === null) delete event.requestContext.authorizer;
  else if (changes.authorizer) event.requestContext.authorizer = { lambda: changes.authorizer };
  if (changes.headers) {
    for (const [k, v] of Object.entries(changes.headers)) {
      if (v === undefined) delete event.headers![k];
      else event.headers![k] = v;
    }
  }
  if (changes.body === null) delete event.body;
  else if (changes.body !== undefined) event.body = changes.body;
  if (changes.rawQueryString !== undefined) event.rawQueryString = changes.rawQueryString;
  return event;
}

export interface Invoked {
  status: number;
  headers: Record<string, string>;
  body: any;
  raw: string | undefined;
}

/** Runs an API handler with an event and parses the response. */
export async function invokeApi(handler: (event: ApiEvent, context: Context) => Promise<ApiResult>, event: ApiEvent): Promise<Invoked> {
  const out = await handler(event, lambdaContext('test-function'));
  let body: unknown;
  if (out.body !== undefined) {
    try {
      body = JSON.parse(out.body);
    } catch {
      body = undefined;
    }
  }
  return { status: out.statusCode, headers: out.headers, body, raw: out.body };
}

/**
 * A stand-in for the sign-in route (`tokens.create`: credentials, `{email, password}`) counted
 * by the rate-limit `policy` given, for tests of the counting machinery with a handler of their own.
 */
export function signInRoute(policy: PolicyName) {
  return defineRoute({
    name: 'tokens.create',
    method: 'POST',
    path: '/api/tokens/jwt/create/',
    access: 'credentials',
    summary: 'Sign in',
    body: z.strictObject({ email: z.string(), password: z.string() }),
    response: { status: 200 },
    rateLimit: { policy },
    keys: {},
  });
}
