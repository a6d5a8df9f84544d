/**
 * The migration to schema version 6 (issue 20; docs/decisions.md EX2): genres and themes gain
 * `explicit` (API.md §8.3), which version 5's records lack. Each genre and theme without it is
 * rewritten with `explicit: false` (its record and ordering entries, at its next revision, as a
 * PATCH would); none is explicit yet, so the tombstone shards' explicit sets stay empty. The
 * records are walked through their name ordering (a Query per 100: at most a few hundred records,
 * no Scan). A name is unchanged, so no consumer work follows. Idempotent: a second run rewrites
 * nothing; a record changed meanwhile is read again.
 */
import { getRecord, listRecords, replaceRecord, StaleRecord, type EntityDef } from '../db/records.js';
import type { Cursor } from '../db/sort-keys.js';
import { genreEntity, themeEntity, type GenreRecord } from '../db/taxonomy.js';
import type { MigrationStep, StepContext, StepSummary } from './migrations.js';

async function withExplicit(def: EntityDef<GenreRecord>, id: string): Promise<boolean> {
  for (;;) {
    const stored = await getRecord(def, id);
    if (!stored || typeof stored.record.explicit === 'boolean') return false;
    try {
      await replaceRecord(def, stored, { ...stored.record, explicit: false });
      return true;
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
    }
  }
}

async function run(ctx: StepContext): Promise<StepSummary> {
  const summary: StepSummary = { genres: 0, themes: 0 };
  for (const [def, counted] of [[genreEntity, 'genres'], [themeEntity, 'themes']] as const) {
    let cursor: Cursor | null = null;
    let seen = 0;
    do {
      const page: Awaited<ReturnType<typeof listRecords<GenreRecord>>> = await listRecords(def, { ordering: 'name', descending: false, limit: 100, cursor });
      for (const item of page.items) if (typeof item.value.explicit !== 'boolean' && (await withExplicit(def, item.value.id))) summary[counted]!++;
      seen += page.items.length;
      ctx.progress({ phase: `${counted}: explicit: false`, done: seen, total: null });
      cursor = page.next;
    } while (cursor);
  }
  return summary;
}

export const storeV6: MigrationStep = {
  from: 5,
  to: 6,
  title: 'genres and themes given `explicit: false` (sfw=true)',
  run,
};
