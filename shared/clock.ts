/**
 * The time responses are computed at, where the contract makes a response depend on it: the
 * current season (API.md §5.2, "today" in UTC), an anime's `next_episode` and the schedule's
 * weekly slots and `seconds_until` (§5.3, "the time of the response"). An operation reads it
 * once, so that every value of one response is computed at the same instant.
 *
 * Tests fix it (`setClock`); functions run in the test process (test/support/server.ts), so an
 * end-to-end test can put "now" anywhere, e.g. just before a daylight-saving change. Nothing
 * else sets it: on AWS it is always the system clock.
 */
let fixed: number | null = null;

export function clock(): Date {
  return new Date(fixed ?? Date.now());
}

/** Tests: the time `clock()` returns from now on (`null`: the system clock again). */
export function setClock(at: Date | string | null): void {
  fixed = at === null ? null : new Date(at).getTime();
}
