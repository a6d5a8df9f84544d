/**
 * The migration to schema version 3 (issue 19; docs/decisions.md O9, O12): the titles' in-memory
 * index replaces the planner's index items. One Scan of the table:
 *  - every record of the five title kinds (animes, mangas, characters, persons, news) gives its
 *    vector; each kind gets a snapshot of them (index-compaction.ts compactIndex with `base` and
 *    `rebuild`: the deltas after the kind's head as it was before the Scan are applied over them,
 *    so a record written meanwhile shows its latest state; a snapshot that compactions of the
 *    deltas written since the deployment made is replaced, as it lacks the older records);
 *  - every item of the planner's title index is deleted: ordering entries (`<KIND>#O#…`),
 *    postings (`#P#`), word postings (`#W#`), list sizes (`#L#`) and exact counts (`#C#`). The
 *    schedule's digest (`ANIME#D#schedule`) stayed: version 4 deletes it (store-v4.ts).
 * Idempotent: a second run publishes the same vectors again and finds nothing to delete; a run
 * stopped anywhere and run again ends as one run would. A compaction that deletes deltas the
 * rebuild needs (two compactions during the Scan) fails the step (RebuildRaced): run it again.
 * Until it has run, lists show only what was written since the deployment (the list functions
 * read the in-memory index only): run it right after deploying (README "Migrating a stage").
 */
import { writeItems, type Item, type ItemKey } from '../db/batch.js';
import type { Vector } from '../db/catalogue-index.js';
import { scanTable } from '../db/migrations.js';
import { readHead } from '../db/index-deltas.js';
import { compactIndex } from './index-compaction.js';
import { INDEXED, INDEXED_KINDS } from './index-kinds.js';
import { vectorOfItem } from './index-rebuild.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

const PLANNER_ITEM = new RegExp(`^(${INDEXED_KINDS.join('|')})#[OPWLC]#`);

async function run(ctx: StepContext): Promise<StepSummary> {
  const vectors = new Map<string, Vector[]>(INDEXED_KINDS.map((k) => [k, []]));
  const stale: ItemKey[] = [];
  // Every write the Scan may miss has a delta after these (index-compaction.ts `rebuild`).
  const heads = new Map(await Promise.all(INDEXED_KINDS.map(async (k) => [k, await readHead(k)] as const)));
  let scanned = 0;
  await scanTable({
    segments: ctx.segments,
    onPage: async (items: Item[], n: number) => {
      for (const item of items) {
        const record = vectorOfItem(item);
        if (record) vectors.get(record[0])!.push(record[1]);
        else if (PLANNER_ITEM.test(String(item.pk))) stale.push({ pk: String(item.pk), sk: String(item.sk) });
      }
      scanned += n;
      ctx.progress({ phase: 'reading the records', done: scanned, total: null });
    },
  });
  let published = 0;
  for (const kind of INDEXED_KINDS) {
    // A kind with a snapshot already (a compaction of the deltas written since the deployment) is rebuilt from its records too.
    const done = await compactIndex(INDEXED[kind]!, { base: vectors.get(kind)!, rebuild: { after: heads.get(kind)! } });
    if (done.version !== null) published++;
    ctx.progress({ phase: 'publishing the first snapshots', done: published, total: INDEXED_KINDS.length });
  }
  for (let i = 0; i < stale.length; i += 1_000) {
    await writeItems([], stale.slice(i, i + 1_000));
    ctx.progress({ phase: "deleting the planner's title index", done: Math.min(i + 1_000, stale.length), total: stale.length });
  }
  return { records: [...vectors.values()].reduce((n, v) => n + v.length, 0), snapshots: published, deleted: stale.length };
}

export const storeV3: MigrationStep = {
  from: 2,
  to: 3,
  title: "the titles' in-memory index: each kind's first snapshot from its records; the planner's title index items deleted",
  run,
};
