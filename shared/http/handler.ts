/**
 * The middleware chain every API function runs (DESIGN.md §3), built with middy:
 *
 *   observe    request id, one structured log line per request, errors → problem+json,
 *              X-Request-Id / CORS / Vary on every response
 *   interpret  the request checks in the precedence order of API.md §1.4:
 *              413 body size → 429 rate limits per IP / e-mail → 401 credentials →
 *              429 rate limits per user → 403 role (and the route's guard) → 415 content type →
 *              400 malformed body (JSON, or multipart for `bodyType: 'multipart'`) / invalid
 *              query (incl. the cursor) → 404 path values
 *   represent  JSON body, sparse fields, ETag / 304, Cache-Control
 *
 * The operation itself gets an `ApiRequest` and returns a `Reply`; it checks what depends on
 * stored data (404 for records, 403 for ownership, 412, body validation, 409) in that order.
 *
 * A creation (a POST answering 201) takes an Idempotency-Key (API.md §8.7): interpret checks the
 * header's form with the query, and the operation runs inside idempotently() (idempotency.ts),
 * which claims the key first and stores or gives back the outcome after it.
 *
 * A token sent to a public route (no authorizer there) is checked here: its signature first,
 * its user's auth state after the request has been read, in one BatchGetItem with the items the
 * operation declares it will read anyway (`Operation.prefetch`), so a signed-in read costs no
 * more DynamoDB calls than an anonymous one.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { callerOf, InvalidToken, type TokenClaims } from '../auth/claims.js';
import type { TokenVerification } from '../auth/verification.js';
import { hasRole, isRole, type Caller } from '../auth/roles.js';
import { getItems, type Item, type ItemKey } from '../db/batch.js';
import { authFromItem, authKeyOf } from '../db/users.js';
import { issuesToErrors } from '../domain/fields.js';
import type { Cursor } from '../db/sort-keys.js';
import { decodeCursor, queryBinding } from './cursor.js';
import { formBody, isMultipartContentType, multipartLimits, type MultipartForm, type MultipartParser } from './multipart.js';
import { baseUrl, lambdaLogging, observe, requestState, type ApiEvent, type ApiResult } from './observe.js';
import { HttpError, invalidQuery, serviceUnavailable, validationError } from '../problem.js';
import type { RequestLimits, requestLimits } from './rate-limiter.js';
import { cacheControl, etagOf, noneMatch, projectFields } from './represent.js';
import {
  JSON_BODY_LIMIT,
  MULTIPART_BODY_LIMIT,
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
import { logger } from '../log.js';
import type { WritePlan } from '../db/records.js';
import { checkIdempotencyKey, idempotently, IDEMPOTENCY_HEADER, takesIdempotencyKey } from './idempotency.js';

export type { ApiEvent, ApiResult, AuthorizerContext } from './observe.js';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A body that is not JSON (`response.media` routes): its bytes, media type and content coding. */
  content?: { bytes: Buffer; type: string; encoding?: 'gzip' };
}

export interface ApiRequest<R extends RouteDecl = RouteDecl> {
  route: R;
  requestId: string;
  /** The request path (the `instance` of problems). */
  path: string;
  /** `{base}`: absolute URLs start with it. */
  baseUrl: string;
  headers: Record<string, string>;
  params: R['params'] extends z.ZodMiniObject ? z.output<R['params']> : Record<string, string>;
  query: (R['query'] extends z.ZodMiniObject ? z.output<R['query']> : Record<string, never>) & PageParams;
  /** The query parameters as sent, in order (repeated in `next`/`previous` links). */
  queryPairs: [string, string][];
  caller: Caller | null;
  ifMatch: EntityTags | null;
  /** The body validated against the route's schema; throws 400 validation-error. */
  body(): R['body'] extends z.ZodMiniType ? z.output<R['body']> : never;
  /**
   * The parsed body before validation (`{}` when empty): a JSON object, or for a multipart body
   * the first value of each part (an UploadedFile or a string) in an object without a prototype.
   */
  rawBody: Record<string, unknown>;
  /**
   * An item the operation's `prefetch` named, read with the caller's auth state: the item, or
   * `null` where there is none; `undefined` when it was not read (read it yourself).
   */
  prefetched(key: ItemKey): Item | null | undefined;
  /**
   * The stored answer of a creation sent with an Idempotency-Key (API.md §8.7, idempotency.ts),
   * as a plan for the transaction that creates the record: `reply` is what the operation then
   * returns. Nothing when the request has no key.
   */
  idempotent(reply: Reply): WritePlan;
}

