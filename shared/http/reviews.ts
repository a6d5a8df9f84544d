/**
 * The review operations (API.md §4.1.3, §4.1.2 `reviews/`, §4.20 `top/reviews/`, §4.21.4
 * `users/{username}/reviews/`), for either kind (shared/domain/reviews.ts). Storage:
 * shared/db/reviews.ts.
 *
 * Every view shows the reviewed title's current name and image and the author's current
 * username (read with the page), and leaves out at once the reviews of titles and accounts
 * deleted since (tombstones) until the relations consumer has removed them.
 */
import { hasRole } from '../auth/roles.js';
import { getItems, type Item } from '../db/batch.js';
import { commitContended, recordKeyOfKind } from '../db/records.js';
import {
  claimsOfTitles,
  claimsOfUsers,
  claimTitleKind,
  recentReviews,
  reviewKey,
  reviewListCount,
  reviewListCountKey,
  reviewListPage,
  reviewPlan,
  storedReview,
  topReviewsPage,
  voteKey,
  type ReviewList,
  type StoredReview,
} from '../db/reviews.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { authFromItem, authKeyOf, userByUsernameKey } from '../db/users.js';
import { REVIEW_KINDS, reviewBodies, reviewKindOf, reviewView, VOTE_FIELD, type ReviewKindDef, type ReviewRecord } from '../domain/reviews.js';
import { newId } from '../ids.js';
import { checkBody, now, retrying, validBody } from './changes.js';
import { activeUserNamed } from './named-user.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { addError, forbidden, notFound, validationError } from '../problem.js';
import { checkIfMatch, recordEtag } from './represent.js';

const paramsOf = (req: ApiRequest) => req.params as { id: string; id_2?: string };
const noSuchTitle = (kind: ReviewKindDef) => notFound(`No ${kind.kind} with this id.`);
const noSuchReview = () => notFound(`No review with this id for this title.`);
/** Concurrent votes on one review conflict on its count: each is read again and retried, with jittered waits; past 10 tries, 503 with Retry-After (clients retry: the concurrency proof does). */
const VOTE_ATTEMPTS = 10;
const VOTE_BACKOFF_MS = 10;

type Title = { id: string; name: string; image: string | null };
const titleOf = (item: Item): Title => item.rec as Title;
const usernameOf = (item: Item | null | undefined): string | null => authFromItem(item)?.username ?? null;

/** A review as its title's page, its author's page and the top list read it: its id, kind, title and author. */
interface ReviewRef {
  id: string;
  kind: string;
  title: string;
  user: string;
}
const titleKindOf = (kind: string) => (kind === 'anime' ? 'ANIME' : 'MANGA');

/** Whether a review's title or author is deleted (pending cleanup). */
const hidden = (deleted: Deleted, r: ReviewRef) => deleted.has(titleKindOf(r.kind), r.title) || deleted.has('USER', r.user);

/**
 * The Review representations of a page, in its order: one BatchGetItem of the reviews, their
 * titles and their authors' auth states (the current username). A review, title or author gone
 * meanwhile leaves its review out.
 */
async function reviewViews(refs: readonly ReviewRef[]) {
  const titles = [...new Map(refs.map((r) => [`${r.kind}#${r.title}`, recordKeyOfKind(titleKindOf(r.kind), r.title)])).values()];
  const users = [...new Set(refs.map((r) => r.user))];
  const found = await getItems([...refs.map((r) => reviewKey(r.id)), ...titles, ...users.map(authKeyOf)]);
  const byKey = new Map(found.filter((f): f is Item => f !== null).map((f) => [`${String(f.pk)} ${String(f.sk)}`, f]));
  const at = (k: { pk: string; sk: string }) => byKey.get(`${k.pk} ${k.sk}`);
  return refs.flatMap((r) => {
    const review = storedReview(at(reviewKey(r.id)));
    const title = at(recordKeyOfKind(titleKindOf(r.kind), r.title));
    const username = usernameOf(at(authKeyOf(r.user)));
    return review && title && username !== null ? [reviewView(review.record, review.helpful, titleOf(title), username)] : [];
  });
}

/** The title of the path (404 when unknown or deleted), with the tombstones read in the same call. */
async function readTitle(kind: ReviewKindDef, req: ApiRequest, also: { pk: string; sk: string }[] = []) {
  const id = paramsOf(req).id;
  const [title, tomb, ...rest] = await getItems([recordKeyOfKind(kind.titleKind, id), tombstoneKey(req.requestId), ...also]);
  const deleted = new Deleted(tomb);
  if (!title || deleted.has(kind.titleKind, id)) throw noSuchTitle(kind);
  return { title, deleted, rest };
}

interface ReadReview {
  title: Item;
  stored: StoredReview;
  /** The author's current username. */
  username: string;
  /** Whether the caller has voted it helpful. */
  voted: boolean;
}

