/**
 * Storage of reviews and their helpful votes (API.md §3.9, §4.1.3, §4.20, §4.21.4;
 * docs/data-model.md "Reviews"). For a review R of a title T (kind K: ANIME, MANGA) by user U:
 *
 *   review         pk = REVIEW#R            sk = R               { rec, rev, hc }   hc: helpful votes
 *   vote           pk = REVIEW#R            sk = V#<voter>       { at }             one per (review, voter)
 *   title vector   pk = REVIEWS#K#T         sk = R               the review's vector   (a title's list, read whole)
 *   user vector    pk = REVIEWS#USER#U#V    sk = R               the review's vector   (a user's list, read whole)
 *   claim          pk = REVIEWS#USER#U      sk = T#K#T           { id }             one review per user per title (409 existing_id)
 *   count          pk = REVIEWS#USER#U      sk = N               { n }              UserAbout `review_count`
 *   votes cast     pk = REVIEWS#VOTER#U     sk = R               { }                what an account deletion withdraws
 *   top entry      pk = REVIEWS#TOP         sk = topKey(review)  { id, k, sp, t, u } `top/reviews/`, in its order
 *   recent entry   pk = REVIEWS#RECENT#K    sk = <created_at>#R  { id, k, t, u }    non-spoiler reviews, newest last (home)
 *
 * Every change of a review — creation, the author's edit, a vote, deletion — is one transaction
 * over the review and everything derived from it, conditioned on the review's revision and
 * helpful count as read: the vectors, the top entry (whose key holds the count) and the counts
 * are exact when the request returns. Votes do not raise `rev` (they change no field of the
 * record; `hc` is conditioned instead), so a vote and an edit never pass each other unnoticed.
 */
