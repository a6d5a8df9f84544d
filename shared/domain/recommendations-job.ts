/**
 * The recommendations job (API.md §5.4, §5.5: hourly): for every anime and every manga A, the
 * up to 50 titles B with votes(A, B) ≥ 3 — users with high items (score ≥ 7) for both — ordered
 * by votes desc, then B's score desc (nulls last), then B's name; stored per title
 * (shared/db/recommendations.ts), only where the list changed.
 *
 * A run, per kind:
 *  1. the titles: the kind's random-pick slots read whole (every live title, ~60 B each), less
 *     those a tombstone names (deleted, cascade pending);
 *  2. who lists each title high: its listed postings (`ANIME#<id>#L`, filtered on `score ≥ 7`),
 *     16 Queries at a time; users and titles become numbers (Int32Array rows);
 *  3. the score and name of every title listed high (its record item, BatchGetItem): the tie order;
 *  4. the votes (co-votes.ts, in memory, within the work budget MAX_WORK);
 *  5. per 1,000 titles: the stored lists read, and each list that changed written as a version
 *     of this run (PutItem, 16 at a time); what the last run's completion superseded goes
 *     (listWrite: the older versions, the lists that became empty); then the records of the
 *     titles whose list was put are read again, and the list of any deleted meanwhile goes (its
 *     cascade may have run before the put).
 * Then the run completes: `done` and `refreshed_at` are set — the last write. Before that no
 * reader sees anything this run wrote; a run that fails leaves its versions invisible (the next
 * run overwrites them), the previous lists and `refreshed_at` in place, and throws (the failure
 * alarm). Two runs at once: the second finds the lease taken and does nothing.
 */
import { randomUUID } from 'node:crypto';
import { getItems } from '../db/batch.js';
import { byKey, completeRun, dropList, listWrite, releaseRun, startRun, storedLists, tieKey, writeList, type ListWrite, type StoredEntry } from '../db/recommendations.js';
import { usersScoring } from '../db/playlists.js';
import { recordKeyOfKind } from '../db/records.js';
import { slottedIds } from '../db/slots.js';
import { derivedNumbers, statsOf } from '../db/titles.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { mapLimit } from '../concurrency.js';
import { logger } from '../log.js';
import { coVotes, type CoVoteStats } from './co-votes.js';
import { PLAYLISTS, type PlaylistKind } from './playlists.js';
import { HIGH_SCORE, MIN_VOTES } from './recommendations.js';

/** Recommendations stored per title (§7.1). */
export const PER_TITLE = 50;
/** Σ h² (counter increments) beyond which the heaviest users' high items are sampled (co-votes.ts; decision M3). */
export const MAX_WORK = 2_000_000_000;
/** DynamoDB calls in flight. */
const IN_FLIGHT = 16;
/** Titles whose stored lists are compared and written at a time (bounds the memory of old lists). */
const WRITE_CHUNK = 1_000;

export interface KindSummary {
  titles: number;
  users: number;
  highItems: number;
  lists: number;
  written: number;
  unchanged: number;
  increments: number;
  sampledAt: number | null;
  ms: number;
}

export type RunSummary = { skipped: true } | { skipped: false; run: number; refreshed_at: string; anime: KindSummary; manga: KindSummary };

/** A 32-bit hash of an id (the sample of a heavy user's titles must not depend on numbering). */
function idHash(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}

