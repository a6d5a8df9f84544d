/**
 * What the relations consumer does to the users' lists when what they name changes (API.md
 * §4.1.1, §4.21; docs/data-model.md "Playlists"):
 *  - a title deleted → its items leave every list, with the lists' counts (until then they are
 *    hidden by the title's tombstone, which is cleared only when they are gone), and its
 *    recommendation list goes (what the job computed from those lists);
 *  - a title renamed → the items' copy of its name (the `name` ordering) follows;
 *  - an account deleted → its lists go, and the counters of every title they held.
 * The title and account deletions also run the reviews' part (review-effects.ts), so that one
 * cascade, and one tombstone, covers both.
 * Each works for at most the time it is given and says whether it is done; the consumer asks to
 * come back to the rest (shared/db/cascades.ts). Every step reads what is there now, so a
 * repeated step changes nothing.
 */
import { commit, commitContended, StaleRecord } from '../db/records.js';
import { cascadeDone, continueLater } from '../db/cascades.js';
import { deleteList, getItem, itemPlan, listingUsers, userItems, type StoredItem } from '../db/playlists.js';
import { dropList } from '../db/recommendations.js';
import { blankList, PLAYLISTS, type ItemRecord, type PlaylistKind } from './playlists.js';
import { removeAccountReviews, removeTitleReviews } from './review-effects.js';
import { reviewKindOf } from './reviews.js';
import { newId } from '../ids.js';
import { mapLimit } from '../concurrency.js';

/** Items removed or changed at once, and read per page. */
const AT_ONCE = 25;
const PAGE = 100;

class TitleGone extends Error {}


/** Removes one item as its owner's DELETE would, counting it out of its title unless the title is gone. */
async function removeItem(kind: PlaylistKind, userId: string, itemId: string, titleGone: boolean): Promise<void> {
  let withoutTitle = titleGone;
  for (let attempt = 0; attempt < 8; attempt++) {
    const before = await getItem(kind, userId, itemId);
    if (!before) return;
    try {
      await commitContended(itemPlan({ kind, userId, before, after: null, blank: blankList(newId(), new Date().toISOString()), titleGone: { what: 'error', error: () => new TitleGone() }, withoutTitle }));
      return;
    } catch (err) {
      if (err instanceof TitleGone) withoutTitle = true;
      else if (!(err instanceof StaleRecord)) throw err;
    }
  }
  throw new StaleRecord(kind.store);
}

/** A deleted title's items leave every list. */
export async function removeDeletedTitle(kind: PlaylistKind, titleId: string, deadline: number): Promise<boolean> {
  // At least one page per step, whatever the time: every step makes progress.
  do {
    const listing = await listingUsers(kind, titleId, PAGE);
    if (listing.length === 0) return true;
    await mapLimit(listing, AT_ONCE, (l) => removeItem(kind, l.userId, l.itemId, true));
  } while (Date.now() < deadline);
  return (await listingUsers(kind, titleId, 1)).length === 0;
}

/** A deleted account's lists go, with the counters of their titles. */
export async function removeAccountLists(userId: string, deadline: number): Promise<boolean> {
  let first = true;
  for (const kind of PLAYLISTS) {
    for (;;) {
      const items = await userItems(kind, userId, PAGE);
      if (items.length === 0) break;
      if (!first && Date.now() >= deadline) return false;
      first = false;
      await mapLimit(items, AT_ONCE, (i) => removeItem(kind, userId, i.record.id, false));
    }
    await deleteList(kind, userId);
  }
  return true;
}

/** A renamed title: its items' copy of the name follows (from `after`, a user id: where the last run stopped). */
export async function renameInLists(kind: PlaylistKind, titleId: string, name: string, deadline: number, after?: string): Promise<{ done: boolean; at?: string }> {
  let cursor = after;
  do {
    const listing = await listingUsers(kind, titleId, PAGE, cursor);
    if (listing.length === 0) return { done: true };
    await mapLimit(listing, AT_ONCE, (l) => rename(kind, l.userId, l.itemId, name));
    cursor = listing.at(-1)!.userId;
  } while (Date.now() < deadline);
  return { done: false, at: cursor };
}

async function rename(kind: PlaylistKind, userId: string, itemId: string, name: string): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const before: StoredItem | null = await getItem(kind, userId, itemId);
    if (!before || before.record.title_name === name) return;
    try {
      // The item and its vector at the item's revision: a concurrent edit by the owner is retried from its read.
      await commit(itemPlan({ kind, userId, before, after: { ...before.record, title_name: name } as ItemRecord, blank: blankList(newId(), new Date().toISOString()), titleGone: null }));
      return;
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
    }
  }
  throw new StaleRecord(kind.store);
}

// ---- The cascades as the relations consumer runs them

/**
 * How long one stream record may work on a cascade before asking to come back (a batch of 10
 * records shares the consumer's 15 minutes). CASCADE_STEP_MS shortens it (tests: one page per step).
 */
const stepMs = () => Number(process.env.CASCADE_STEP_MS ?? 60_000);

const byTitleKind = (kind: string) => PLAYLISTS.find((p) => p.titleKind === kind);

/**
 * A title of a listed kind was deleted: its recommendation list goes, its items leave the lists,
 * its reviews go; true when done (then its tombstone may go).
 */
export async function afterTitleDeleted(kind: string, id: string): Promise<boolean> {
  const lists = byTitleKind(kind);
  const reviews = reviewKindOf(kind);
  const deadline = Date.now() + stepMs();
  if (lists) await dropList(kind, id);
  if ((!lists || (await removeDeletedTitle(lists, id, deadline))) && (!reviews || (await removeTitleReviews(reviews, id, deadline)))) return true;
  await continueLater(`DELETED-${kind}`, id);
  return false;
}

/** A title of a listed kind was renamed: the items' copy of its name follows. */
export async function afterTitleRenamed(kind: string, id: string, name: string, cursor?: string): Promise<void> {
  const lists = byTitleKind(kind);
  if (!lists) return;
  const out = await renameInLists(lists, id, name, Date.now() + stepMs(), cursor);
  if (out.done) await cascadeDone(`RENAMED-${kind}`, id);
  else await continueLater(`RENAMED-${kind}`, id, out.at);
}

/**
 * An account was deleted: its lists go, with their titles' counters; its reviews go and its
 * helpful votes are withdrawn (review-effects.ts). True when done (then its tombstone may go).
 */
export async function afterAccountDeleted(userId: string): Promise<boolean> {
  const deadline = Date.now() + stepMs();
  const done = (await removeAccountLists(userId, deadline)) && (await removeAccountReviews(userId, deadline));
  if (done) await cascadeDone('DELETED-USER', userId);
  else await continueLater('DELETED-USER', userId);
  return done;
}