export interface PageParams {
  limit?: number;
  cursor?: Cursor | null;
  fields?: string[];
}

/**
 * What a route does with a checked request. `prefetch` names items it will read in any case;
 * when the auth state of a sent token's user must be read too, they are read in the same call.
 */
export type Operation<R extends RouteDecl = RouteDecl> = ((req: ApiRequest<R>) => Promise<Reply>) & {
  prefetch?: (req: ApiRequest<R>) => ItemKey[];
};

const invalidToken = () => new HttpError('invalid-token', 'The token is invalid, expired or revoked.');

/**
 * The caller as far as it can be known before the request is read: from the authorizer's
 * verdict, or, on a public route, the verified claims of a sent token (the user is checked later).
 * 401 when a signed-in route has no caller; the role (403) is checked after the limits per user.
 */
async function authenticate(
  route: RouteDecl,
  event: ApiEvent,
  headers: Record<string, string>,
  tokens: TokenVerification | undefined,
): Promise<{ caller: Caller | null; pending: TokenClaims | null }> {
  if (route.access === 'credentials') return { caller: null, pending: null };
  let caller: Caller | null = null;
  let pending: TokenClaims | null = null;
  const fromAuthorizer = event.requestContext.authorizer?.lambda;
  if (fromAuthorizer && fromAuthorizer.status !== 'anonymous') {
    if (fromAuthorizer.status === 'unavailable') throw serviceUnavailable();
    if (fromAuthorizer.status === 'error') throw new HttpError('internal-error', 'An unexpected error occurred.');
    if (fromAuthorizer.status !== 'user' || !isRole(fromAuthorizer.role)) throw invalidToken();
    caller = { user_id: fromAuthorizer.user_id!, username: fromAuthorizer.username!, role: fromAuthorizer.role };
  } else if (!fromAuthorizer && headers.authorization !== undefined) {
    if (route.access !== 'public') {
      // A protected route is served only behind the authorizer (decision 1; infra tests check
      // it), which verifies the token: without its verdict the deployment is wrong, not the
      // request. Its function does not verify tokens itself (decision W7).
      logger.error('no authorizer verdict on a protected route', { route: route.name });
      throw new HttpError('internal-error', 'An unexpected error occurred.');
    }
    // No authorizer runs on public routes: a token that is sent must still be valid (§2.1).
    const { accessClaims } = await tokens!();
    pending = await accessClaims(headers.authorization);
  }
  if (route.access === 'public') return { caller, pending };
  if (!caller) throw new HttpError('authentication-required', 'Authentication credentials were not provided.');
  return { caller, pending };
}

/** What a function hands to createHandler besides its route and operation. */
export interface HandlerOptions {
  /** The multipart parser (multipart-parser.ts) of a route declared with `bodyType: 'multipart'`. */
  parseMultipart?: MultipartParser;
  /** Token verification (shared/auth/verification.ts), which every public route's function names. */
  tokens?: TokenVerification;
  /** The rate limiter (rate-limiter.ts requestLimits) of a route that declares `rateLimit`. */
  rateLimits?: typeof requestLimits;
}

const noLimits: RequestLimits = { beforeCredentials: async () => {}, afterCredentials: async () => {} };