/** The path's review of the path's title (404 when either is unknown, deleted, or the review is of another title). */
async function readReview(kind: ReviewKindDef, req: ApiRequest): Promise<ReadReview> {
  const reviewId = paramsOf(req).id_2!;
  const caller = req.caller!;
  const { title, deleted, rest } = await readTitle(kind, req, [reviewKey(reviewId), voteKey(reviewId, caller.user_id)]);
  const stored = storedReview(rest[0]);
  if (!stored || stored.record.kind !== kind.kind || stored.record.title_id !== paramsOf(req).id || deleted.has('USER', stored.record.user_id)) throw noSuchReview();
  const own = stored.record.user_id === caller.user_id;
  const username = own ? caller.username : usernameOf((await getItems([authKeyOf(stored.record.user_id)]))[0]);
  if (username === null) throw noSuchReview();
  return { title, stored, username, voted: rest[1] !== null };
}

const viewOf = (r: ReadReview, stored: StoredReview = r.stored) => reviewView(stored.record, stored.helpful, titleOf(r.title), r.username);

/**
 * `POST …/reviews/create/`: the caller's review of the title (404 unknown title; 400 validation;
 * 409 with `existing_id` when the caller has reviewed it already).
 */
export const createReviewOperation =
  (kind: ReviewKindDef): Operation =>
  async (req) => {
    const { title } = await readTitle(kind, req);
    const input = validBody(reviewBodies.create, req.rawBody) as Pick<ReviewRecord, 'rating' | 'comment' | 'is_spoiler' | 'tags'>;
    const at = now();
    const caller = req.caller!;
    const record: ReviewRecord = { id: newId(), kind: kind.kind, title_id: paramsOf(req).id, user_id: caller.user_id, ...input, created_at: at, updated_at: at };
    const stored: StoredReview = { record, rev: 1, helpful: 0 };
    const reply = { status: 201, body: reviewView(record, 0, titleOf(title), caller.username) };
    await commitContended(reviewPlan({ kind, before: null, after: stored, titleGone: { what: 'error', error: () => noSuchTitle(kind) } }), req.idempotent(reply));
    return reply;
  };

/**
 * `PATCH …/reviews/{review_id}/`: the author edits (any subset of the write shape; `helpful` →
 * 400); anyone else votes with exactly `{"helpful": boolean}` (any other body → 403; a
 * non-boolean → 400), idempotently. Checked in the order of §1.4: 404, 403, 412, 400.
 */
export const patchReviewOperation =
  (kind: ReviewKindDef): Operation =>
  (req) =>
    retrying(async () => {
      const read = await readReview(kind, req);
      const before = read.stored;
      const body = req.rawBody;
      if (before.record.user_id !== req.caller!.user_id) {
        const keys = Object.keys(body);
        if (keys.length !== 1 || keys[0] !== VOTE_FIELD) throw forbidden('Only the author may edit a review; others may send exactly {"helpful": true|false}.');
        checkIfMatch(req.ifMatch, recordEtag(viewOf(read)));
        const helpful = body[VOTE_FIELD];
        if (typeof helpful !== 'boolean') throw validationError({ [VOTE_FIELD]: ['Must be a boolean.'] });
        if (helpful === read.voted) return { status: 200, body: viewOf(read) };
        const after: StoredReview = { ...before, helpful: before.helpful + (helpful ? 1 : -1) };
        await commitContended(reviewPlan({ kind, before, after, vote: { voter: req.caller!.user_id, helpful } }));
        return { status: 200, body: viewOf(read, after) };
      }
      checkIfMatch(req.ifMatch, recordEtag(viewOf(read)));
      const { [VOTE_FIELD]: vote, ...edit } = body;
      const { errors, value } = checkBody(reviewBodies.patch, edit);
      if (vote !== undefined) addError(errors, VOTE_FIELD, 'Authors cannot vote on their own review.');
      if (!value || vote !== undefined) throw validationError(errors);
      const input = value as Partial<ReviewRecord>;
      const changed = (Object.keys(input) as (keyof ReviewRecord)[]).some((k) => JSON.stringify(input[k]) !== JSON.stringify(before.record[k]));
      if (!changed) return { status: 200, body: viewOf(read) };
      const after: StoredReview = { ...before, record: { ...before.record, ...input, updated_at: now() }, rev: before.rev + 1 };
      await commitContended(reviewPlan({ kind, before, after }));
      return { status: 200, body: viewOf(read, after) };
    }, VOTE_ATTEMPTS, VOTE_BACKOFF_MS);

