/**
 * What the relations consumer does to reviews and helpful votes when what they hang on goes
 * (API.md §4.1.1, §4.1.3, §4.21.2; docs/data-model.md "Reviews"):
 *  - a review deleted → its votes go (with the voters' postings);
 *  - a title deleted → its reviews go as their DELETE would (lists' entries and counts, top), then
 *    the title's counts;
 *    until then its tombstone hides them;
 *  - an account deleted → its reviews go (hidden meanwhile by its tombstone), and the helpful
 *    votes it cast are withdrawn, so the counts they fed adjust.
 * Each works for at most the time it is given and says whether it is done (at least one page
 * per step); every step reads what is there now, so a repeated step changes nothing.
 */
import { cascadeDone, continueLater } from '../db/cascades.js';
import { getItems } from '../db/batch.js';
import { mapLimit } from '../concurrency.js';
import { commitContended, StaleRecord } from '../db/records.js';
import { dropReviewCount, dropTitleReviewCounts, dropVotes, reviewKey, reviewPlan, reviewVoters, storedReview, titleReviewIds, userReviewIds, voteKey, votesCast } from '../db/reviews.js';
import { REVIEW_KINDS, type ReviewKindDef } from './reviews.js';

const AT_ONCE = 25;
const PAGE = 100;


const kindOf = (kind: string): ReviewKindDef => REVIEW_KINDS.find((k) => k.kind === kind)!;

/** Reads a review (and a voter's vote on it) and commits what `change` makes of it; read again when it changed meanwhile. */
async function changeReview(id: string, voter: string | null, change: (found: { stored: ReturnType<typeof storedReview>; voted: boolean }) => Promise<void>): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const [item, vote] = await getItems(voter === null ? [reviewKey(id)] : [reviewKey(id), voteKey(id, voter)]);
    try {
      await change({ stored: storedReview(item), voted: vote !== null && vote !== undefined });
      return;
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
    }
  }
  throw new StaleRecord('REVIEW');
}

/** Deletes one review as its DELETE would (its votes follow through its own stream record). */
const removeReview = (id: string) =>
  changeReview(id, null, async ({ stored }) => {
    if (stored) await commitContended(reviewPlan({ kind: kindOf(stored.record.kind), before: stored, after: null }));
  });

/** Runs `step` over pages of `ids` until none are left (true) or the deadline passes (false). */
async function inPages(ids: (limit: number) => Promise<string[]>, step: (id: string) => Promise<void>, deadline: number): Promise<boolean> {
  do {
    const page = await ids(PAGE);
    if (page.length === 0) return true;
    await mapLimit(page, AT_ONCE, step);
  } while (Date.now() < deadline);
  return (await ids(1)).length === 0;
}

/** A deleted title's reviews go, then its review counts. */
export async function removeTitleReviews(kind: ReviewKindDef, titleId: string, deadline: number): Promise<boolean> {
  if (!(await inPages((n) => titleReviewIds(kind, titleId, n), removeReview, deadline))) return false;
  await dropTitleReviewCounts(kind, titleId);
  return true;
}

/** A deleted account's reviews go, its helpful votes are withdrawn, then its review count goes. */
export async function removeAccountReviews(userId: string, deadline: number): Promise<boolean> {
  if (!(await inPages((n) => userReviewIds(userId, n), removeReview, deadline))) return false;
  const withdraw = (reviewId: string) =>
    changeReview(reviewId, userId, async ({ stored, voted }) => {
      if (stored && voted) await commitContended(reviewPlan({ kind: kindOf(stored.record.kind), before: stored, after: { ...stored, helpful: stored.helpful - 1 }, vote: { voter: userId, helpful: false } }));
      // The review is gone (its votes go with it) or the vote is: only the posting is left.
      else await dropVotes([{ reviewId, voter: userId }]);
    });
  if (!(await inPages((n) => votesCast(userId, n), withdraw, deadline))) return false;
  await dropReviewCount(userId);
  return true;
}

/** A deleted review's votes go (BatchWriteItem, 100 per page); what is left when the step's time is up continues later. */
export async function afterReviewDeleted(reviewId: string): Promise<void> {
  const deadline = Date.now() + Number(process.env.CASCADE_STEP_MS ?? 60_000);
  let done = false;
  do {
    const voters = await reviewVoters(reviewId, PAGE);
    if (voters.length === 0) done = true;
    else await dropVotes(voters.map((voter) => ({ reviewId, voter })));
  } while (!done && Date.now() < deadline);
  if (done) await cascadeDone('DELETED-REVIEW', reviewId);
  else await continueLater('DELETED-REVIEW', reviewId);
}
