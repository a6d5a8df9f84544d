/**
 * Storage of the per-title recommendations (API.md §5.4, §4.1.2 `recommendations/`, §4.14;
 * docs/data-model.md "Recommendations"), written by the recommendations job:
 *
 *   list      pk = RECS#<KIND>#<title id>   sk = R   { v: [{ n, b: [[id, votes, score, name], …] }, …] }   at most 2 versions
 *   job       pk = RECS#JOB                 sk = R   { n, holder, lease_until, done, prev, at }
 *
 * A run takes the job item's lease and a run number n (one greater than the last started), writes
 * the lists that changed as versions tagged n, and ends by setting `done` = n and `at` (its
 * completion time, the `refreshed_at` of every recommendation list) — the last write of a run —
 * and `prev`, the `done` it replaced. A reader shows, of each list, the newest version whose
 * n ≤ `done`: a run that fails mid-write leaves its versions invisible, so the previous results
 * stay in place with the previous `refreshed_at` (§5.5). A list item keeps at most two versions:
 * the one readers see now and the running one's.
 *
 * Nothing else is kept (docs/decisions.md V6, V7): the next run removes what a run's completion
 * superseded — the older version of each list it changed, and a list that became empty (an empty
 * list reads as none) — as it reads every list anyway; not the completing run itself, whose
 * readers may still hold the `done` before it for the length of a request. The list of a deleted
 * title goes with the title's cascade (dropList), and a run that wrote one after that cascade
 * removes it itself.
 *
 * An entry holds B's id, votes(A, B) and the score and name of B the run ordered by (so that a
 * reader orders the summed votes of several lists as the run did, without reading every B).
 */
import { getItems, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import type { KeyPattern } from './key-patterns.js';
import { compareCodePoints } from './sort-keys.js';
import { searchNormalize } from '../text.js';

/** The recommendation items: every title's lists and the job item. */
export const RECOMMENDATION_KEYS: KeyPattern = 'RECS#*';

export const recommendationsKey = (titleKind: string, titleId: string): ItemKey => ({ pk: `RECS#${titleKind}#${titleId}`, sk: 'R' });
export const RECOMMENDATION_JOB_KEY: ItemKey = { pk: 'RECS#JOB', sk: 'R' };

/** One stored recommendation: B's id, votes(A, B), and B's score and name as the run ordered them. */
export type StoredEntry = [id: string, votes: number, score: number | null, name: string];

interface Version {
  n: number;
  b: StoredEntry[];
}

/** The job's state: the last completed run and its completion time (null: none yet). */
export interface JobState {
  done: number;
  at: string | null;
}

export const jobStateOf = (item: Item | null | undefined): JobState => ({
  done: Number(item?.done ?? 0),
  at: typeof item?.at === 'string' ? item.at : null,
});

const versionsOf = (item: Item | null | undefined): Version[] => ((item?.v as Version[] | undefined) ?? []).map((v) => ({ n: Number(v.n), b: v.b }));

/** The version readers see: the newest whose run completed (n ≤ done). */
function visible(item: Item | null | undefined, done: number): Version | undefined {
  return versionsOf(item)
    .filter((v) => v.n <= done)
    .sort((a, b) => b.n - a.n)[0];
}

/** The entries of a list item that readers see after run `done` (none before the first run). */
export const visibleEntries = (item: Item | null | undefined, state: JobState): StoredEntry[] => visible(item, state.done)?.b ?? [];

// ---- The order of a recommendation list (§5.4): votes desc, then score desc (nulls last), then name, then id

const SEP = '\u0001';
const MAX_VOTES = 999_999_999_999;

/** The key of a title in the tie order (score desc, nulls last; N(name) by code point; id). */
export function tieKey(score: number | null, name: string, id: string): string {
  const s = score === null ? '2' : `1${String(100_000 - Math.round(score * 100)).padStart(6, '0')}`;
  return `${s}${SEP}${searchNormalize(name)}${SEP}${id}`;
}

/** The key of an entry in a list's order: ascending keys are the list's order (compareCodePoints). */
export const rankKey = (votes: number, score: number | null, name: string, id: string): string =>
  `${String(MAX_VOTES - votes).padStart(12, '0')}${SEP}${tieKey(score, name, id)}`;

export const entryKey = (e: StoredEntry): string => rankKey(e[1], e[2], e[3], e[0]);

export const byKey = (a: string, b: string) => compareCodePoints(a, b);

// ---- The job

/** Milliseconds a run holds the lease: longer than the job function's timeout. */
export const LEASE_MS = 16 * 60_000;

/**
 * Starts a run: takes the lease (free, or expired) and the next run number. `null` when another
 * run holds it (that run does the work).
 */
export async function startRun(holder: string, now: number): Promise<{ n: number; state: JobState } | null> {
  try {
    const out = await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: RECOMMENDATION_JOB_KEY,
        UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #holder = :holder, #until = :until',
        ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
        ExpressionAttributeNames: { '#n': 'n', '#holder': 'holder', '#until': 'lease_until' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':holder': holder, ':until': now + LEASE_MS, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { n: Number(out.Attributes!.n), state: jobStateOf(out.Attributes) };
  } catch (err) {
    if ((err as { name?: string }).name === 'ConditionalCheckFailedException') return null;
    throw err;
  }
}

/** Ends run `n`: its versions become the ones readers see, `at` their `refreshed_at`; the lease is released. */
export async function completeRun(n: number, holder: string, at: string): Promise<void> {
  await send((c) =>
    new c.UpdateCommand({
      TableName: tableName(),
      Key: RECOMMENDATION_JOB_KEY,
      UpdateExpression: 'SET #prev = if_not_exists(#done, :zero), #done = :n, #at = :at REMOVE #holder, #until',
      ConditionExpression: '#holder = :holder AND (attribute_not_exists(#done) OR #done < :n)',
      ExpressionAttributeNames: { '#done': 'done', '#prev': 'prev', '#at': 'at', '#holder': 'holder', '#until': 'lease_until' },
      ExpressionAttributeValues: { ':n': n, ':at': at, ':holder': holder, ':zero': 0 },
    }),
  );
}

/** A failed run gives the lease back (its versions stay invisible; `done` and `at` are untouched). */
export async function releaseRun(holder: string): Promise<void> {
  await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: RECOMMENDATION_JOB_KEY,
        UpdateExpression: 'REMOVE #holder, #until',
        ConditionExpression: '#holder = :holder',
        ExpressionAttributeNames: { '#holder': 'holder', '#until': 'lease_until' },
        ExpressionAttributeValues: { ':holder': holder },
      }),
    )
    .catch((err: unknown) => {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    });
}

