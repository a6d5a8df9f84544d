/**
 * The import of the catalogue source into the animes (API.md §5.5 "season refresh" and "airing
 * status"; docs/decisions.md I1–I8). One mapping (bangumi.ts) and one set of rules (imported.ts),
 * three ways of writing:
 *
 *  - importTitles: the API's own write path (writeTitle: read, build, one transaction at the
 *    read revision, retried). Used by the season refresh job and `npm run import-catalogue`: a
 *    new item becomes a title (its source link in the same transaction: two imports at once make
 *    one title), a linked one is refreshed by the rules of imported.ts, one a contributor
 *    deleted stays deleted. Titles are first read in batches, so unchanged ones cost no write.
 *  - bulkImport: into an empty store (`npm start`'s first start), the same items written with
 *    BatchWriteItem and without their index deltas, the anime counter the API keeps by
 *    increments computed and written once. The animes' index is then built from their records
 *    (`npm start`: index-rebuild.ts, once the data dir's index bucket is reachable).
 *    test/integration/catalogue-import.test.ts proves the items equal to importTitles' but the
 *    deltas, and the index built from them equal to what the deltas give.
 *  - advanceStatuses: the airing status job.
 *
 * Names are unique among animes: each title takes the first of its nameCandidates that no other
 * title holds (its own name, then with the year, then a counter). Titles are handled in the
 * order of `aired_from`, then key, so the earlier work keeps the plain name; titles sharing a
 * name are written one after another (importTitles writes the others in parallel).
 */
import { createHash } from 'node:crypto';
import { animeEntity, animeIndex, animeTitle, type AnimeRecord } from '../db/animes.js';
import { getItems, type BulkWriter, type Item } from '../db/batch.js';
import { indexIds } from './index-reader.js';
import { counterKeyOf, recordKeyOf } from '../db/records.js';
import { sourceLinkItem, sourceLinkPlan, sourceLinks } from '../db/sources.js';
import { titleWrite } from '../db/titles.js';
import { HttpError } from '../problem.js';
import { ID_LENGTH } from '../ids.js';
import { logger } from '../log.js';
import { mapLimit } from '../concurrency.js';
import { uniquenessKey } from '../text.js';
import { animeFields, animes } from './animes.js';
import { seasonOf } from './seasons.js';
import { nameCandidates, readSource, sourceValues, SOURCE, SOURCE_RELEASE, tokyoDate } from './bangumi.js';
import { Season } from './enums.js';
import { writeSchemas } from './fields.js';
import { creationOf, provenanceOf, refreshOf, statusChange, type SourceTitle } from './imported.js';
import { built, loadCurrent, writeTitle } from './title-writes.js';

/** The create body of animes (the route's own schema): the defaults of the fields the source lacks. */
const CREATE = writeSchemas(animeFields).full;

/** The most names a title tries before it gives up (a clash beyond is a bug, not data). */
const MAX_NAMES = 50;

export interface SourceCatalogue {
  /** In import order: `aired_from` (none last), then key. */
  titles: SourceTitle[];
  /** Items left out (`#<position>` in the data set, or their key) and why. */
  skipped: { item: string; reason: string }[];
  /** Values the API's rules refused, by field (the titles keep that field's default). */
  dropped: Record<string, number>;
}