async function refreshKind(kind: PlaylistKind, run: { n: number; state: { done: number; at: string | null } }): Promise<KindSummary> {
  const started = Date.now();
  const titleKind = kind.titleKind;
  const [tomb] = await getItems([tombstoneKey()]);
  const deleted = new Deleted(tomb);
  const ids = (await slottedIds(titleKind)).filter((id) => !deleted.has(titleKind, id));
  // Who lists each title high, users numbered as met.
  const userNumbers = new Map<string, number>();
  const userIds: string[] = [];
  const listers = await mapLimit(ids, IN_FLIGHT, async (id) => {
    const users = await usersScoring(kind, id, HIGH_SCORE);
    return Int32Array.from(users, (u) => {
      let n = userNumbers.get(u);
      if (n === undefined) {
        n = userIds.length;
        userNumbers.set(u, n);
        userIds.push(u);
      }
      return n;
    });
  });
  // The tie order needs the score and name of every title listed high (the others get no votes).
  const listed = ids.map((_, t) => t).filter((t) => listers[t]!.length > 0);
  const facts = new Map<number, { score: number | null; name: string }>();
  for (let i = 0; i < listed.length; i += WRITE_CHUNK) {
    const part = listed.slice(i, i + WRITE_CHUNK);
    const items = await getItems(part.map((t) => recordKeyOfKind(titleKind, ids[t]!)));
    items.forEach((item, j) => {
      const t = part[j]!;
      // A title deleted since its slot was read gets no votes (and gives none).
      if (!item) listers[t] = new Int32Array(0);
      else facts.set(t, { score: derivedNumbers(kind.statuses, statsOf(item)).score, name: String((item.rec as { name: string }).name) });
    });
  }
  const tieKeys = ids.map((id, t) => tieKey(facts.get(t)?.score ?? null, facts.get(t)?.name ?? '', id));
  const order = ids.map((_, t) => t).sort((a, b) => byKey(tieKeys[a]!, tieKeys[b]!));
  const tieRank = new Int32Array(ids.length);
  order.forEach((t, i) => (tieRank[t] = i));
  const stats: CoVoteStats = { increments: 0, lists: 0, sampledAt: null, sampledUsers: 0 };
  const votes = coVotes(
    { listers, users: userIds.length, tieRank, cap: PER_TITLE, minVotes: MIN_VOTES, maxWork: MAX_WORK, userHash: Int32Array.from(userIds, idHash), titleHash: Int32Array.from(ids, idHash) },
    stats,
  );
  const highItems = listers.reduce((n, l) => n + l.length, 0);
  listers.length = 0;
  const entriesOf = (t: number): StoredEntry[] => {
    const v = votes[t];
    if (!v) return [];
    return Array.from(v.titles, (b, i): StoredEntry => [ids[b]!, v.votes[i]!, facts.get(b)!.score, facts.get(b)!.name]);
  };
  let written = 0;
  for (let i = 0; i < ids.length; i += WRITE_CHUNK) {
    const part = ids.slice(i, i + WRITE_CHUNK);
    const stored = await storedLists(titleKind, part);
    const writes = part.flatMap((id, j): { id: string; w: ListWrite }[] => {
      const w = listWrite(titleKind, id, stored[j]!, run.state, run.n, entriesOf(i + j));
      return w ? [{ id, w }] : [];
    });
    await mapLimit(writes, IN_FLIGHT, ({ w }) => writeList(w));
    written += writes.length;
    await dropListsOfDeleted(titleKind, writes.filter(({ w }) => 'put' in w).map(({ id }) => id));
  }
  return {
    titles: ids.length,
    users: userIds.length,
    highItems,
    lists: stats.lists,
    written,
    unchanged: ids.length - written,
    increments: stats.increments,
    sampledAt: stats.sampledAt,
    ms: Date.now() - started,
  };
}

/**
 * The lists just put whose title is gone: deleted after its slot was read, its cascade (which
 * drops its list) may have run before the put. A title deleted after this read has its cascade
 * still to come, so no list outlives its title.
 */
async function dropListsOfDeleted(titleKind: string, put: string[]): Promise<void> {
  const records = await getItems(put.map((id) => recordKeyOfKind(titleKind, id)));
  await mapLimit(
    put.filter((_, j) => records[j] === null),
    IN_FLIGHT,
    (id) => dropList(titleKind, id),
  );
}

/** One run of the job (`now`: the lease's clock). */
export async function refreshRecommendations(now: Date = new Date()): Promise<RunSummary> {
  const holder = randomUUID();
  const run = await startRun(holder, now.getTime());
  if (!run) return { skipped: true };
  try {
    const summaries: Partial<Record<'anime' | 'manga', KindSummary>> = {};
    for (const kind of PLAYLISTS) summaries[kind.titleKind === 'ANIME' ? 'anime' : 'manga'] = await refreshKind(kind, run);
    const at = new Date().toISOString();
    await completeRun(run.n, holder, at);
    return { skipped: false, run: run.n, refreshed_at: at, anime: summaries.anime!, manga: summaries.manga! };
  } catch (err) {
    logger.error('recommendations run failed: the previous lists and refreshed_at stay', { run: run.n, error: String(err) });
    await releaseRun(holder);
    throw err;
  }
}

