/**
 * Counting one request against the specific rate limits of its route (API.md §7.2; policies in
 * rate-limits.ts, counters in shared/db/rate-counters.ts). The middleware (handler.ts) calls it
 * twice, in the precedence order of §1.4 (413 → 429 → 401 → 403):
 *
 * - `beforeCredentials`, right after the body-size check: the limits per client address and per
 *   submitted e-mail address (the routes that have them ignore credentials);
 * - `afterCredentials`, once the caller is known: the limits per user (an anonymous request has
 *   no user to count and gets its 401).
 *
 * Each applicable limit is one conditional UpdateItem, all of a step in parallel. When one is
 * exhausted the request gets `429` with `Retry-After`, and the counts it made are taken back
 * (rejected requests are not counted). A request that passes stays counted, whatever its
 * outcome. A failing counter (throttling) fails the request (503), it does not let it through.
 * The RateLimit-* headers go into the request state, so that every response of the request,
 * success or problem, carries them (observe.ts adds them).
 */
import type { Caller } from '../auth/roles.js';
import type { ItemKey } from '../db/batch.js';
import { countRequest, rateCounterKey, uncountRequest } from '../db/rate-counters.js';
import { logger } from '../log.js';
import { requestState, type ApiEvent } from './observe.js';
import { HttpError } from '../problem.js';
import {
  clientKey,
  limitName,
  needsCaller,
  rateLimitHeaders,
  ratePolicies,
  reported,
  routePolicies,
  submittedEmail,
  windowAt,
  type Limit,
  type LimitStatus,
} from './rate-limits.js';
import { isJsonContentType, parseJsonObject } from './request.js';
import type { RouteDecl } from './route.js';

export interface RequestLimits {
  /** Counts the request per client address and per submitted e-mail address; 429 when exhausted. */
  beforeCredentials(): Promise<void>;
  /** Counts the request per user (nothing for an anonymous caller); 429 when exhausted. */
  afterCredentials(caller: Caller | null): Promise<void>;
}

const noLimits: RequestLimits = { beforeCredentials: async () => {}, afterCredentials: async () => {} };

/**
 * The limits of this request: those of the route's policies under the current RATE_LIMITS
 * setting (none when the route names no policy or the limits are switched off). A request is
 * counted against every policy that names its operation (API.md §7.2), e.g. an upload against
 * `upload` and `catalogue-write`.
 */
export function requestLimits(
  route: Pick<RouteDecl, 'rateLimit' | 'body'>,
  event: ApiEvent,
  headers: Record<string, string>,
  bytes: Buffer,
): RequestLimits {
  const decls = routePolicies(route);
  const policies = decls.length > 0 ? ratePolicies() : null;
  if (!policies) return noLimits;
  const nowMs = Date.now();
  const params = event.pathParameters ?? {};
  const counted: ItemKey[] = [];
  const passed: LimitStatus[] = [];

  let email: string | null | undefined;
  /** The body's `email`, read leniently (the body is judged later: 415, 400). */
  const emailOf = (): string | null => {
    if (email !== undefined) return email;
    email = null;
    if (route.body && bytes.length > 0 && isJsonContentType(headers['content-type'])) {
      try {
        email = submittedEmail(parseJsonObject(bytes));
      } catch {
        email = null;
      }
    }
    return email;
  };

  const undo = async () => {
    const keys = counted.splice(0);
    const results = await Promise.allSettled(keys.map((k) => uncountRequest(k)));
    const failed = results.filter((r) => r.status === 'rejected').length;
    if (failed > 0) logger.warn('rate limit counts not taken back', { request_id: requestState(event).requestId, failed });
  };

  /** The limits of one step (per user, or the others) of the policies that apply to this request. */
  const stepLimits = (caller: Caller | null, perUser: boolean): { policy: string; limit: Limit }[] =>
    decls.flatMap((decl) => {
      const limits = policies[decl.policy].filter((l) => needsCaller(l.dimension) === perUser);
      if (limits.length === 0 || (decl.when && !decl.when({ caller, params }))) return [];
      return limits.map((limit) => ({ policy: decl.policy, limit }));
    });

  const check = async (caller: Caller | null, step: readonly { policy: string; limit: Limit }[]) => {
    const keyed = step.flatMap(({ policy, limit }) => {
      const key =
        limit.dimension === 'ip' ? clientKey(requestState(event).clientIp) : limit.dimension === 'email' ? emailOf() : (caller?.user_id ?? null);
      return key === null ? [] : [{ policy, limit, key }];
    });
    const outcomes = await Promise.allSettled(
      keyed.map(async ({ policy, limit, key }) => {
        const window = windowAt(limit.window, nowMs);
        const counter = rateCounterKey(policy, limitName(limit), key, window.start);
        const n = await countRequest(counter, limit.limit, window.end);
        if (n !== null) counted.push(counter);
        return { limit: limit.limit, remaining: n === null ? 0 : Math.max(0, limit.limit - n), reset: window.reset, refused: n === null };
      }),
    );
    const failure = outcomes.find((o) => o.status === 'rejected');
    if (failure) {
      await undo();
      throw failure.reason;
    }
    const statuses = outcomes.map((o) => (o as PromiseFulfilledResult<LimitStatus & { refused: boolean }>).value);
    const refused = reported(statuses.filter((s) => s.refused));
    if (refused) {
      await undo();
      const status = { limit: refused.limit, remaining: 0, reset: refused.reset };
      requestState(event).headers = rateLimitHeaders(status);
      throw new HttpError('rate-limited', `Too many requests; retry in ${status.reset} s.`, { retry_after: status.reset });
    }
    passed.push(...statuses.map(({ limit, remaining, reset }) => ({ limit, remaining, reset })));
    const shown = reported(passed);
    if (shown) requestState(event).headers = rateLimitHeaders(shown);
  };

  return {
    beforeCredentials: () => check(null, stepLimits(null, false)),
    afterCredentials: (caller) => check(caller, stepLimits(caller, true)),
  };
}
