/**
 * The change feed's items (shared/db/feed.ts) and pages (shared/domain/changes.ts), against
 * DynamoDB Local without the stream poller, so each step is the test's: a write's change is
 * committed with it; the sequencer numbers changes in the order given, gaplessly, exactly once —
 * also when a batch is delivered again, in part or whole, and when two sequencers race over
 * overlapping batches; a page stops before a missing number and answers 410 when the number after
 * its cursor is gone (deleted by the TTL) or past the 30 days kept; `since` finds its first entry
 * by binary search.
 */
import { describe, expect, it } from 'vitest';
import { send as sdkSend, tableName } from '../../shared/db/client.js';
import { changePlan, FEED_RETENTION_MS, pendingOf, readFeed, sequence, type FeedKind, type PendingChange } from '../../shared/db/feed.js';
import { commit } from '../../shared/db/records.js';
import { changesPage, startAfter } from '../../shared/domain/changes.js';
import type { HttpError } from '../../shared/problem.js';
import { newId } from '../../shared/ids.js';

/** Commits `n` changes (as writes do, one transaction each) at times from `at`, a second apart; returns them as the stream would give them. */
async function changes(n: number, at = Date.now()): Promise<{ ids: string[]; pending: PendingChange[] }> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId();
    ids.push(id);
    await commit(changePlan({ kind: (['anime', 'genre', 'news'] as FeedKind[])[i % 3]!, id, change: 'created' }, new Date(at + i * 1000)));
  }
  const out = await sdkSend((c) => new c.QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'FEED#P' }, ConsistentRead: true }));
  const pending = (out.Items ?? []).map((i) => pendingOf(i)!).filter((p) => ids.includes(p.write.id));
  // In commit order (their keys start with the time).
  return { ids, pending: ids.map((id) => pending.find((p) => p.write.id === id)!) };
}

async function all(): Promise<{ seq: number; id: string }[]> {
  const out: { seq: number; id: string }[] = [];
  let after = 0;
  for (;;) {
    const { entries } = await readFeed(after, 100);
    if (entries.length === 0) return out;
    out.push(...entries.map((e) => ({ seq: e.seq, id: e.id })));
    after = entries.at(-1)!.seq;
  }
}

const gapless = (entries: { seq: number }[]) => entries.every((e, i) => e.seq === (entries[0]?.seq ?? 1) + i);

describe('the change feed', () => {
  it('numbers changes in order, once, however often a batch is delivered again', async () => {
    const before = (await all()).length;
    const { ids, pending } = await changes(12);
    expect(await sequence(pending.slice(0, 5))).toBe(5);
    // Redelivered whole (a retried invocation), then in part: only the changes not yet numbered.
    expect(await sequence(pending)).toBe(7);
    expect(await sequence(pending.slice(3))).toBe(0);
    const entries = (await all()).slice(before);
    expect(entries.map((e) => e.id)).toEqual(ids);
    expect(gapless(await all())).toBe(true);
  });

  it('two sequencers racing over overlapping batches: each change once, gapless', async () => {
    const before = (await all()).length;
    const { ids, pending } = await changes(30);
    await Promise.all([sequence(pending.slice(0, 20)), sequence(pending.slice(10)), sequence(pending.slice(5, 25))]);
    const entries = (await all()).slice(before);
    expect(entries.map((e) => e.id).sort()).toEqual([...ids].sort());
    expect(new Set(entries.map((e) => e.id)).size).toBe(30);
    expect(gapless(await all())).toBe(true);
  });

  it('pages: bounded, filtered, stopped before a gap; 410 past the retention or after a deleted number', async () => {
    const head = (await all()).at(-1)?.seq ?? 0;
    const { ids, pending } = await changes(6);
    await sequence(pending);
    const now = Date.now();
    const page = await changesPage(head, { kinds: ['genre'], limit: 25, now });
    expect(page.entries.every((e) => e.kind === 'genre')).toBe(true);
    expect(page.entries.map((e) => e.id)).toEqual(ids.filter((_, i) => i % 3 === 1));
    expect(page.after).toBe(head + 6);
    // Caught up: empty, and the same point again.
    expect(await changesPage(head + 6, { kinds: undefined, limit: 25, now })).toEqual({ entries: [], after: head + 6 });
    // Number head + 3 deleted (as the TTL does): a page from before it stops there, one after it is gone.
    await sdkSend((c) => new c.DeleteCommand({ TableName: tableName(), Key: { pk: 'FEED', sk: `E#${String(head + 3).padStart(12, '0')}` } }));
    const stopped = await changesPage(head, { kinds: undefined, limit: 25, now });
    expect(stopped.entries.map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(stopped.after).toBe(head + 2);
    await expect(changesPage(head + 2, { kinds: undefined, limit: 25, now })).rejects.toMatchObject({ type: 'gone' } satisfies Partial<HttpError>);
    // Past the 30 days: gone, though DynamoDB has not deleted it yet.
    await expect(changesPage(head + 3, { kinds: undefined, limit: 25, now: now + FEED_RETENTION_MS + 60_000 })).rejects.toMatchObject({ type: 'gone' });
  });

  it('`since` starts at the first entry at or after it (binary search); none: after the last', async () => {
    const at = Date.parse('2031-01-01T00:00:00.000Z');
    const head = (await all()).at(-1)?.seq ?? 0;
    const { pending } = await changes(9, at);
    await sequence(pending);
    const now = at + 3_600_000;
    expect(await startAfter(new Date(at + 4_000).toISOString(), now)).toBe(head + 4);
    expect(await startAfter(new Date(at + 4_500).toISOString(), now)).toBe(head + 5);
    expect(await startAfter(new Date(at + 60_000).toISOString(), now)).toBe(head + 9);
    // Before every entry of this test: its start, as the earlier entries are older (their `at`, written now, before 2031).
    expect(await startAfter(new Date(at - 1).toISOString(), now)).toBe(head);
    // Older than the retention: from the retention's start.
    expect(await startAfter('2000-01-01T00:00:00.000Z', at + 4_000 + FEED_RETENTION_MS)).toBe(head + 4);
  });
});
