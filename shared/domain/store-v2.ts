/**
 * The migration to schema version 2 (issue 18; docs/decisions.md Y1–Y6): the items issue 18's
 * parts derive from the records that a store written before lacks, or holds in the previous
 * form, rebuilt from the records — each through the code that writes them now:
 *
 *  1. titles (every anime and manga, walked in id order from their random-pick slots, from a
 *     checkpoint, a page at a time, several titles at once):
 *     - its reverse views, reconciled as the relations consumer does (catalogue-effects.ts
 *       reconcileSource): the fan-out of version 1 is read as a list of item keys and replaced
 *       by the title's state, its items (appearances and staff credits keyed by name, voice
 *       groups; until version 5 also a voice entry's six ordering items and the voice counts:
 *       O17) put and the old ones deleted (N1–N4);
 *     - its reviews (version 1 kept a vector per review in the title's and the author's
 *       partitions): each review's list entries, its claim's `sp`, its vectors gone (Q6);
 *  2. a sweep of the table (one Scan), repeated until a pass changes nothing:
 *     - the review lists' exact counts, counted from the records and put as totals where the
 *       item differs, on the condition that it still holds what the pass read (a count a write
 *       moved meanwhile is counted again by the next pass);
 *     - reviews the walk did not reach (version-1 vectors of titles gone since);
 *     - recommendation lists of titles deleted before decision V6 (their cascades left them);
 *     - ordering entries of deleted taxonomy records (genres, themes, demographics, magazines,
 *       producers) that version 1's catalogue consumer put back after the deletion (Z4).
 *
 * Version 2 also brought the planner's title index items up to date (derived ordering entries,
 * the manga vectors' `author_role`, the index's exact counts): the step after it (store-v3.ts)
 * deletes every such item and publishes the in-memory index instead, so this step no longer
 * writes them (issue 19, decision O9).
 *
 * Every part is idempotent: a title whose items are current writes nothing (its reconcile finds
 * its state listed alone, it has no vectors left), a count that holds its total is not written;
 * so a second run writes nothing, and a run stopped anywhere and run again ends as one run would.
 * Writes made meanwhile by the new code are safe: reviews are upgraded on the condition that the
 * review is as read, reconciles and counts as described above.
 */
import { mapLimit } from '../concurrency.js';
import { getItems, writeItems } from '../db/batch.js';
import { putCountIfUnchanged, scanTable, type Checkpoint } from '../db/migrations.js';
import { dropList, listTitleOf } from '../db/recommendations.js';
import { slottedIds } from '../db/slots.js';
import { commit, counterKeyOfKind, orderingEntryIdOf, recordIdOf, recordKeyOfKind, StaleRecord, type BaseRecord, type EntityDef } from '../db/records.js';
import { demographicEntity, genreEntity, magazineEntity, producerEntity, themeEntity } from '../db/taxonomy.js';
import { countsOfReview, dropLegacyVectors, getReview, isReviewCountItem, legacyTitleVectors, legacyVectorOf, upgradeReviewPlan, type LegacyVector } from '../db/reviews.js';
import type { Item, ItemKey } from '../db/batch.js';
import { reconcileSource } from './catalogue-effects.js';
import { reviewKindOf, type ReviewRecord } from './reviews.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

/** The titles walked, in order. */
const TITLES: readonly { kind: 'ANIME' | 'MANGA' }[] = [{ kind: 'ANIME' }, { kind: 'MANGA' }];

/** The kinds whose recommendation lists the sweep keeps only while their title exists. */
const LISTED = ['ANIME', 'MANGA', 'NEWS'];

/** The taxonomy kinds whose deleted records' ordering entries the old catalogue consumer could leave (Z4). */
const TAXONOMY = [genreEntity, themeEntity, demographicEntity, magazineEntity, producerEntity].map((d) => d as unknown as EntityDef<BaseRecord>);

/** Titles per page of the walk (a checkpoint after each). */
const PAGE = 50;
/** Sweeps at most: a store under so many writes that no pass is quiet is left for a later run. */
const MAX_SWEEPS = 6;
/** Tries of an item whose record kept changing under it. */
const TRIES = 4;

