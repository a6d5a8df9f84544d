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
  /** HMAC key of the e-mailed tokens (activation, password reset, e-mail change; API.md §6). */
  emailToken: 'email-token-key',
  /** Client secrets of the social sign-in providers: a JSON object {provider name: secret}. */
  social: 'social-secrets',
} as const;

/** API-wide throttling (the general rate limits of API.md §7.2 are enforced at the edge). */
export const THROTTLE = { rateLimit: 200, burstLimit: 400 };

/**
 * The environment variables the shared code reads. The CDK app sets them per function (only those
 * a function needs); the local runtime sets all of them for the in-process functions.
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
} as const;
