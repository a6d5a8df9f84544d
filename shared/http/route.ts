/**
 * Route declarations: the one place where an operation's method, path, access rule, schemas and
 * summary are written. The CDK app, the local server, the catch-all function, the OpenAPI
 * document and the tests all read these (functions/registry.ts lists them).
 */
import type * as z from 'zod/mini';
import type { Caller, Role } from '../auth/roles.js';
import type { KeyGrants } from '../db/key-patterns.js';
import type { ProblemType } from '../problem.js';
import type { RateLimits } from './rate-limits.js';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

/**
 * Who may call the operation:
 * - `public`: anyone; a token, when sent, must be valid (it may personalise the response);
 * - `credentials`: anyone; the Authorization header is ignored (sign-in, registration, …);
 * - a role: a signed-in user with at least that role (the authorizer is attached on AWS).
 */
export type Access = 'public' | 'credentials' | Role;

/**
 * Cache-Control of successful GET responses (§1.7): `public` (max-age=60), `private`
 * (private, no-store), `no-store`, `static` (public, max-age=3600), `feed` (public,
 * max-age=300: the airing calendar, §8.6). `public-vary` is public for anonymous callers and
 * private with a token, with `Vary: Authorization`.
 */
export type CachePolicy = 'public' | 'private' | 'no-store' | 'static' | 'public-vary' | 'feed';

export interface ResponseSpec {
  status: 200 | 201 | 204;
  /** Shape of the body (of each item of `results` when `page`). */
  schema?: z.ZodMiniType;
  /** The body is the pagination envelope of §1.5. */
  page?: boolean;
  /** Keys accepted by `fields` (sparse fieldsets); absent: `fields` is not accepted. */
  fields?: readonly string[];
  /** Extra envelope keys of a page (e.g. `refreshed_at`). */
  envelope?: z.core.$ZodLooseShape;
  /** Write responses carry the ETag of the record they return; false where the body is no record. */
  etag?: boolean;
  /** The body's media type when it is not JSON (the handler replies with `content`, handler.ts). */
  media?: 'text/html' | 'text/calendar';
}

/**
 * Files of an installed npm package that a function reads at run time (not code it imports, so
 * the bundler leaves them out): the CDK copies them into `node_modules/<package>/` of the
 * function's package, where Node's module resolution finds them just as it finds the installed
 * package in a local run (infra/aws/function.ts).
 */
export interface PackageFiles {
  package: string;
  files: readonly string[];
}

export interface RouteDecl {
  /** `<group>.<operation>`; the handler is `functions/<group>/<operation>.ts`. */
  name: string;
  method: Method;
  /** Exactly as in spec/operations.tsv. */
  path: string;
  access: Access;
  summary: string;
  description?: string;
  /** Path parameters; a value that fails this schema is a 404 (§1.3). */
  params?: z.ZodMiniObject;
  /** Query parameters (string values); `limit`, `cursor` and `fields` are added for pages. */
  query?: z.ZodMiniObject;
  /**
   * Query parameters that may be repeated (§1.6 refuses a repeated parameter otherwise): the
   * values are joined with commas, as if sent comma-separated (the change feed's `kind`, §8.5).
   */
  repeatable?: readonly string[];
  /** Request body: the schema validated when the handler asks for the body. */
  body?: z.ZodMiniType;
  /**
   * How the body is sent (API.md §1.2): `json` (default; `application/json`, at most 1 MiB) or
   * `multipart` (`multipart/form-data`, at most 3 MiB; `body` is then a strict object of the
   * parts, files declared with filePart(), shared/http/multipart.ts). Any other content type → 415.
   */
  bodyType?: 'json' | 'multipart';
  response: ResponseSpec;
  cache?: CachePolicy;
  /** Problem types specific to this operation (for the OpenAPI document). */
  errors?: readonly ProblemType[];
  /**
   * The table items the operation touches and what it does to them: per partition-key pattern of
   * the entity modules of shared/db, the DynamoDB actions it performs on those items (KeyGrants,
   * shared/db/key-patterns.ts; e.g. `grant(REFRESH_KEYS, 'GetItem')`, or what a module grants for
   * what it does, `USER_WRITES.replace`, records.ts `crudGrants`). Its function may do nothing
   * else to the table (one statement per set of patterns, each with the `dynamodb:LeadingKeys`
   * condition, infra/aws/access.ts). What every function of a kind needs is added there, not
   * here: the auth states for public routes (token checks), the counters for a `rateLimit`, the
   * outbox for `sendsMail`. Empty: the operation touches no item.
   */
  keys: KeyGrants;
  /** The operation queues e-mails (outbox items, in the transaction of the change that causes them). */
  sendsMail?: true;
  /**
   * What the operation uses besides the table, so its function gets the environment and the
   * permissions for exactly that (infra/aws/access.ts). Public routes verify sent tokens and so
   * always read the public keys; list operations (`response.page`) always get the cursor key.
   */
  uses?: readonly Capability[];
  /**
   * The specific rate-limit policies of API.md §7.2 that count this operation (rate-limits.ts):
   * one, or a list when several name it (`create-picture`: `upload` and `catalogue-write`).
   * Policies per user belong on signed-in routes (access: a role).
   */
  rateLimit?: RateLimits;
  /**
   * A 403 that depends only on the caller and the path values, checked right after the role of
   * `access` (API.md §1.4 #5: before 415, 400 and 404): false → 403. Only on signed-in routes
   * (access: a role). E.g. `/api/users/{id}/`, where a non-administrator may name only their own
   * id, whether or not another id exists. `params` are the path values as sent (not yet checked).
   */
  guard?: (request: { caller: Caller; params: Readonly<Record<string, string | undefined>> }) => boolean;
  /** Package files the function reads at run time (PackageFiles). */
  packageFiles?: readonly PackageFiles[];
}

