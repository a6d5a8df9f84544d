/**
 * CORS (API.md §1.1). Allowed origins are a deployment setting: CORS_ALLOWED_ORIGINS, a comma
 * separated list of origins, or `*` for any origin (reflected, never the literal `*`).
 */
/** §1.1's headers, and §8.7's (a browser could neither send the key nor read the replay mark otherwise). */
export const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key';
export const CORS_EXPOSE_HEADERS =
  'ETag, Location, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id, Idempotent-Replayed';
export const CORS_MAX_AGE = '600';

function allowed(origin: string): boolean {
  const setting = (process.env.CORS_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return setting.includes('*') || setting.includes(origin);
}

/** Headers for an ordinary response to a request with this Origin (or none). */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { vary: 'Origin' };
  if (origin && allowed(origin)) {
    headers['access-control-allow-origin'] = origin;
    headers['access-control-expose-headers'] = CORS_EXPOSE_HEADERS;
  }
  return headers;
}

/** Headers of a preflight response for a path that allows `methods`. */
export function preflightHeaders(origin: string | undefined, methods: string): Record<string, string> {
  const headers: Record<string, string> = { vary: 'Origin' };
  if (origin && allowed(origin)) {
    headers['access-control-allow-origin'] = origin;
    headers['access-control-allow-methods'] = methods;
    headers['access-control-allow-headers'] = CORS_ALLOW_HEADERS;
    headers['access-control-max-age'] = CORS_MAX_AGE;
  }
  return headers;
}
