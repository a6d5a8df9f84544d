/**
 * The specific rate-limit policies of API.md §7.2, written once. Routes name their policy in
 * their declaration (`rateLimit: { policy: 'sign-in' }`); the middleware counts every request
 * of such a route (shared/http/rate-limiter.ts, counters in shared/db/rate-counters.ts).
 * The general policies (anonymous, member, trusted) are enforced at the edge, not here.
 *
 * The values are the published defaults. A deployment may change them, or switch them off,
 * with the RATE_LIMITS variable (read on every request):
 *
 * - unset, empty or `on`: the defaults below;
 * - `off`: no specific limits and no RateLimit-* headers (local runs and test suites that must
 *   register many users);
 * - a JSON object of overrides keyed by limit (`limitName`: `<policy>.<dimension>`, or
 *   `<policy>.<dimension>.<name>` where a policy has several limits of one dimension), each
 *   `{"limit": n, "window": s}` (either may be left out), e.g. `{"sign-in.ip": {"limit": 20},
 *   "registration.ip": {"window": 600}, "catalogue-write.user.day": {"limit": 5000}}`.
 *   Anything else is a configuration error: requests of limited routes then fail with 500.
 */
import type { Caller } from '../auth/roles.js';

/** What a limit counts per: the client address, the `email` of the body, or the signed-in user. */
export type Dimension = 'ip' | 'email' | 'user';

export interface Limit {
  dimension: Dimension;
  /** Requests allowed per window. */
  limit: number;
  /** Window length in seconds (fixed windows aligned to the epoch). */
  window: number;
  /**
   * Tells the limits of one dimension apart where a policy has several (`catalogue-write`: per
   * minute and per day): part of the limit's name in RATE_LIMITS and of its counters' keys.
   */
  name?: string;
}

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
const per =
  (dimension: Dimension) =>
  (limit: number, window: number, name?: string): Limit => ({ dimension, limit, window, ...(name === undefined ? {} : { name }) });
const ip = per('ip');
const email = per('email');
const user = per('user');

/** API.md §7.2, the specific policies. */
export const POLICIES = {
  /** `POST /api/tokens/jwt/create/`, `POST /api/users/reset_email/`. */
  'sign-in': [ip(10, MINUTE), email(20, HOUR)],
  /** `POST /api/tokens/jwt/refresh/`, `POST /api/tokens/jwt/verify/`. */
  token: [ip(30, MINUTE)],
  /** Both `/api/socials/o/{provider}/` operations. */
  social: [ip(30, MINUTE)],
  /** `POST /api/users/`. */
  registration: [ip(5, HOUR)],
  /** `resend_activation`, `reset_password` (the e-mail is the target address). */
  'mail-request': [ip(5, HOUR), email(3, HOUR)],
  /** `activation`, `reset_password_confirm`, `reset_email_confirm`. */
  confirm: [ip(20, HOUR)],
  /** `set_password`, `set_email`, `DELETE /api/users/me/`, `DELETE` of one's own `/api/users/{id}/`. */
  account: [user(10, HOUR)],
  /** `POST /api/persons/{id}/create-picture/`. */
  upload: [user(60, HOUR)],
  /**
   * Every POST, PUT, PATCH and DELETE of the catalogue and taxonomy collections (animes, mangas,
   * characters, persons, news, genres, themes, demographics, producers, magazines) and
   * `create-picture`; not the reviews, lists or accounts.
   */
  'catalogue-write': [user(60, MINUTE, 'minute'), user(1000, DAY, 'day')],
} as const satisfies Record<string, readonly Limit[]>;

export type PolicyName = keyof typeof POLICIES;
export type Policies = Record<PolicyName, readonly Limit[]>;

/** What a route declares (shared/http/route.ts `rateLimit`): a policy that counts its requests. */
export interface RateLimitDecl {
  policy: PolicyName;
  /**
   * Whether the policy applies to this request (default: always), e.g. only to the DELETE of
   * one's own account. Called where the policy's limits are checked: limits per IP or e-mail
   * before the credentials (`caller` is then null), limits per user after them.
   */
  when?: (request: { caller: Caller | null; params: Readonly<Record<string, string | undefined>> }) => boolean;
}

/** The policies that count a route's requests: its declaration names one, or several (routePolicies). */
export type RateLimits = RateLimitDecl | readonly RateLimitDecl[];

/** The policies of a route's `rateLimit`, as a list (empty: the route is not limited). */
export function routePolicies(route: { rateLimit?: RateLimits }): readonly RateLimitDecl[] {
  const decl = route.rateLimit;
  if (decl === undefined) return [];
  return 'policy' in decl ? [decl] : decl;
}

/**
 * A limit's name in RATE_LIMITS and in its counters' keys: `<dimension>`, or `<dimension>.<name>`
 * where its policy has several limits of that dimension (`user.day`).
 */