/** The stored list items of titles (null where a title has none), in order. */
export const storedLists = (titleKind: string, ids: readonly string[]): Promise<(Item | null)[]> => getItems(ids.map((id) => recommendationsKey(titleKind, id)));

/** A write of a title's list: the item put whole, or deleted. */
export type ListWrite = { put: Item } | { delete: ItemKey };

/**
 * What run `n` writes for a title whose list it computed as `entries` (null: nothing). Nothing
 * it writes changes what readers see before the run completes:
 *  - entries that differ from the newest stored version: a version of this run beside the one
 *    readers see now (without any other: an older one is superseded, a failed run's is replaced);
 *    the item is deleted instead when readers see nothing now and the run found nothing;
 *  - the same entries as the newest version, which readers see already: the versions that
 *    version superseded go, and the item goes when it is empty (what the last completion left);
 *  - the same entries as a newest version readers do not see yet (a failed run's): nothing, it
 *    becomes the one they see when this run completes.
 */
export function listWrite(titleKind: string, titleId: string, stored: Item | null, state: JobState, n: number, entries: StoredEntry[]): ListWrite | null {
  if (!stored) return entries.length === 0 ? null : { put: { ...recommendationsKey(titleKind, titleId), v: [{ n, b: entries }] } };
  const versions = versionsOf(stored).sort((a, b) => b.n - a.n);
  const newest = versions[0];
  const seen = visible(stored, state.done);
  const drop = { delete: recommendationsKey(titleKind, titleId) };
  if (JSON.stringify(newest?.b ?? []) !== JSON.stringify(entries)) {
    if (!seen && entries.length === 0) return drop;
    return { put: { ...recommendationsKey(titleKind, titleId), v: [...(seen ? [seen] : []), { n, b: entries }] } };
  }
  if (!newest) return drop;
  if (newest.n > state.done) return null;
  if (entries.length === 0) return drop;
  return versions.length > 1 ? { put: { ...recommendationsKey(titleKind, titleId), v: [newest] } } : null;
}

export async function writeList(w: ListWrite): Promise<void> {
  if ('put' in w) await send((c) => new c.PutCommand({ TableName: tableName(), Item: w.put }));
  else await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: w.delete }));
}

/** A title's list goes (the title was deleted). */
export async function dropList(titleKind: string, titleId: string): Promise<void> {
  await send((c) => new c.DeleteCommand({ TableName: tableName(), Key: recommendationsKey(titleKind, titleId) }));
}

/** The title a per-title list item is of (`RECS#<KIND>#<id>` / `R`; null: another item, e.g. the job's). */
export function listTitleOf(item: { pk?: unknown; sk?: unknown }): { titleKind: string; titleId: string } | null {
  const m = /^RECS#(ANIME|MANGA)#([^#]+)$/.exec(String(item.pk));
  return m && item.sk === 'R' ? { titleKind: m[1]!, titleId: m[2]! } : null;
}
