/**
 * Storage of reviews and their helpful votes (API.md §3.9, §4.1.3, §4.20, §4.21.4;
 * docs/data-model.md "Reviews"). For a review R of a title T (kind K: ANIME, MANGA) by user U:
 *
 *   review         pk = REVIEW#R                       sk = R               { rec, rev, hc }   hc: helpful votes
 *   vote           pk = REVIEW#R                       sk = V#<voter>       { at }             one per (review, voter)
 *   title entry    pk = REVIEWS#K#T#O#<ordering>#A|D   sk = <sort key>      { id, k, sp, t, u } a title's list, one per ordering and direction
 *   title counts   pk = REVIEWS#K#T                    sk = N               { n, ns }          its reviews, its non-spoiler ones
 *   user entry     pk = REVIEWS#USER#U#O#<ordering>#A|D sk = <sort key>     { id, k, sp, t, u } a user's list, likewise
 *   claim          pk = REVIEWS#USER#U                 sk = T#K#T           { id, sp }         one review per user per title (409 existing_id)
 *   user counts    pk = REVIEWS#USER#U                 sk = N               { n, n_<kind>, ns, ns_<kind> }  `n`: UserAbout `review_count`
 *   votes cast     pk = REVIEWS#VOTER#U                sk = R               { }                what an account deletion withdraws
 *   top entry      pk = REVIEWS#TOP                    sk = topKey(review)  { id, k, sp, t, u } `top/reviews/`, in its order
 *   recent entry   pk = REVIEWS#RECENT#K               sk = <created_at>#R  { id, k, t, u }    non-spoiler reviews, newest last (home)
 *
 * Every change of a review — creation, the author's edit, a vote, deletion — is one transaction
 * over the review and everything derived from it, conditioned on the review's revision and
 * helpful count as read: the list entries, the top entry (whose keys hold the orderings' values)
 * and the counts are exact when the request returns. Votes do not raise `rev` (they change no
 * field of the record; `hc` is conditioned instead), so a vote and an edit never pass each other
 * unnoticed. A list page is a Query of one ordering's entries from the cursor (`Limit`), so it
 * reads what it shows whatever the number of reviews; its `count` is the counts item's.
 */
