/**
 * Settings of the API Gateway HTTP API that both the CDK app and the local server apply, so the
 * local emulation behaves like the deployed gateway; and the gateway's and the edge's limits.
 */
import type { RouteDecl } from '../shared/http/route.js';
import { needsCaller, POLICIES, routePolicies, type PolicyName } from '../shared/http/rate-limits.js';

export const AUTHORIZER = {
  /**
   * No identity source and no result caching: the authorizer runs on every request of a
   * protected route, with or without a token, so that (a) a missing token is answered with the
   * contract's 401 problem by the function rather than API Gateway's own 401 body, and (b) a
   * revoked token or changed role takes effect on the very next request (API.md §2.1–§2.3).
   */
  identitySource: [] as string[],
  resultsCacheTtlSeconds: 0,
};

/** Names of the secrets (prefixed with the stage on AWS). */
export const SECRET_NAMES = {
  jwtPrivate: 'jwt-private',
  jwtPublic: 'jwt-public',
  cursor: 'cursor-key',
  /** HMAC key of the e-mailed tokens (activation, password reset, e-mail change; API.md §6). */
  emailToken: 'email-token-key',
  /** Client secrets of the social sign-in providers: a JSON object {provider name: secret}. */
  social: 'social-secrets',
  /** With the edge: the value CloudFront sends in the origin header (shared/http/edge.ts). */
  origin: 'origin-verify',
} as const;

export interface Throttle {
  /** Requests per second, sustained. */
  rateLimit: number;
  /** Requests at once (the token bucket's size). */
  burstLimit: number;
}

/** API-wide throttling (the general rate limits of API.md §7.2 are enforced at the edge). */
export const THROTTLE: Throttle = { rateLimit: 200, burstLimit: 400 };

/**
 * Stricter throttling of single routes: those whose specific rate-limit policy (API.md §7.2)
 * counts per client address or submitted e-mail address, i.e. the operations anyone may call
 * (sign-in, token, registration, mail-request, confirm, social). API Gateway applies it to all
 * clients of a route together, on the stage: it caps what a flood from many addresses can cost
 * (password hashing, e-mails, calls to identity providers) where the functions' counters, which
 * count per client, cannot.
 */
export const ROUTE_THROTTLE: Throttle = { rateLimit: 10, burstLimit: 20 };

/**
 * Policies whose routes get other numbers than ROUTE_THROTTLE. Every signed-in client refreshes
 * its access token every 15 minutes: 50 per second carries about 45,000 active sessions.
 */
export const ROUTE_THROTTLE_BY_POLICY: Readonly<Partial<Record<PolicyName, Throttle>>> = {
  token: { rateLimit: 50, burstLimit: 100 },
};

/** The stricter throttling of a route, derived from its declaration; undefined: the stage's. */
export function routeThrottle(route: Pick<RouteDecl, 'rateLimit'>): Throttle | undefined {
  const policies = routePolicies(route).map((decl) => decl.policy);
  if (policies.length === 0 || policies.some((policy) => POLICIES[policy].some((limit) => needsCaller(limit.dimension)))) return undefined;
  return ROUTE_THROTTLE_BY_POLICY[policies[0]!] ?? ROUTE_THROTTLE;
}

/**
 * The general policies of API.md §7.2 as the edge enforces them (infra/aws/edge.ts, AWS WAF
 * rate-based rules over a window of `window` seconds). `anonymous` counts per client address the
 * requests without an Authorization header and every request to a route that ignores it (the
 * credential routes, API.md §2.1); `signedIn` counts requests with one per header value,
 * at the trusted limit (the member limit of 300 cannot be told apart at the edge, which does not
 * read tokens); `perAddress` counts every request per client address, so that sending a new
 * made-up header with every request does not escape both.
 */
export const EDGE_LIMITS = { window: 60, anonymous: 120, signedIn: 1200, perAddress: 2400 } as const;

/** Retry-After (seconds) of the edge's 429: a rate-based rule blocks for at least its window. */
export const EDGE_RETRY_AFTER = EDGE_LIMITS.window;

/**
 * The environment variables the shared code reads. The CDK app sets them per function (only those
 * a function needs); the local runtime sets all of them but the edge's for the in-process functions.
 */
export const FUNCTION_ENV = {
  table: 'TABLE_NAME',
  baseUrl: 'PUBLIC_BASE_URL',
  corsOrigins: 'CORS_ALLOWED_ORIGINS',
  jwtPublic: 'JWT_PUBLIC_SECRET_ID',
  jwtPrivate: 'JWT_PRIVATE_SECRET_ID',
  cursor: 'CURSOR_SECRET_ID',
  emailTokenKey: 'EMAIL_TOKEN_SECRET_ID',
  logLevel: 'POWERTOOLS_LOG_LEVEL',
  /** The sender address of account e-mails (API.md §6). */
  mailFrom: 'MAIL_FROM',
  /** `{frontend}` of API.md §6: the front-end base URL that e-mailed links point to (no trailing slash). */
  frontendUrl: 'FRONTEND_URL',
  /** The specific rate limits of API.md §7.2: `on` (default), `off` or overrides (shared/http/rate-limits.ts). */
  rateLimits: 'RATE_LIMITS',
  /** The social sign-in providers (JSON list, shared/auth/social.ts); empty: none. */
  socialProviders: 'SOCIAL_PROVIDERS',
  /** The secret holding the providers' client secrets. */
  socialSecrets: 'SOCIAL_SECRETS_ID',
  /** The bucket of uploaded picture files (shared/storage/pictures.ts). */
  picturesBucket: 'PICTURES_BUCKET',
  /** The public base URL of those files, without a trailing slash: the pictures distribution on AWS, the S3 emulator's bucket URL locally. */
  picturesBaseUrl: 'PICTURES_BASE_URL',
  /** The bucket of the in-memory index's snapshots (shared/storage/index-objects.ts). */
  indexBucket: 'INDEX_BUCKET',
  /**
   * With the edge only (never locally): the origin secret, which switches on the edge check and
   * the viewer address of every function that serves the API (shared/http/edge.ts).
   */
  originSecret: 'ORIGIN_SECRET_ID',
} as const;