/** The titles of a data set (bangumi.ts readSource, sourceValues), in import order. */
export function sourceCatalogue(data: unknown): SourceCatalogue {
  const { entries, skipped, sites } = readSource(data);
  const out: SourceCatalogue = { titles: [], skipped: skipped.map((s) => ({ item: `#${s.index}`, reason: s.reason })), dropped: {} };
  for (const e of entries) {
    const mapped = sourceValues(e.item, sites);
    if (!mapped) {
      out.skipped.push({ item: e.key, reason: 'no title the API accepts' });
      continue;
    }
    for (const f of mapped.dropped) out.dropped[f] = (out.dropped[f] ?? 0) + 1;
    out.titles.push({ key: e.key, bangumi: e.bangumi, mal: e.mal, values: mapped.values });
  }
  const date = (t: SourceTitle) => t.values.aired_from ?? '9999';
  out.titles.sort((a, b) => (date(a) < date(b) ? -1 : date(a) > date(b) ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // An external id is unique among animes (§8.2): the first title in import order keeps one several items share.
  const held = new Set<string>();
  for (const t of out.titles) {
    for (const [site, id] of Object.entries(t.values.external_ids)) {
      if (!held.has(`${site}:${id}`)) held.add(`${site}:${id}`);
      else {
        t.values.external_ids = Object.fromEntries(Object.entries(t.values.external_ids).filter(([s]) => s !== site));
        out.dropped.external_ids = (out.dropped.external_ids ?? 0) + 1;
      }
    }
  }
  return out;
}

/**
 * The id of an item's title: derived from its key (a hash, in the shape of shared/ids.ts), so a
 * bulk load that stopped half-way can be run again over the same items. Never reused: an item
 * makes a title once (its link stays when the title is deleted).
 */
export const importedId = (key: string): string => createHash('sha256').update(`${SOURCE}\u0000${key}`).digest('base64url').slice(0, ID_LENGTH);

/** The record, relations and private attributes of an item's new title (from the data set released on `release`). */
async function newTitle(t: SourceTitle, name: string, now: Date, release: string) {
  const at = now.toISOString();
  const { values, provenance } = creationOf(SOURCE, t, name, tokyoDate(now), release);
  const out = await built(animes, CREATE.parse(values) as Record<string, unknown>, { id: importedId(t.key), created_at: at, updated_at: at }, null);
  return { ...out, priv: { import: provenance } };
}

/** §5.2: the seasons `now` and `upcoming` on the UTC date of `now`. */
export function currentAndUpcoming(now: Date): { season: string; year: number }[] {
  const current = seasonOf(now.toISOString().slice(0, 10)) as { season: string; year: number };
  const i = Season.indexOf(current.season as never);
  return [current, i === Season.length - 1 ? { season: Season[0], year: current.year + 1 } : { season: Season[i + 1]!, year: current.year }];
}

/** The titles whose `aired_from` falls in the seasons `now` and `upcoming` (what the season refresh job imports). */
export function inSeasons(titles: readonly SourceTitle[], now: Date): SourceTitle[] {
  const wanted = new Set(currentAndUpcoming(now).map((s) => `${s.year} ${s.season}`));
  return titles.filter((t) => {
    const s = seasonOf(t.values.aired_from);
    return wanted.has(`${s.year} ${s.season}`);
  });
}

export type ImportOutcome = 'created' | 'updated' | 'unchanged' | 'deleted' | 'failed';
/** `deleted`: a contributor deleted the item's title; it is not added again. `failed`: left as it was (logged). */
export type ImportSummary = Record<ImportOutcome, number>;

export interface ImportOptions {
  /** The import's "now": creation times, statuses (default: the clock). */
  now?: Date;
  /** The day the data set was released (default: the installed package's, SOURCE_RELEASE): statuses of titles without an end. */
  release?: string;
  /** Titles written at once (default 8). */
  concurrency?: number;
  /** Called after each title with the number done. */
  onProgress?: (done: number) => void;
}

const isNameConflict = (err: unknown) => err instanceof HttpError && err.type === 'conflict' && Object.hasOwn(err.extras.errors ?? {}, 'name');
/** The external id sites a clash names (another title, a contributor's, holds them: §8.2). */
const externalIdConflicts = (err: unknown): string[] =>
  err instanceof HttpError && err.type === 'conflict' ? Object.keys(err.extras.errors ?? {}).filter((k) => k.startsWith('external_ids.')).map((k) => k.slice('external_ids.'.length)) : [];

/** Creates or refreshes one item's title through writeTitle; a name another title holds makes it take the next candidate. */
async function importTitle(title: SourceTitle, now: Date, release: string): Promise<Exclude<ImportOutcome, 'failed'>> {
  const today = tokyoDate(now);
  let t = title;
  let names = nameCandidates(t.values.name, t.values.aired_from);
  for (let tries = 1; ; tries++) {
    const name = names.next().value!;
    let outcome: Exclude<ImportOutcome, 'failed'> = 'unchanged';
    try {
      await writeTitle(animes, async () => {
        const id = (await sourceLinks(SOURCE, [t.key])).get(t.key);
        if (id === undefined) {
          outcome = 'created';
          const created = await newTitle(t, name, now, release);
          return { before: null, after: created.record, relations: created.relations, priv: created.priv, extra: sourceLinkPlan(SOURCE, t.key, created.record.id) };
        }
        const before = await loadCurrent(animes, id);
        const prov = provenanceOf(before?.priv);
        const change = before && prov ? refreshOf(before.record, prov, t, today, name) : null;
        outcome = !before ? 'deleted' : change ? 'updated' : 'unchanged';
        if (!before || !change) return 'done';
        const r = before.record;
        const out = await built(animes, { ...animes.writable(r, before.relations), ...change.changes }, { id: r.id, created_at: r.created_at, updated_at: now.toISOString() }, before);
        return { before, after: out.record, relations: out.relations, priv: { ...before.priv, import: change.provenance } };
      });
      return outcome;
    } catch (err) {
      // An external id a contributor's title holds stays theirs: this title goes without it.
      const sites = externalIdConflicts(err);
      if (sites.length > 0 && tries < MAX_NAMES) {
        t = { ...t, values: { ...t.values, external_ids: Object.fromEntries(Object.entries(t.values.external_ids).filter(([site]) => !sites.includes(site))) } };
        names = nameCandidates(t.values.name, t.values.aired_from);
        continue;
      }
      if (!isNameConflict(err) || tries >= MAX_NAMES) throw err;
    }
  }
}

/** Whether a linked title is certainly left as it is (its stored state, read in a batch beforehand). */
function unchanged(item: Item | null, t: SourceTitle, today: string): boolean {
  const prov = provenanceOf(item?.priv as Record<string, unknown> | undefined);
  return item !== null && prov !== null && refreshOf(item.rec as AnimeRecord, prov, t, today, prov.name) === null;
}

/** Imports `titles` through the API's write path (see the module comment). */
export async function importTitles(titles: readonly SourceTitle[], opts: ImportOptions = {}): Promise<ImportSummary> {
  const now = opts.now ?? new Date();
  const release = opts.release ?? SOURCE_RELEASE.date;
  const today = tokyoDate(now);
  const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0 };
  const links = await sourceLinks(SOURCE, titles.map((t) => t.key));
  const linked = [...new Set(links.values())];
  const stored = new Map(linked.map((id, i) => [id, i]));
  const items = await getItems(linked.map((id) => recordKeyOf(animeEntity, id)));
  const groups = new Map<string, SourceTitle[]>();
  for (const t of titles) groups.set(uniquenessKey(t.values.name), [...(groups.get(uniquenessKey(t.values.name)) ?? []), t]);
  let done = 0;
  // Creations take the kind's next random-pick slot (slots.ts): concurrent ones would only take
  // turns on its counter, so the import makes its own one at a time; updates run in parallel.
  let creating: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(f: () => Promise<T>): Promise<T> => {
    const p = creating.then(f);
    creating = p.catch(() => undefined);
    return p;
  };
  await mapLimit([...groups.values()], opts.concurrency ?? 8, async (group) => {
    for (const t of group) {
      const id = links.get(t.key);
      let outcome: ImportOutcome;
      try {
        if (id !== undefined && unchanged(items[stored.get(id)!]!, t, today)) outcome = 'unchanged';
        else outcome = id === undefined ? await oneAtATime(() => importTitle(t, now, release)) : await importTitle(t, now, release);
      } catch (err) {
        outcome = 'failed';
        logger.error('catalogue title not imported; it is left as it was', { source: SOURCE, key: t.key, error_name: (err as Error)?.name, error: (err as Error)?.message });
      }
      summary[outcome]++;
      opts.onProgress?.(++done);
    }
  });
  return summary;
}

/** Where a bulk load's items go: a BulkWriter, or another writer of unconditional puts (infra/local/catalogue-file.ts). */
export type ItemSink = Pick<BulkWriter, 'written' | 'put' | 'drain'>;

export interface BulkOptions {
  now?: Date;
  /** As ImportOptions.release. */
  release?: string;
  /** Where the items go (its client names the engine). */
  writer: ItemSink;
  onProgress?: (done: number) => void;
}

/**
 * Writes `titles` into a store without animes (see the module comment): the items importTitles
 * would leave but their index deltas, and the anime counter (the store's stream must not see
 * these items: `npm start` writes them before the table has one). Returns the number of items.
 */
export async function bulkImport(titles: readonly SourceTitle[], opts: BulkOptions): Promise<number> {
  const now = opts.now ?? new Date();
  const { writer } = opts;
  const claimed = new Set<string>();
  const counter = counterKeyOf(animeEntity);
  const start = writer.written;
  let count = 0;
  for (const [i, t] of titles.entries()) {
    let name = '';
    for (const candidate of nameCandidates(t.values.name, t.values.aired_from)) {
      if (claimed.has(uniquenessKey(candidate))) continue;
      name = candidate;
      break;
    }
    claimed.add(uniquenessKey(name));
    const created = await newTitle(t, name, now, opts.release ?? SOURCE_RELEASE.date);
    // The i-th title takes random-pick slot i + 1, as the i-th creation would (slots.ts).
    const plan = titleWrite(animeTitle, null, { after: created.record, relations: created.relations, links: animes.links!(null, created.record), priv: created.priv, slots: { n: i } });
    for (const op of [...plan.main.items, ...plan.rest.items] as Record<string, { Item?: Item; Key?: Item }>[]) {
      if (op.Put) await writer.put(op.Put.Item!);
      else if (op.Update?.Key?.pk === counter.pk) count++;
      else throw new Error(`${t.key}: a creation's plan holds ${JSON.stringify(Object.keys(op))}`);
    }
    await writer.put(sourceLinkItem(SOURCE, t.key, created.record.id));
    opts.onProgress?.(i + 1);
  }
  await writer.put({ ...counter, n: count });
  await writer.drain();
  return writer.written - start;
}

export type StatusSummary = Partial<Record<'moved' | 'failed', number>>;

/**
 * The airing status job: moves the imported titles whose status the dates now give differently
 * (imported.ts statusChange: with the release of the data set that created each, for titles
 * without an end). It reads the `upcoming` and `airing` posting lists of the anime index (their
 * vectors hold `aired_from`), then, in batches, the records that may move: the upcoming ones whose
 * `aired_from` has come and every airing one (`aired_to`, `episodes` and the provenance are in the
 * record).
 */
export async function advanceStatuses(opts: { now?: Date; concurrency?: number } = {}): Promise<StatusSummary> {
  const now = opts.now ?? new Date();
  const today = tokyoDate(now);
  const [upcoming, airing] = await Promise.all([indexIds(animeIndex, { status: 'upcoming' }), indexIds(animeIndex, { status: 'airing' })]);
  const items = await getItems([...upcoming, ...airing].map((id) => recordKeyOf(animeEntity, id)));
  const moving = items.filter((i): i is Item => {
    const prov = provenanceOf(i?.priv as Record<string, unknown> | undefined);
    return prov !== null && statusChange(i!.rec as AnimeRecord, prov, today) !== null;
  });
  const summary: StatusSummary = {};
  await mapLimit(moving, opts.concurrency ?? 8, async (item) => {
    const id = (item.rec as AnimeRecord).id;
    let moved = false;
    try {
      await writeTitle(animes, async () => {
        const before = await loadCurrent(animes, id);
        const prov = provenanceOf(before?.priv);
        const status = before && prov ? statusChange(before.record, prov, today) : null;
        moved = status !== null;
        if (!before || !prov || status === null) return 'done';
        const r = before.record;
        const out = await built(animes, { ...animes.writable(r, before.relations), status }, { id, created_at: r.created_at, updated_at: now.toISOString() }, before);
        return { before, after: out.record, relations: out.relations, priv: { ...before.priv, import: { ...prov, values: { ...prov.values, status } } } };
      });
      if (moved) summary.moved = (summary.moved ?? 0) + 1;
    } catch (err) {
      summary.failed = (summary.failed ?? 0) + 1;
      logger.error('airing status not moved; the next run tries again', { anime_id: id, error_name: (err as Error)?.name, error: (err as Error)?.message });
    }
  });
  return summary;
}