import type { Cursor } from './sort-keys.js';
import { notFound } from '../problem.js';
import type { CountedReview, ReviewKindDef, ReviewRecord } from '../domain/reviews.js';
import { REVIEW_LIST_ORDERINGS, reviewKindOf } from '../domain/reviews.js';
import { getItems, queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { queryIndexPage, type IndexFilter } from './index-query.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { del, put, recordKeyOfKind, type Meaning, type WritePlan } from './records.js';
import { reviewCountKey, userPk } from './review-counts.js';
import { sortKey } from './sort-keys.js';

export { REVIEW_COUNT_KEYS, reviewCountKey, reviewCountOf } from './review-counts.js';

const REVIEW_PREFIX = 'REVIEW#';
export const reviewKey = (id: string): ItemKey => ({ pk: `${REVIEW_PREFIX}${id}`, sk: 'R' });
export const voteKey = (reviewId: string, voter: string): ItemKey => ({ pk: `${REVIEW_PREFIX}${reviewId}`, sk: `V#${voter}` });
const titlePk = (kind: ReviewKindDef, titleId: string) => `REVIEWS#${kind.titleKind}#${titleId}`;
const claimKey = (kind: ReviewKindDef, userId: string, titleId: string): ItemKey => ({ pk: userPk(userId), sk: `T#${kind.titleKind}#${titleId}` });
const voterKey = (voter: string, reviewId: string): ItemKey => ({ pk: `REVIEWS#VOTER#${voter}`, sk: reviewId });
const TOP_PK = 'REVIEWS#TOP';
const recentKey = (kind: ReviewKindDef, r: ReviewRecord): ItemKey => ({ pk: `REVIEWS#RECENT#${kind.titleKind}`, sk: `${r.created_at}#${r.id}` });

/** The reviews and their votes. */
const REVIEW_ITEM_KEYS: KeyPattern = `${REVIEW_PREFIX}*`;
/** What derives from them: vectors, claims, counts, postings, the top and recent lists. */
const REVIEW_ENTRY_KEYS: KeyPattern = 'REVIEWS#*';
/** Every review item: reviews and votes (`REVIEW#…`), vectors, claims, counts, postings, the top and recent lists (`REVIEWS#…`). */
export const REVIEW_KEYS: KeyPattern[] = [REVIEW_ITEM_KEYS, REVIEW_ENTRY_KEYS];

/**
 * A page of reviews (a title's, a user's, the top or recent ones): its count items (BatchGetItem,
 * with the tombstone), its entries (Query), then the reviews (BatchGetItem, with their titles and
 * authors).
 */
export const REVIEW_PAGE_READS: KeyGrants = grants(grant(REVIEW_ENTRY_KEYS, 'BatchGetItem', 'Query'), grant(REVIEW_ITEM_KEYS, 'BatchGetItem'));

/**
 * What each review write does to the review items (one transaction, reviewPlan; the review and
 * the caller's vote read first with the title): a creation puts the review, its entries and
 * claim and counts it; an edit or a vote puts the review and its entries, puts or deletes the
 * vote and its posting, deletes the entries that move and moves its counts (a spoiler flag that
 * changes); a deletion deletes them all and counts it down. Votes cast on a deleted review go later (the relations consumer).
 */
export const REVIEW_WRITES = {
  create: grants(grant(REVIEW_ITEM_KEYS, 'PutItem'), grant(REVIEW_ENTRY_KEYS, 'PutItem', 'UpdateItem')),
  patch: grants(grant(REVIEW_ITEM_KEYS, 'BatchGetItem', 'PutItem', 'DeleteItem'), grant(REVIEW_ENTRY_KEYS, 'PutItem', 'DeleteItem', 'UpdateItem')),
  delete: grants(grant(REVIEW_ITEM_KEYS, 'BatchGetItem', 'DeleteItem'), grant(REVIEW_ENTRY_KEYS, 'DeleteItem', 'UpdateItem')),
} as const satisfies Record<string, KeyGrants>;

export interface StoredReview {
  record: ReviewRecord;
  rev: number;
  /** Helpful votes. */
  helpful: number;
}

export const storedReview = (item: Item | null | undefined): StoredReview | null =>
  item ? { record: item.rec as ReviewRecord, rev: Number(item.rev), helpful: Number(item.hc ?? 0) } : null;


export async function getReview(id: string): Promise<StoredReview | null> {
  return storedReview((await getItems([reviewKey(id)]))[0]);
}

// ---- The order of `top/reviews/`: helpful_count desc, created_at desc, id asc, as one ascending key

const MAX_COUNT = 999_999_999_999_999;
/** Digits mirrored (0 ↔ 9): fixed-width timestamps (`toISOString`) then sort newest first. */
const newestFirst = (at: string) => at.replace(/\d/g, (d) => String(9 - Number(d)));
export const topKey = (r: ReviewRecord, helpful: number) => `${String(MAX_COUNT - helpful).padStart(15, '0')}#${newestFirst(r.created_at)}#${r.id}`;

const counted = (s: StoredReview): CountedReview => ({ ...s.record, helpful_count: s.helpful });

export interface ReviewChange {
  kind: ReviewKindDef;
  /** The stored review (null: a creation). */
  before: StoredReview | null;
  /** The review after the change (null: a deletion). */
  after: StoredReview | null;
  /** A helpful vote cast (`true`) or withdrawn (`false`) by `voter` with this change. */
  vote?: { voter: string; helpful: boolean };
  /** A creation: what the title's absence means (it was deleted meanwhile). */
  titleGone?: Meaning;
}

// ---- The lists of a title and of a user: an entry per ordering and direction, and counts

/** Whose reviews a list shows: a title's (of a kind) or a user's. */
export type ReviewList = { kind: ReviewKindDef; titleId: string } | { userId: string };

const listPk = (list: ReviewList) => ('userId' in list ? userPk(list.userId) : titlePk(list.kind, list.titleId));
const entryPk = (list: ReviewList, ordering: string, descending: boolean) => `${listPk(list)}#O#${ordering}#${descending ? 'D' : 'A'}`;
/** The counts item of a list (a user's is also its UserAbout `review_count`, `n`). */
export const reviewListCountKey = (list: ReviewList): ItemKey => ({ pk: listPk(list), sk: 'N' });

/** The attribute of a list's counts item that counts its reviews of a kind (or all) and without spoilers (or all). */
const countAttribute = (withoutSpoilers: boolean, kind?: string) => `${withoutSpoilers ? 'ns' : 'n'}${kind === undefined ? '' : `_${kind}`}`;
/** The attributes of the counts a review adds to: all, and without spoilers when it is none; a user's list also per kind. */
function countedIn(list: ReviewList, r: ReviewRecord): string[] {
  const spoiler = [false, ...(r.is_spoiler ? [] : [true])];
  return spoiler.flatMap((ns) => [countAttribute(ns), ...('userId' in list ? [countAttribute(ns, r.kind)] : [])]);
}

/** A list's entry of a review: what a page shows and filters (its ref) — the ordering's value is in the key. */
const entryOf = (r: ReviewRecord) => ({ id: r.id, k: r.kind, sp: r.is_spoiler, t: r.title_id, u: r.user_id });

/** The entries of a review in a list: one per ordering and direction. */
function reviewEntries(list: ReviewList, r: CountedReview): Item[] {
  return Object.entries(REVIEW_LIST_ORDERINGS).flatMap(([name, o]) =>
    [false, true].map((descending) => ({ pk: entryPk(list, name, descending), sk: sortKey(o.value(r), o.type, r.id, descending ? 'desc' : 'asc'), ...entryOf(r) })),
  );
}

/** Every list entry of a review: its title's and its author's (the recount compares them). */
export const listEntriesOf = (kind: ReviewKindDef, s: StoredReview): Item[] => [
  ...reviewEntries({ kind, titleId: s.record.title_id }, counted(s)),
  ...reviewEntries({ userId: s.record.user_id }, counted(s)),
];

/** The puts, deletes and count changes that take a list from `before` to `after` (null: absent). */
function listChange(list: ReviewList, before: CountedReview | null, after: CountedReview | null): object[] {
  const key = (i: Item) => `${String(i.pk)}\u0000${String(i.sk)}`;
  const old = new Map((before ? reviewEntries(list, before) : []).map((i) => [key(i), i]));
  const now = after ? reviewEntries(list, after) : [];
  const ops: object[] = [];
  for (const i of now) if (JSON.stringify(old.get(key(i))) !== JSON.stringify(i)) ops.push(put(i));
  const kept = new Set(now.map(key));
  for (const [k, i] of old) if (!kept.has(k)) ops.push(del({ pk: String(i.pk), sk: String(i.sk) }));
  // Counts: +1 for each count the review is in now and was not, −1 the other way.
  const was = new Set(before ? countedIn(list, before) : []);
  const is = new Set(after ? countedIn(list, after) : []);
  const adds: [string, number][] = [...[...is].filter((a) => !was.has(a)).map((a): [string, number] => [a, 1]), ...[...was].filter((a) => !is.has(a)).map((a): [string, number] => [a, -1])];
  if (adds.length > 0) {
    ops.push({
      Update: {
        TableName: tableName(),
        Key: reviewListCountKey(list),
        UpdateExpression: `ADD ${adds.map((_, i) => `#a${i} :d${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(adds.map(([a], i) => [`#a${i}`, a])),
        ExpressionAttributeValues: Object.fromEntries(adds.map(([, d], i) => [`:d${i}`, d])),
      },
    });
  }
  return ops;
}

/**
 * The transaction of a review's creation, edit, vote or deletion: the review (at its revision
 * and helpful count as read), its entries in its title's and its author's lists and their counts,
 * its top and recent entries, and — creation and deletion — its claim (kept with the review's
 * `is_spoiler`); a creation also checks that the title exists.
 */
export function reviewPlan(c: ReviewChange): WritePlan {
  const { kind, before, after } = c;
  const record = (after ?? before!).record;
  const key = reviewKey(record.id);
  const stale: Meaning = { what: 'record', kind: 'REVIEW' };
  const asRead = before && { expression: '#rev = :rev AND #hc = :hc', names: { '#rev': 'rev', '#hc': 'hc' }, values: { ':rev': before.rev, ':hc': before.helpful } };
  const entries: [object, Meaning][] = [];
  if (after) {
    const item = { ...key, rec: after.record, rev: after.rev, hc: after.helpful };
    entries.push([asRead ? put(item, asRead) : put(item, { expression: 'attribute_not_exists(pk)' }), stale]);
  } else entries.push([del(key, asRead!), stale]);
  for (const list of [{ kind, titleId: record.title_id }, { userId: record.user_id }]) {
    for (const op of listChange(list, before && counted(before), after && counted(after))) entries.push([op, null]);
  }
  // The top entry moves when its key (the count) changes; it is rewritten when its filters do.
  const oldTop = before ? topKey(before.record, before.helpful) : null;
  const newTop = after ? topKey(after.record, after.helpful) : null;
  if (oldTop !== null && oldTop !== newTop) entries.push([del({ pk: TOP_PK, sk: oldTop }), null]);
  if (after && newTop !== null) {
    const r = after.record;
    entries.push([put({ pk: TOP_PK, sk: newTop, id: r.id, k: r.kind, sp: r.is_spoiler, t: r.title_id, u: r.user_id }), null]);
  }
  const recentBefore = before && !before.record.is_spoiler;
  const recentAfter = after && !after.record.is_spoiler;
  if (recentBefore && !recentAfter) entries.push([del(recentKey(kind, before.record)), null]);
  if (recentAfter && !recentBefore) entries.push([put({ ...recentKey(kind, after.record), id: record.id, k: record.kind, t: record.title_id, u: record.user_id }), null]);
  if (!before) {
    entries.push([put({ ...claimKey(kind, record.user_id, record.title_id), id: record.id, sp: record.is_spoiler }, { expression: 'attribute_not_exists(pk)' }), { what: 'unique', field: 'non_field_errors', message: `You have already reviewed this ${kind.kind}.` }]);
    const title = recordKeyOfKind(kind.titleKind, record.title_id);
    entries.push([{ ConditionCheck: { TableName: tableName(), Key: title, ConditionExpression: 'attribute_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } } }, c.titleGone ?? { what: 'error', error: () => notFound(`No ${kind.kind} with this id.`) }]);
  } else if (after && after.record.is_spoiler !== before.record.is_spoiler) {
    entries.push([put({ ...claimKey(kind, record.user_id, record.title_id), id: record.id, sp: after.record.is_spoiler }), null]);
  }
  if (!after) entries.push([del(claimKey(kind, record.user_id, record.title_id)), null]);
  if (c.vote) {
    const { voter, helpful } = c.vote;
    const vote = voteKey(record.id, voter);
    // A vote already there (or already withdrawn) fails: the request reads again and finds nothing to do.
    entries.push([helpful ? put({ ...vote, at: new Date().toISOString() }, { expression: 'attribute_not_exists(pk)' }) : del(vote, { expression: 'attribute_exists(pk)' }), stale]);
    entries.push([helpful ? put({ ...voterKey(voter, record.id) }) : del(voterKey(voter, record.id)), null]);
  }
  return { items: entries.map((e) => e[0]), meanings: entries.map((e) => e[1]) };
}

// ---- Lists

/** A review as a list shows it: its id, kind, title and author. */
export interface TopEntry {
  id: string;
  kind: string;
  title: string;
  user: string;
}

const refOf = (i: Record<string, unknown>): TopEntry => ({ id: String(i.id), kind: String(i.k), title: String(i.t), user: String(i.u) });

/** A filter expression on entries' `k` (kind) and `sp` (spoiler). */
function entryFilter(q: { kind?: string; withoutSpoilers: boolean }): IndexFilter | undefined {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (q.kind !== undefined) {
    names['#k'] = 'k';
    values[':k'] = q.kind;
    clauses.push('#k = :k');
  }
  if (q.withoutSpoilers) {
    names['#sp'] = 'sp';
    values[':no'] = false;
    clauses.push('#sp = :no');
  }
  return clauses.length ? { expression: clauses.join(' AND '), names, values } : undefined;
}

/** Queries a filtered page (a review list's, the top list's) may make to fill itself (a page may be short, §1.5). */
export const LIST_READS = 4;

/**
 * A page of a title's or a user's reviews in an ordering: its entries walked from the cursor —
 * one Query of `limit + 1` entries; with `kind` or `spoilers=false`, a filter expression over
 * up to LIST_READS Queries of readBudget(limit) entries each (index-query.ts).
 */
export function reviewListPage(list: ReviewList, q: { ordering: string; descending: boolean; kind?: string; withoutSpoilers: boolean; limit: number; cursor: Cursor | null }) {
  if (!Object.hasOwn(REVIEW_LIST_ORDERINGS, q.ordering)) throw new Error(`unknown review ordering ${q.ordering}`);
  return queryIndexPage({ pk: entryPk(list, q.ordering, q.descending), forward: !q.descending, limit: q.limit, cursor: q.cursor, filter: entryFilter(q), maxReads: LIST_READS }, refOf);
}

/**
 * A list's exact count for its filters (`kind`, `spoilers=false`): its counts item, less the
 * reviews that `hidden` names — the claims found at `hiddenKeys` (reviews of accounts or titles
 * deleted since, which no page shows).
 */
export function reviewListCount(counts: Item | null | undefined, hidden: readonly (Item | null)[], q: { kind?: string; withoutSpoilers: boolean }, kindOf: (claim: Item) => string): number {
  const attr = countAttribute(q.withoutSpoilers, q.kind);
  const gone = hidden.filter((c): c is Item => c !== null && (q.kind === undefined || kindOf(c) === q.kind) && (!q.withoutSpoilers || c.sp === false)).length;
  return Number(counts?.[attr] ?? 0) - gone;
}

/** The claims of a title's reviews by these users (those of accounts deleted since: their reviews are hidden). */
export const claimsOfUsers = (kind: ReviewKindDef, titleId: string, userIds: readonly string[]): ItemKey[] => userIds.map((u) => claimKey(kind, u, titleId));

/** A user's claims of these titles (those deleted since: their reviews are hidden); the kind is the claim key's. */
export const claimsOfTitles = (userId: string, titles: readonly { kind: ReviewKindDef; id: string }[]): ItemKey[] => titles.map((t) => claimKey(t.kind, userId, t.id));

/** The title kind (`ANIME`) of a claim item. */
export const claimTitleKind = (claim: Item): string => String(claim.sk).split('#')[1]!;

/**
 * A page of `top/reviews/`: the top partition walked in order, `kind` and `spoilers=false` as a
 * filter expression (a filtered page may read up to 4 Queries of entries to fill itself).
 */
export async function topReviewsPage(q: { kind?: string; withoutSpoilers: boolean; limit: number; cursor: Cursor | null }) {
  return queryIndexPage({ pk: TOP_PK, forward: true, limit: q.limit, cursor: q.cursor, filter: entryFilter(q), maxReads: LIST_READS }, refOf);
}

/**
 * The newest non-spoiler reviews of a kind (home, API.md §4.5): the recent partition read
 * backwards, at most `limit` entries (one Query).
 */
export async function recentReviews(kind: ReviewKindDef, limit: number): Promise<TopEntry[]> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':pk': `REVIEWS#RECENT#${kind.titleKind}` },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => ({ id: String(i.id), kind: String(i.k ?? kind.kind), title: String(i.t), user: String(i.u) }));
}

// ---- What the relations consumer reads for cascades

async function sortKeys(pk: string, limit: number, prefix?: string): Promise<string[]> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :p)',
      ExpressionAttributeNames: { '#pk': 'pk', ...(prefix === undefined ? {} : { '#sk': 'sk' }) },
      ExpressionAttributeValues: { ':pk': pk, ...(prefix === undefined ? {} : { ':p': prefix }) },
      ProjectionExpression: '#pk, sk',
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => String(i.sk));
}

