/**
 * The recommendation lists (API.md §4.1.2 `recommendations/`, §4.14, §5.4), read from the lists
 * the recommendations job stores (shared/db/recommendations.ts): a reader sees, of each list,
 * the version of the last completed run, and that run's completion time as `refreshed_at`.
 *
 * - Per title: the title's list (≤ 50), the titles deleted since left out (tombstones, then
 *   their records, all read in one batch: `count` exact). 2 calls.
 * - Personalised (a valid token): the caller's list vectors read whole; the seeds are the 50
 *   most recently updated items that are high or favourite; the candidates are the titles of
 *   the seeds' stored lists, their votes summed, the caller's titles and deleted ones left out,
 *   ordered by summed votes desc, then score desc (nulls last), then name, then id — score and
 *   name as the last run ordered them (stored with each entry); at most 100.
 * - Popular (no token, or no candidate): the head of the catalogue index's `popularity`
 *   ordering (non-null values, ascending; kept by the rankings job), the caller's titles left
 *   out; at most 100.
 * The list is computed per request and cut in memory (cursors hold the entry's key in it); the
 * page's records are read with one BatchGetItem (a title deleted since the run, once its
 * tombstone is cleared, is then left out of the page). Calls: anonymous 3; signed in 4–5.
 */
import { getItems, type Item, type ItemKey } from '../db/batch.js';
import { pageOf } from '../db/catalogue-index.js';
import { keyHasValue } from '../db/sort-keys.js';
import { indexKept, indexPage } from '../domain/index-reader.js';
import { explicitTest, sfwExclusions } from '../domain/sfw.js';
import { listVectors } from '../db/playlists.js';
import { byKey, entryKey, jobStateOf, rankKey, RECOMMENDATION_JOB_KEY, recommendationsKey, visibleEntries, type JobState } from '../db/recommendations.js';
import { recordKeyOfKind, type BaseRecord } from '../db/records.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import type { Caller } from '../auth/roles.js';
import { HIGH_SCORE, PER_CALLER, SEEDS, type RecommendationKind } from '../domain/recommendations.js';
import type { TitleResource } from '../domain/title-resource.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from '../problem.js';
import { readKnown, recordsOf, shapeKeys } from './titles.js';

/** An entry of a recommendation list: its title, its key in the list's order, its votes. */
export interface Recommended {
  id: string;
  sk: string;
  votes: number | null;
}

export interface RecommendationList {
  source: 'personalized' | 'popular';
  entries: Recommended[];
  state: JobState;
  deleted: Deleted;
}

/** The keys every caller's list reads first: the job's state and a tombstone shard. */
export const listKeys = (req: ApiRequest): ItemKey[] => [RECOMMENDATION_JOB_KEY, tombstoneKey(req.requestId)];

/**
 * The whole recommendation list of a caller (§5.4, at most PER_CALLER entries, in order):
 * personalised when `caller` has candidates, else popular. `first`: the items of listKeys.
 */
export async function recommendationsFor(kind: RecommendationKind, caller: Caller | null, first: Promise<(Item | null)[]>, sfw = false): Promise<RecommendationList> {
  const { titleKind } = kind.list;
  const { index } = kind.titles.title;
  // `sfw=true` (§8.3): the exclusions of the titles' kind, from the tombstone shard of `first`.
  const excluded = sfw ? first.then(([, tomb]) => sfwExclusions(titleKind, new Deleted(tomb))) : null;
  const popular = (listed: number) =>
    indexPage(index, Promise.resolve(excluded).then((x) => ({ ordering: 'popularity', descending: false, limit: PER_CALLER + listed, cursor: null, terms: [], equals: {}, ...(x ? { excluded: x } : {}) })));
  // An anonymous caller gets the most popular titles: their index page is read beside `first`.
  const early = caller ? null : popular(0);
  early?.catch(() => undefined);
  const [[job, tomb], vectors] = await Promise.all([first, caller ? listVectors(kind.list, caller.user_id) : []]);
  const state = jobStateOf(job);
  const deleted = new Deleted(tomb);
  const titleOf = (v: (typeof vectors)[number]) => v.f.title?.[0] ?? '';
  const live = vectors.filter((v) => !deleted.has(titleKind, titleOf(v)));
  const listed = new Set(live.map(titleOf));
  const seeds = live
    .filter((v) => Number(v.o.score ?? 0) >= HIGH_SCORE || (v.f.favorite ?? []).includes('true'))
    .sort((a, b) => byKey(String(b.o.updated_at), String(a.o.updated_at)) || byKey(a.id, b.id))
    .slice(0, SEEDS);
  if (seeds.length > 0) {
    const lists = await getItems(seeds.map((v) => recommendationsKey(titleKind, titleOf(v))));
    const sums = new Map<string, { votes: number; score: number | null; name: string }>();
    for (const list of lists) {
      for (const [id, votes, score, name] of visibleEntries(list, state)) {
        if (listed.has(id) || deleted.has(titleKind, id)) continue;
        const sum = sums.get(id);
        if (sum) sum.votes += votes;
        else sums.set(id, { votes, score, name });
      }
    }
    // With `sfw=true`, the explicit titles' votes are not candidates (their current genres, themes and rating, from the index).
    if (excluded && sums.size > 0) {
      const kept = await indexKept(index, [...sums.keys()], await excluded);
      for (const id of [...sums.keys()]) if (!kept.has(id)) sums.delete(id);
    }
    if (sums.size > 0) {
      const entries = [...sums]
        .map(([id, s]): Recommended => ({ id, sk: rankKey(s.votes, s.score, s.name, id), votes: s.votes }))
        .sort((a, b) => byKey(a.sk, b.sk))
        .slice(0, PER_CALLER);
      return { source: 'personalized', entries, state, deleted };
    }
  }
  // The most popular titles (those with members) the caller has not listed: the caller's may all come first.
  const page = await (early ?? popular(listed.size));
  const head = page.entries.filter((e) => keyHasValue(e.sk) && !listed.has(e.id) && !deleted.has(titleKind, e.id)).slice(0, PER_CALLER);
  return { source: 'popular', entries: head.map((e) => ({ ...e, votes: null })), state, deleted };
}