export const limitName = (limit: Limit): string => (limit.name === undefined ? limit.dimension : `${limit.dimension}.${limit.name}`);

/** Limits per user need the caller; the others are checked before the credentials (§1.4: 429 before 401). */
export const needsCaller = (dimension: Dimension) => dimension === 'user';

let cached: { setting: string; policies: Policies | null } | undefined;

/** The policies in force under RATE_LIMITS (`null`: switched off). */
export function ratePolicies(setting: string | undefined = process.env.RATE_LIMITS): Policies | null {
  const value = (setting ?? '').trim();
  if (cached?.setting !== value) cached = { setting: value, policies: parseSetting(value) };
  return cached.policies;
}

/** Parses a RATE_LIMITS value (see the top of this module); throws on anything else. */
export function parseSetting(value: string): Policies | null {
  if (value === '' || value === 'on') return POLICIES;
  if (value === 'off') return null;
  let overrides: unknown;
  try {
    overrides = JSON.parse(value);
  } catch {
    throw new Error('RATE_LIMITS must be "on", "off" or a JSON object of overrides');
  }
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new Error('RATE_LIMITS must be "on", "off" or a JSON object of overrides');
  }
  const policies: Record<string, Limit[]> = Object.fromEntries(
    Object.entries(POLICIES).map(([name, limits]) => [name, limits.map((l) => ({ ...l }))]),
  );
  for (const [key, override] of Object.entries(overrides)) {
    const dot = key.indexOf('.');
    const name = dot < 0 ? key : key.slice(0, dot);
    const target = Object.hasOwn(policies, name) ? policies[name]!.find((l) => limitName(l) === key.slice(dot + 1)) : undefined;
    if (dot < 0 || !target) throw new Error(`RATE_LIMITS: "${key}" names no limit (use <policy>.<dimension>, e.g. "sign-in.ip", or "catalogue-write.user.day")`);
    if (typeof override !== 'object' || override === null) throw new Error(`RATE_LIMITS: "${key}" must be an object`);
    for (const [field, n] of Object.entries(override as Record<string, unknown>)) {
      if (field !== 'limit' && field !== 'window') throw new Error(`RATE_LIMITS: "${key}.${field}" is not a setting (limit, window)`);
      if (!Number.isSafeInteger(n) || (n as number) < 1) throw new Error(`RATE_LIMITS: "${key}.${field}" must be a positive integer`);
      target[field] = n as number;
    }
  }
  return policies as unknown as Policies;
}

/**
 * The client as counted: an IPv4 address, or the /64 network of an IPv6 address (the usual
 * allocation of one subscriber, who could otherwise change addresses at will). The address is
 * the client's as shared/http/edge.ts establishes it (API Gateway's, or the edge's viewer).
 */
export function clientKey(address: string | undefined): string {
  const ip = (address ?? '').trim().toLowerCase().replace(/%.*$/, '');
  if (!ip.includes(':')) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip);
  if (mapped) return mapped[1]!;
  const halves = ip.split('::');
  if (halves.length > 2) return ip;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return ip;
  const all = [...head, ...Array<string>(missing).fill('0'), ...tail];
  const prefix = all.slice(0, 4);
  if (prefix.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return ip;
  return `${prefix.map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/**
 * The submitted e-mail address of a request body, as addresses are compared (NFC, trimmed,
 * lower case): the `email` member of a JSON object body, or `null` when there is none (then
 * the limits per e-mail address do not apply; the body is judged later, 415 or 400).
 */
export function submittedEmail(body: Record<string, unknown> | null): string | null {
  const value = body?.email;
  if (typeof value !== 'string') return null;
  const address = value.normalize('NFC').trim().toLowerCase();
  return address === '' ? null : address;
}

/** Where one limit stands for this request (RateLimit-* headers, API.md §7.2). */
export interface LimitStatus {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (≥ 1). */
  reset: number;
}

/** The status reported: the one with the fewest remaining requests (ties: the later reset). */
export function reported(statuses: readonly LimitStatus[]): LimitStatus | null {
  let best: LimitStatus | null = null;
  for (const s of statuses) {
    if (!best || s.remaining < best.remaining || (s.remaining === best.remaining && s.reset > best.reset)) best = s;
  }
  return best;
}

export function rateLimitHeaders(status: LimitStatus): Record<string, string> {
  return {
    'ratelimit-limit': String(status.limit),
    'ratelimit-remaining': String(status.remaining),
    'ratelimit-reset': String(status.reset),
  };
}

/** The fixed window containing `nowMs`: its start and end (epoch seconds) and the seconds left (≥ 1). */
export function windowAt(window: number, nowMs: number): { start: number; end: number; reset: number } {
  const start = Math.floor(nowMs / 1000 / window) * window;
  const end = start + window;
  return { start, end, reset: Math.max(1, Math.ceil(end - nowMs / 1000)) };
}