/** Ids of a list's reviews (at most `limit`), from its `created_at` entries. */
async function listIds(list: ReviewList, limit: number): Promise<string[]> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': 'pk', '#id': 'id' },
      ExpressionAttributeValues: { ':pk': entryPk(list, 'created_at', false) },
      ProjectionExpression: '#id',
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((i) => String(i.id));
}

/** Ids of a title's reviews (at most `limit`). */
export const titleReviewIds = (kind: ReviewKindDef, titleId: string, limit: number) => listIds({ kind, titleId }, limit);
/** Ids of a user's reviews (at most `limit`). */
export const userReviewIds = (userId: string, limit: number) => listIds({ userId }, limit);
/** Ids of the reviews a user voted helpful (at most `limit`). */
export const votesCast = (voter: string, limit: number) => sortKeys(voterKey(voter, '').pk, limit);

/** The voters of a review (at most `limit`). */
export async function reviewVoters(reviewId: string, limit: number): Promise<string[]> {
  return (await sortKeys(reviewKey(reviewId).pk, limit, 'V#')).map((sk) => sk.slice(2));
}

/** Votes go with their postings (the review is gone, or the voter's account): unconditional, idempotent. */
export async function dropVotes(votes: readonly { reviewId: string; voter: string }[]): Promise<void> {
  await writeItems([], votes.flatMap((v) => [voteKey(v.reviewId, v.voter), voterKey(v.voter, v.reviewId)]));
}

