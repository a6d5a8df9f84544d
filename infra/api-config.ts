/**
 * Settings of the API Gateway HTTP API that both the CDK app and the local server apply, so the
 * local emulation behaves like the deployed gateway.
 */
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
} as const;

/** API-wide throttling (the general rate limits of API.md §7.2 are enforced at the edge). */
export const THROTTLE = { rateLimit: 200, burstLimit: 400 };