/** The current representations of entries (those deleted since left out), with `extra` fields each. */
async function shown<R extends BaseRecord>(resource: TitleResource<R>, entries: readonly Recommended[], shape: readonly string[], deleted: Deleted, extra: (e: Recommended) => object) {
  const records = await recordsOf(resource, entries.map((e) => e.id), shape, deleted);
  const byId = new Map(records.map((r) => [r.id, r]));
  return entries.flatMap((e) => {
    const r = byId.get(e.id);
    return r ? [{ ...r, ...extra(e) }] : [];
  });
}

/** `GET /api/recommendations/anime/` and `…/manga/`: `limit`, `cursor`, `fields`; `count` null; `refreshed_at`. */
export function recommendedTitles(kind: RecommendationKind): Operation {
  const shape = shapeKeys(kind.titles).detail;
  const op: Operation = async (req) => {
    const list = await recommendationsFor(kind, req.caller, readKnown(req, listKeys(req)), (req.query as { sfw?: boolean }).sfw === true);
    const page = pageOf(list.entries, false, pageLimit(req), req.query.cursor ?? null);
    const items = await shown(kind.titles, page.kept, shape, list.deleted, (e) => ({ votes: e.votes, source: list.source }));
    return pageReply(req, { items, next: page.next, previous: page.previous }, null, { refreshed_at: list.state.at });
  };
  // With a token, the job's state and the tombstones are read with the caller's auth state.
  op.prefetch = listKeys;
  return op;
}

/** The first `n` entries of the caller's recommendations as cards (home's `anime_recommendations`, §4.5). */
export async function firstRecommendations(kind: RecommendationKind, req: ApiRequest, first: Promise<(Item | null)[]>, n: number, shape: readonly string[]) {
  const list = await recommendationsFor(kind, req.caller, first);
  return shown(kind.titles, list.entries.slice(0, n), shape, list.deleted, () => ({}));
}

/** `GET /api/{animes|mangas}/{id}/recommendations/`: the title's stored list (404 unknown title); `count` exact; `refreshed_at`. */
export function titleRecommendations(kind: RecommendationKind): Operation {
  const { titleKind } = kind.list;
  const resource = kind.titles;
  const shape = shapeKeys(resource).detail;
  const keys = (req: ApiRequest) => {
    const id = (req.params as { id: string }).id;
    return [recordKeyOfKind(titleKind, id), recommendationsKey(titleKind, id), ...listKeys(req)];
  };
  const op: Operation = async (req) => {
    const id = (req.params as { id: string }).id;
    const [title, list, job, tomb] = await readKnown(req, keys(req));
    const deleted = new Deleted(tomb);
    if (!title || deleted.has(titleKind, id)) throw notFound(`No ${kind.name} with this id.`);
    const state = jobStateOf(job);
    const stored = visibleEntries(list, state).filter((e) => !deleted.has(titleKind, e[0]));
    // Every entry's record (≤ 50, one call): those deleted since are left out, so `count` is exact;
    // with `sfw=true` (§8.3) the explicit ones too, by their current genres, themes and rating.
    const sfw = (req.query as { sfw?: boolean }).sfw === true;
    const all = await shown(resource, stored.map((e) => ({ id: e[0], sk: entryKey(e), votes: e[1] })), shape, deleted, (e) => ({ votes: e.votes }));
    const explicit = sfw ? explicitTest(deleted) : null;
    const items = explicit ? all.filter((r) => !explicit(r)) : all;
    const withKeys = items.map((item) => ({ item, sk: entryKey(stored.find((e) => e[0] === item.id)!) }));
    const page = pageOf(withKeys, false, pageLimit(req), req.query.cursor ?? null);
    return pageReply(req, { items: page.kept.map((k) => k.item), next: page.next, previous: page.previous }, withKeys.length, { refreshed_at: state.at });
  };
  op.prefetch = keys;
  return op;
}