/** A deleted account's review counts go (its reviews are gone). */
export async function dropReviewCount(userId: string): Promise<void> {
  await writeItems([], [reviewCountKey(userId)]);
}

/** A deleted title's review counts go (its reviews are gone). */
export async function dropTitleReviewCounts(kind: ReviewKindDef, titleId: string): Promise<void> {
  await writeItems([], [reviewListCountKey({ kind, titleId })]);
}

// ---- Counts recounted, and the store of schema version 1 (migrations.ts)

/**
 * The counts items a review counts in and the attributes it adds 1 to: its title's list (`n`,
 * `ns`) and its author's (also per kind) — what a migration sums over the reviews to put the
 * lists' counts as totals.
 */
export function countsOfReview(kind: ReviewKindDef, r: ReviewRecord): { key: ItemKey; attrs: string[] }[] {
  return [{ kind, titleId: r.title_id }, { userId: r.user_id }].map((list: ReviewList) => ({ key: reviewListCountKey(list), attrs: countedIn(list, r) }));
}

/** Whether an item is a list's counts item (a title's or a user's, `sk = N`). */
export const isReviewCountItem = (item: { pk?: unknown; sk?: unknown }): boolean => item.sk === 'N' && /^REVIEWS#(ANIME|MANGA|USER)#[^#]+$/.test(String(item.pk));