/** The request checks, in the precedence order of §1.4, producing the ApiRequest. */
function interpret<R extends RouteDecl>(route: R, operation: Operation<R>, query: z.ZodMiniObject, options: HandlerOptions): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const params = route.params ?? idParams(pathParamNames(route.path));
  const allowedQuery = new Set(Object.keys(query.shape));
  const repeatable = new Set(route.repeatable ?? []);
  const multipart = route.bodyType === 'multipart';
  const parseMultipart = options.parseMultipart;
  if (multipart && !parseMultipart) throw new Error(`${route.name}: a multipart route's function hands its parser to createHandler`);
  if (route.access === 'public' && !options.tokens) throw new Error(`${route.name}: a public route's function hands token verification to createHandler`);
  if (route.rateLimit && !options.rateLimits) throw new Error(`${route.name}: a rate-limited route's function hands the rate limiter to createHandler`);
  const requestLimits = options.rateLimits ?? (() => noLimits);
  const limit = multipart ? MULTIPART_BODY_LIMIT : JSON_BODY_LIMIT;
  const limits = multipart ? multipartLimits(route.body as z.ZodMiniObject) : undefined;
  const creates = takesIdempotencyKey(route);
  return {
    before: async (request) => {
      const event = request.event;
      const headers = lowerCaseHeaders(event.headers);
      const bytes = bodyBytes(event.body, event.isBase64Encoded === true);
      if (bytes.length > limit) throw new HttpError('payload-too-large', `The request body is larger than ${limit / 1_048_576} MiB.`);
      const rateLimits = requestLimits(route, event, headers, bytes);
      await rateLimits.beforeCredentials();
      const { caller, pending } = await authenticate(route, event, headers, options.tokens).catch((err: unknown) => {
        throw err instanceof InvalidToken ? invalidToken() : err;
      });
      await rateLimits.afterCredentials(caller);
      const access = route.access;
      if (caller && access !== 'public' && access !== 'credentials' && !hasRole(caller.role, access)) {
        throw new HttpError('forbidden', 'Your role does not allow this operation.');
      }
      // A role check that also looks at the path (e.g. another user's id), still before 415/400/404.
      if (caller && route.guard && !route.guard({ caller, params: event.pathParameters ?? {} })) {
        throw new HttpError('forbidden', 'You may not act on this record.');
      }
      /** Reads the auth state of a pending token's user (with `keys`) and settles the caller: 401 if it is not valid. */
      const settle = async (keys: ItemKey[]): Promise<(Item | null)[]> => {
        if (!pending) return keys.map(() => null);
        const [auth, ...items] = await getItems([authKeyOf(pending.user_id), ...keys]);
        try {
          api.caller = callerOf(pending, authFromItem(auth));
        } catch (err) {
          throw err instanceof InvalidToken ? invalidToken() : err;
        }
        requestState(event).userId = api.caller.user_id;
        return items;
      };
      const api = { caller } as ApiRequest<R>;
      if (caller) requestState(event).userId = caller.user_id;

      let rawBody: Record<string, unknown> = {};
      let form: MultipartForm | undefined;
      let pairs: [string, string][];
      let q: Record<string, unknown>;
      let pathValues: Record<string, string>;
      try {
        if (route.body && bytes.length > 0 && multipart) {
          if (!isMultipartContentType(headers['content-type'])) {
            throw new HttpError('unsupported-media-type', 'The body must be sent as multipart/form-data.');
          }
          form = await parseMultipart!(bytes, headers['content-type']!, limits!);
          rawBody = Object.assign(Object.create(null) as Record<string, unknown>, Object.fromEntries(form.files), Object.fromEntries(form.fields));
        } else if (route.body && bytes.length > 0) {
          if (!isJsonContentType(headers['content-type'])) {
            throw new HttpError('unsupported-media-type', 'The body must be sent as application/json (UTF-8).');
          }
          rawBody = parseJsonObject(bytes);
        }
        const parsed = parseQuery(event.rawQueryString ?? '', allowedQuery, repeatable);
        pairs = parsed.pairs;
        const parsedQuery = query.safeParse(parsed.values, { reportInput: true });
        if (!parsedQuery.success) throw invalidQuery(issuesToErrors(parsedQuery.error.issues));
        q = parsedQuery.data as Record<string, unknown>;
        // Bound to the path as requested, path values included (a season's cursor is not another season's).
        if (typeof parsed.values.cursor === 'string') q.cursor = await decodeCursor(parsed.values.cursor, queryBinding(event.rawPath, pairs));
        if (creates) checkIdempotencyKey(headers[IDEMPOTENCY_HEADER]);
        const parsedParams = params.safeParse(event.pathParameters ?? {});
        if (!parsedParams.success) throw new HttpError('not-found', 'No such record.');
        pathValues = parsedParams.data as Record<string, string>;
      } catch (err) {
        // A token whose user is gone or revoked is a 401, which takes precedence (§1.4).
        await settle([]);
        throw err;
      }

      let validated: { value: unknown } | undefined;
      Object.assign(api, {
        route,
        requestId: requestState(event).requestId,
        path: event.rawPath,
        baseUrl: baseUrl(event, headers),
        headers,
        params: pathValues,
        query: q,
        queryPairs: pairs,
        ifMatch: parseEntityTags(headers['if-match']),
        rawBody,
        body: () => {
          if (!validated && multipart) {
            // An empty body has no parts (§1.2: treated as `{}`).
            validated = { value: formBody(form ?? EMPTY_FORM, route.body as z.ZodMiniObject) };
          } else if (!validated) {
            const out = route.body!.safeParse(rawBody, { reportInput: true });
            if (!out.success) throw validationError(issuesToErrors(out.error.issues));
            validated = { value: out.data };
          }
          return validated.value as never;
        },
        prefetched: () => undefined,
      });
      if (pending) {
        const keys = operation.prefetch?.(api) ?? [];
        const items = await settle(keys);
        const byKey = new Map(keys.map((k, i) => [`${k.pk}\u0000${k.sk}`, items[i] ?? null]));
        api.prefetched = (key) => byKey.get(`${key.pk}\u0000${key.sk}`);
      }
      requests.set(event, api as ApiRequest);
    },
  };
}