/** What the step did, for its report. */
interface Done {
  titles: number;
  reviews: number;
  countsPut: number;
  listsRemoved: number;
  entriesRemoved: number;
  sweeps: number;
  itemsScanned: number;
}

export const storeV2: MigrationStep = {
  from: 1,
  to: 2,
  title: 'issue 18: review entries and counts, reverse views, recommendation lists and taxonomy entries left behind',
  async run(ctx: StepContext): Promise<StepSummary> {
    const done: Done = { titles: 0, reviews: 0, countsPut: 0, listsRemoved: 0, entriesRemoved: 0, sweeps: 0, itemsScanned: 0 };
    let at: Checkpoint = ctx.checkpoint ?? { phase: 'titles', kind: TITLES[0]!.kind, after: null, done: 0 };
    if (at.phase === 'titles') {
      const total = await titleCount();
      let n = at.done ?? 0;
      ctx.progress({ phase: 'titles', done: n, total });
      for (const t of TITLES.slice(TITLES.findIndex((x) => x.kind === at.kind))) {
        const after = at.kind === t.kind ? (at.after ?? null) : null;
        // In id order: a title created since is written by the new code; one deleted is skipped.
        const ids = (await slottedIds(t.kind)).sort().filter((id) => after === null || id > after);
        const page = ctx.pageSize ?? PAGE;
        for (let i = 0; i < ids.length; i += page) {
          await mapLimit(ids.slice(i, i + page), ctx.concurrency, async (id) => {
            ctx.beforeTitle?.(n);
            await upgradeTitle(t, id, done);
            n++;
            ctx.progress({ phase: 'titles', done: n, total });
          });
          at = { phase: 'titles', kind: t.kind, after: ids[Math.min(i + page, ids.length) - 1]!, done: n };
          await ctx.save(at);
        }
        const next = TITLES[TITLES.indexOf(t) + 1];
        if (next) {
          at = { phase: 'titles', kind: next.kind, after: null, done: n };
          await ctx.save(at);
        }
      }
      at = { phase: 'sweep' };
      await ctx.save(at);
    }
    for (;;) {
      done.sweeps++;
      const changed = await sweep(ctx, done);
      if (changed === 0) break;
      if (done.sweeps >= MAX_SWEEPS) throw new Error(`the counts kept changing under writes in ${MAX_SWEEPS} passes; run the migration again when fewer writes are made (what it did is kept)`);
      await ctx.save(at);
    }
    return { ...done };
  },
};

/** Animes and mangas in the store (its counters): the walk's total, for its progress. */
async function titleCount(): Promise<number> {
  const counters = await getItems(TITLES.map((t) => counterKeyOfKind(t.kind)));
  return counters.reduce((n, c) => n + Number(c?.n ?? 0), 0);
}

/** Step 1 for one title: its reverse views, its reviews. */
async function upgradeTitle(t: (typeof TITLES)[number], id: string, done: Done): Promise<void> {
  const [item] = await getItems([recordKeyOfKind(t.kind, id)]);
  if (!item) return;
  await reconcileSource(t.kind, id);
  const kind = reviewKindOf(t.kind)!;
  for (const v of await legacyTitleVectors(kind, id)) {
    const ref = legacyVectorOf(v);
    if (ref && (await upgradeReview(ref))) done.reviews++;
  }
  done.titles++;
}

/**
 * A review that version 1 kept as vectors: its entries and claim written, its vectors deleted,
 * on the condition that it is as read (else read again). A review gone since: its vectors go.
 * True when the review was upgraded.
 */
async function upgradeReview(ref: LegacyVector): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const stored = await getReview(ref.reviewId);
    if (!stored) {
      await dropLegacyVectors(ref);
      return false;
    }
    try {
      await commit(upgradeReviewPlan(reviewKindOf(stored.record.kind.toUpperCase())!, stored));
      return true;
    } catch (err) {
      if (!(err instanceof StaleRecord) || attempt >= TRIES) throw err;
    }
  }
}

/** A count as the sweep finds it: the item read (null: none) and the totals the records give. */
interface Count {
  key: ItemKey;
  read: Item | null;
  want: Record<string, number>;
}