/**
 * A review's vector in its title's and in its author's partitions (sk: the review's id), what a
 * store of schema version 1 (before issue 18) kept instead of list entries. The review and the
 * lists a vector item belongs to (null: the item is no such vector); the vector names the other
 * list (`f.user`, `f.kind` and `f.title`).
 */
export interface LegacyVector {
  reviewId: string;
  kind: ReviewKindDef;
  titleId: string;
  userId: string;
}

export function legacyVectorOf(item: Item): LegacyVector | null {
  const pk = String(item.pk);
  const f = item.f as Record<string, string[]> | undefined;
  const title = /^REVIEWS#(ANIME|MANGA)#([^#]+)$/.exec(pk);
  if (title && item.sk !== 'N' && f?.user?.[0]) {
    const kind = reviewKindOf(title[1]!);
    return kind ? { reviewId: String(item.sk), kind, titleId: title[2]!, userId: f.user[0] } : null;
  }
  const user = /^REVIEWS#USER#([^#]+)#V$/.exec(pk);
  if (user && f?.kind?.[0] && f.title?.[0]) {
    const kind = reviewKindOf(f.kind[0].toUpperCase());
    return kind ? { reviewId: String(item.sk), kind, titleId: f.title[0], userId: user[1]! } : null;
  }
  return null;
}