/**
 * - `public-keys`: verifies tokens it is given (the public signing keys);
 * - `signing-key`: mints tokens (the private signing keys);
 * - `email-tokens`: issues or checks e-mailed tokens (their HMAC key);
 * - `social-providers`: talks to the configured social sign-in providers (their configuration);
 * - `social-secrets`: authenticates to them as their client (the client secrets, for the code exchange);
 * - `picture-storage`: stores uploaded picture files (s3:PutObject under `pictures/` of the
 *   pictures bucket, whose name and public base URL it is given);
 * - `index-read`: loads the in-memory index's snapshots (s3:GetObject under `index/` of the index
 *   bucket, whose name it is given; shared/storage/index-objects.ts).
 */
export type Capability = 'public-keys' | 'signing-key' | 'email-tokens' | 'social-providers' | 'social-secrets' | 'picture-storage' | 'index-read';

export function defineRoute<const T extends RouteDecl>(decl: T): T {
  return decl;
}

/** The entry module of a route's function, relative to the repository root. */
export function routeEntry(route: Pick<RouteDecl, 'name'>): string {
  const [group, op] = route.name.split('.');
  return `functions/${group}/${op}.ts`;
}

/**
 * The timeout of every route's function (infra/aws/route-group.ts), within API Gateway's 30 s.
 * An Idempotency-Key's claim outlives it (shared/http/idempotency.ts LEASE_MS).
 */
export const ROUTE_TIMEOUT_SECONDS = 10;

/** Whether a route takes an Idempotency-Key (API.md §8.7): a POST that creates (201). */
export const takesIdempotencyKey = (route: Pick<RouteDecl, 'method' | 'response'>): boolean => route.method === 'POST' && route.response.status === 201;

/** Whether the API Gateway route gets the Lambda authorizer. */
export function needsAuthorizer(route: Pick<RouteDecl, 'access'>): boolean {
  return route.access !== 'public' && route.access !== 'credentials';
}

/** Names of the path parameters, in order (`{id}` twice in review paths: `id`, `id_2`). */
export function pathParamNames(path: string): string[] {
  const seen = new Map<string, number>();
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => {
    const n = (seen.get(m[1]!) ?? 0) + 1;
    seen.set(m[1]!, n);
    return n === 1 ? m[1]! : `${m[1]}_${n}`;
  });
}

/** The path as an API Gateway route key (parameter names made unique, see pathParamNames). */
export function gatewayPath(path: string): string {
  const names = pathParamNames(path);
  let i = 0;
  return path.replace(/\{[a-z_]+\}/g, () => `{${names[i++]}}`);
}