/**
 * Step 2, one pass: reads the whole table; puts every count whose item differs from the records'
 * total (if the item is still as read), upgrades the reviews whose vectors are left, removes the
 * recommendation lists of titles that are gone and the ordering entries of taxonomy records that
 * are gone. Returns how many items it changed.
 */
async function sweep(ctx: StepContext, done: Done): Promise<number> {
  const counts = new Map<string, Count>();
  const count = (key: ItemKey): Count => {
    const k = `${key.pk}\u0000${key.sk}`;
    return counts.get(k) ?? counts.set(k, { key, read: null, want: {} }).get(k)!;
  };
  /** Records seen (`KIND#id`: titles, news, taxonomy), and the ordering entries of taxonomy records. */
  const records = new Set<string>();
  const entries: { kind: string; id: string; key: ItemKey }[] = [];
  const lists: { titleKind: string; titleId: string }[] = [];
  const vectors = new Map<string, LegacyVector>();
  let scanned = 0;
  let renewed = Date.now();
  await scanTable({
    segments: ctx.segments,
    onPage: async (items, n) => {
      scanned += n;
      for (const item of items) {
        for (const kind of LISTED) {
          const id = recordIdOf(kind, item);
          if (id !== null) records.add(`${kind}#${id}`);
        }
        if (recordIdOf('REVIEW', item) !== null) {
          const r = item.rec as ReviewRecord;
          for (const c of countsOfReview(reviewKindOf(r.kind.toUpperCase())!, r)) for (const attr of c.attrs) add(count(c.key).want, attr);
        } else if (isReviewCountItem(item)) count({ pk: String(item.pk), sk: 'N' }).read = item;
        for (const def of TAXONOMY) {
          const id = recordIdOf(def.kind, item);
          if (id !== null) records.add(`${def.kind}#${id}`);
          const shown = orderingEntryIdOf(def, item);
          if (shown !== null) entries.push({ kind: def.kind, id: shown, key: { pk: String(item.pk), sk: String(item.sk) } });
        }
        const vector = legacyVectorOf(item);
        if (vector) vectors.set(vector.reviewId, vector);
        const list = listTitleOf(item);
        if (list) lists.push(list);
      }
      ctx.progress({ phase: 'sweep', done: scanned, total: null, pass: done.sweeps });
      // A long pass keeps its lease.
      if (Date.now() - renewed > 60_000) {
        renewed = Date.now();
        await ctx.save({ phase: 'sweep' });
      }
    },
  });
  done.itemsScanned = scanned;
  let changed = 0;
  await mapLimit([...vectors.values()], ctx.concurrency, async (v) => {
    if (await upgradeReview(v)) done.reviews++;
    changed++;
  });
  // Lists of titles not seen: gone, unless created since the scan read their part of the table.
  const unseen = lists.filter((l) => !records.has(`${l.titleKind}#${l.titleId}`));
  const still = await getItems(unseen.map((l) => recordKeyOfKind(l.titleKind, l.titleId)));
  await mapLimit(
    unseen.filter((_, i) => still[i] === null),
    ctx.concurrency,
    async (l) => {
      await dropList(l.titleKind, l.titleId);
      done.listsRemoved++;
      changed++;
    },
  );
  // Ordering entries of taxonomy records that are gone (version 1's catalogue consumer put them
  // back after the deletion: decision Z4), unless the record was created since the scan read its
  // part of the table. A record's id is never given again, so they are deleted unconditionally.
  const stray = entries.filter((e) => !records.has(`${e.kind}#${e.id}`));
  const there = await getItems(stray.map((e) => recordKeyOfKind(e.kind, e.id)));
  const orphans = stray.filter((_, i) => there[i] === null);
  await writeItems([], orphans.map((e) => e.key));
  done.entriesRemoved += orphans.length;
  changed += orphans.length;
  await mapLimit([...counts.values()], ctx.concurrency, async (c) => {
    const out = await putCountIfUnchanged(c.key, c.read, c.want);
    if (out === 'put') done.countsPut++;
    if (out !== 'unchanged') changed++;
  });
  return changed;
}

const add = (o: Record<string, number>, attr: string) => {
  o[attr] = (o[attr] ?? 0) + 1;
};