const requests = new WeakMap<object, ApiRequest>();

const EMPTY_FORM: MultipartForm = { files: new Map(), fields: new Map(), repeated: new Set(), truncated: new Set(), tooManyParts: false };

/** JSON body (or a route's `content`), sparse fields, ETag / If-None-Match, Cache-Control. */
function represent(route: RouteDecl): middy.MiddlewareObj<ApiEvent, ApiResult> {
  return {
    after: (request) => {
      const api = requests.get(request.event)!;
      const reply = request.response as unknown as Reply;
      const headers: Record<string, string> = { ...reply.headers };
      let body = reply.body;
      const fields = api.query.fields;
      if (fields && body !== undefined) {
        body = route.response.page
          ? { ...(body as object), results: (body as { results: unknown[] }).results.map((r) => projectFields(r, fields)) }
          : projectFields(body, fields);
      }
      const { content } = reply;
      const json = body === undefined || content ? undefined : JSON.stringify(body);
      const representation = content?.bytes ?? json;
      if (route.method === 'GET' && reply.status === 200) {
        const policy = route.cache ?? (route.access === 'public' ? 'public' : 'private');
        headers['cache-control'] = cacheControl(policy, api.caller !== null);
        if (policy === 'public-vary') headers.vary = 'Authorization';
        if (policy !== 'no-store' && representation !== undefined) {
          headers.etag = etagOf(representation);
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
      if (content) {
        headers['content-type'] = content.type;
        if (content.encoding) headers['content-encoding'] = content.encoding;
        request.response = { statusCode: reply.status, headers, body: content.bytes.toString('base64'), isBase64Encoded: true };
        return;
      }
      if (json !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      request.response = { statusCode: reply.status, headers, ...(json === undefined ? {} : { body: json }) };
    },
  };
}

/**
 * Builds the Lambda handler of a declared route. A public route's function names token
 * verification (`tokens`), a multipart route's its parser: what other functions do not need
 * stays out of their packages.
 */
export function createHandler<R extends RouteDecl>(
  route: R,
  operation: Operation<R>,
  ...[options = {}]: R['access'] extends 'public' ? [HandlerOptions & { tokens: TokenVerification }] : [HandlerOptions?]
) {
  const run = idempotently(route, operation);
  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(lambdaLogging())
    .use(observe(route.name))
    .use(interpret(route, operation, pageQuerySchema(route), options))
    .use(represent(route))
    .handler(async (event) => (await run(requests.get(event) as ApiRequest<R>, event)) as unknown as ApiResult);
}