const legacyVectorKeys = (v: LegacyVector): ItemKey[] => [
  { pk: titlePk(v.kind, v.titleId), sk: v.reviewId },
  { pk: `${userPk(v.userId)}#V`, sk: v.reviewId },
];

/** A title's schema-version-1 review vectors (its partition but the counts item: none once migrated). */
export async function legacyTitleVectors(kind: ReviewKindDef, titleId: string): Promise<Item[]> {
  return (await queryAll(titlePk(kind, titleId))).filter((i) => i.sk !== 'N');
}

/** The schema-version-1 vectors of a review that is gone. */
export async function dropLegacyVectors(v: LegacyVector): Promise<void> {
  await writeItems([], legacyVectorKeys(v));
}

/**
 * What schema version 2 keeps of a review that version 1 kept as vectors, in one transaction
 * conditioned on the review as read (`rev`, helpful count): its entries in its title's and its
 * author's lists, its claim with `sp`, its vectors deleted. Its counts are put as totals apart
 * (countsOfReview), and its top and recent entries were already those of version 2.
 */
export function upgradeReviewPlan(kind: ReviewKindDef, s: StoredReview): WritePlan {
  const r = s.record;
  const asRead = { expression: '#rev = :rev AND #hc = :hc', names: { '#rev': 'rev', '#hc': 'hc' }, values: { ':rev': s.rev, ':hc': s.helpful } };
  const check = { ConditionCheck: { TableName: tableName(), Key: reviewKey(r.id), ConditionExpression: asRead.expression, ExpressionAttributeNames: asRead.names, ExpressionAttributeValues: asRead.values } };
  const items: object[] = [
    check,
    ...listEntriesOf(kind, s).map((e) => put(e)),
    put({ ...claimKey(kind, r.user_id, r.title_id), id: r.id, sp: r.is_spoiler }),
    ...legacyVectorKeys({ reviewId: r.id, kind, titleId: r.title_id, userId: r.user_id }).map((k) => del(k)),
  ];
  return { items, meanings: items.map((_, i) => (i === 0 ? { what: 'record' as const, kind: 'REVIEW' } : null)) };
}