import type { Cursor } from '../http/cursor.js';
import { notFound } from '../http/problem.js';
import type { CountedReview, ReviewKindDef, ReviewRecord } from '../domain/reviews.js';
import { reviewIndex } from '../domain/reviews.js';
import { getItems, queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { vectorOf, type Vector } from './catalogue-index.js';
import { send, tableName } from './client.js';
import { queryIndexPage, type IndexFilter } from './index-query.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { del, put, recordKeyOfKind, type Meaning, type WritePlan } from './records.js';
import { reviewCountKey, userPk } from './review-counts.js';

export { REVIEW_COUNT_KEYS, reviewCountKey, reviewCountOf } from './review-counts.js';

const REVIEW_PREFIX = 'REVIEW#';
export const reviewKey = (id: string): ItemKey => ({ pk: `${REVIEW_PREFIX}${id}`, sk: 'R' });
export const voteKey = (reviewId: string, voter: string): ItemKey => ({ pk: `${REVIEW_PREFIX}${reviewId}`, sk: `V#${voter}` });
const titlePk = (kind: ReviewKindDef, titleId: string) => `REVIEWS#${kind.titleKind}#${titleId}`;
const userVectorPk = (userId: string) => `${userPk(userId)}#V`;
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

/** A page of reviews (a title's, a user's, the top or recent ones): its entries (Query), then the reviews (BatchGetItem, with their titles and authors). */
export const REVIEW_PAGE_READS: KeyGrants = grants(grant(REVIEW_ENTRY_KEYS, 'Query'), grant(REVIEW_ITEM_KEYS, 'BatchGetItem'));

/**
 * What each review write does to the review items (one transaction, reviewPlan; the review and
 * the caller's vote read first with the title): a creation puts the review, its entries and
 * claim and counts it; an edit or a vote puts the review and its entries, puts or deletes the
 * vote and its posting, and deletes the entries that move; a deletion deletes them all and
 * counts it down. Votes cast on a deleted review go later (the relations consumer).
 */
export const REVIEW_WRITES = {
  create: grants(grant(REVIEW_ITEM_KEYS, 'PutItem'), grant(REVIEW_ENTRY_KEYS, 'PutItem', 'UpdateItem')),
  patch: grants(grant(REVIEW_ITEM_KEYS, 'BatchGetItem', 'PutItem', 'DeleteItem'), grant(REVIEW_ENTRY_KEYS, 'PutItem', 'DeleteItem')),
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

/**
 * The transaction of a review's creation, edit, vote or deletion: the review (at its revision
 * and helpful count as read), its two vectors, its top and recent entries, and — creation and
 * deletion — its claim and its author's count; a creation also checks that the title exists.
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
    const vector = vectorOf(reviewIndex, counted(after));
    entries.push([put({ pk: titlePk(kind, record.title_id), sk: record.id, ...vector }), null]);
    entries.push([put({ pk: userVectorPk(record.user_id), sk: record.id, ...vector }), null]);
  } else {
    entries.push([del(key, asRead!), stale]);
    entries.push([del({ pk: titlePk(kind, record.title_id), sk: record.id }), null]);
    entries.push([del({ pk: userVectorPk(record.user_id), sk: record.id }), null]);
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
    entries.push([put({ ...claimKey(kind, record.user_id, record.title_id), id: record.id }, { expression: 'attribute_not_exists(pk)' }), { what: 'unique', field: 'non_field_errors', message: `You have already reviewed this ${kind.kind}.` }]);
    entries.push([{ Update: { TableName: tableName(), Key: reviewCountKey(record.user_id), UpdateExpression: 'ADD #n :one', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':one': 1 } } }, null]);
    const title = recordKeyOfKind(kind.titleKind, record.title_id);
    entries.push([{ ConditionCheck: { TableName: tableName(), Key: title, ConditionExpression: 'attribute_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } } }, c.titleGone ?? { what: 'error', error: () => notFound(`No ${kind.kind} with this id.`) }]);
  }
  if (!after) {
    entries.push([del(claimKey(kind, record.user_id, record.title_id)), null]);
    entries.push([{ Update: { TableName: tableName(), Key: reviewCountKey(record.user_id), UpdateExpression: 'ADD #n :minus', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':minus': -1 } } }, null]);
  }
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

/** Every review vector of a title (one Query per MB: about 4,000 reviews). */
export const titleReviewVectors = async (kind: ReviewKindDef, titleId: string): Promise<Vector[]> => (await queryAll(titlePk(kind, titleId))) as unknown as Vector[];

/** Every review vector of a user. */
export const userReviewVectors = async (userId: string): Promise<Vector[]> => (await queryAll(userVectorPk(userId))) as unknown as Vector[];

export interface TopEntry {
  id: string;
  kind: string;
  title: string;
  user: string;
}

/**
 * A page of `top/reviews/`: the top partition walked in order, `kind` and `spoilers=false` as a
 * filter expression (a filtered page may read up to 4 Queries of entries to fill itself).
 */
export async function topReviewsPage(q: { kind?: string; withoutSpoilers: boolean; limit: number; cursor: Cursor | null }) {
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
  const filter: IndexFilter | undefined = clauses.length ? { expression: clauses.join(' AND '), names, values } : undefined;
  return queryIndexPage({ pk: TOP_PK, forward: true, limit: q.limit, cursor: q.cursor, filter, maxReads: 4 }, (i): TopEntry => ({ id: String(i.id), kind: String(i.k), title: String(i.t), user: String(i.u) }));
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

/** Ids of a title's reviews (at most `limit`). */
export const titleReviewIds = (kind: ReviewKindDef, titleId: string, limit: number) => sortKeys(titlePk(kind, titleId), limit);
/** Ids of a user's reviews (at most `limit`). */
export const userReviewIds = (userId: string, limit: number) => sortKeys(userVectorPk(userId), limit);
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

/** A deleted account's review count goes (its reviews are gone). */
export async function dropReviewCount(userId: string): Promise<void> {
  await writeItems([], [reviewCountKey(userId)]);
}