/** `DELETE …/reviews/{review_id}/`: the author, a moderator or an administrator (others 403). Its votes follow (relations consumer). */
export const deleteReviewOperation =
  (kind: ReviewKindDef): Operation =>
  (req) =>
    retrying(async () => {
      const read = await readReview(kind, req);
      const caller = req.caller!;
      if (read.stored.record.user_id !== caller.user_id && !hasRole(caller.role, 'moderator')) throw forbidden('Only the author, a moderator or an administrator may delete a review.');
      checkIfMatch(req.ifMatch, recordEtag(viewOf(read)));
      await commitContended(reviewPlan({ kind, before: read.stored, after: null }));
      return { status: 204 };
    });

type ListQuery = { kind?: string; spoilers?: boolean; ordering: { key: string; descending: boolean } };

/**
 * A page of a title's or a user's reviews (reviewListPage: one Query of the ordering's entries
 * from the cursor; with filters up to LIST_READS), the reviews of titles and accounts deleted
 * since left out (so a page may be short, §1.5); `count` exact: the list's counts item (`counts`,
 * read before) less the hidden reviews, whose claims (`hiddenClaims`: at most one per pending
 * deletion, none usually) are read with the page.
 */
async function listPage(req: ApiRequest, list: ReviewList, counts: Item | null | undefined, deleted: Deleted, hiddenClaims: readonly { pk: string; sk: string }[]) {
  const q = req.query as unknown as ListQuery;
  const filters = { kind: q.kind, withoutSpoilers: q.spoilers === false };
  const [page, hiddenFound] = await Promise.all([
    reviewListPage(list, { ...filters, ordering: q.ordering.key, descending: q.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null }),
    getItems(hiddenClaims),
  ]);
  const items = await reviewViews(page.items.map((i) => i.value).filter((r) => !hidden(deleted, r)));
  const count = reviewListCount(counts, hiddenFound, filters, (claim) => reviewKindOf(claimTitleKind(claim))!.kind);
  return pageReply(req, { items, next: page.next, previous: page.previous }, count);
}

/** `GET /api/animes/{id}/reviews/` (and mangas'): `spoilers`, `ordering`; reviews of accounts deleted since are hidden. */
export const titleReviewsOperation =
  (kind: ReviewKindDef): Operation =>
  async (req) => {
    const list = { kind, titleId: paramsOf(req).id };
    const { deleted, rest } = await readTitle(kind, req, [reviewListCountKey(list)]);
    return listPage(req, list, rest[0], deleted, claimsOfUsers(kind, list.titleId, deleted.ids('USER')));
  };

/** `GET /api/users/{username}/reviews/`: `kind`, `spoilers`, `ordering`; reviews of titles deleted since are hidden. */
export const userReviewsOperation: Operation = async (req) => {
  const user = await activeUserNamed(req, (req.params as { username: string }).username);
  const list = { userId: user.record.id };
  const [counts, tomb] = await getItems([reviewListCountKey(list), tombstoneKey(req.requestId)]);
  const deleted = new Deleted(tomb);
  const gone = REVIEW_KINDS.flatMap((kind) => deleted.ids(kind.titleKind).map((id) => ({ kind, id })));
  return listPage(req, list, counts, deleted, claimsOfTitles(list.userId, gone));
};
// With a token, the user is read together with the caller's auth state.
userReviewsOperation.prefetch = (req) => [userByUsernameKey((req.params as { username: string }).username)];

/** `GET /api/top/reviews/`: every review by `helpful_count` desc, `created_at` desc, `id`; `kind`, `spoilers`; `count` null. */
export const topReviewsOperation: Operation = async (req) => {
  const q = req.query as unknown as { kind?: string; spoilers?: boolean };
  const [page, [tomb]] = await Promise.all([
    topReviewsPage({ kind: q.kind, withoutSpoilers: q.spoilers === false, limit: pageLimit(req), cursor: req.query.cursor ?? null }),
    getItems([tombstoneKey(req.requestId)]),
  ]);
  const deleted = new Deleted(tomb);
  const refs = page.items.map((i) => ({ id: i.value.id, kind: i.value.kind, title: i.value.title, user: i.value.user })).filter((r) => !hidden(deleted, r));
  return pageReply(req, { items: await reviewViews(refs), next: page.next, previous: page.previous }, null);
};

/**
 * The `n` newest non-spoiler reviews of a kind, newest first (home's `anime_reviews`, §4.5): the
 * recent partition (twice `n` entries, so that reviews of titles or accounts deleted since may
 * be left out), then one BatchGetItem of the reviews, their titles and authors.
 */
export async function newestReviews(kind: ReviewKindDef, n: number, tombstones: Promise<Deleted>) {
  // The recent partition is read beside the tombstones (home's first round), not after them.
  const [recent, deleted] = await Promise.all([recentReviews(kind, 2 * n), tombstones]);
  const refs = recent.filter((r) => !hidden(deleted, r));
  return (await reviewViews(refs)).slice(0, n);
}
