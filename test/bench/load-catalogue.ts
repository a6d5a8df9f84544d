/**
 * The bulk loader of the catalogue benchmark: writes a generated catalogue (catalogue-data.ts)
 * into the table with the items the API's create operations would leave once the stream consumer
 * has settled, at thousands of items per second instead of ~100 creates per second.
 *
 * Items come from the same code as the API:
 *  - bodies are validated by the create route's own body schema (defaults applied);
 *  - taxonomy records by the resource's `toRecord` and `privateDefaults`, stored with records.ts
 *    `createPlan`;
 *  - titles by the resource's `build` (references looked up in the records loaded so far, in
 *    memory, through the same `referencesFound` as checkReferences) and titles.ts `titleWrite`.
 * What differs is how they are written: TransactWriteItems of up to 100 unconditional puts (several calls in flight) and
 * no conditions, so nothing is read. What the API keeps by increments or by the stream consumer
 * is computed in aggregate and written once, at the end:
 *  - the counters `K#N` of every entity;
 *  - the counts a title adds to the records it links (a taxonomy's `anime_count`, a producer's
 *    private credits; each increment also bumps the linked record's `rev`, as titles.ts does);
 *    the taxonomy records are therefore written last, with their ordering entries at their
 *    final counts (what the consumer's reorderPlan leaves);
 *  - each title kind's in-memory index: its first snapshot, published from the records' vectors
 *    (shared/domain/index-compaction.ts), where the API's creations leave one delta each.
 * test/integration/bulk-load.test.ts proves the items identical to the API's and the indexes'
 * pages equal.
 *
 * Adding a kind: a line in TAXONOMY or TITLES with its resource and create route.
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod/mini';
import { routes as animeRoutes } from '../../functions/animes/routes.js';
import { routes as characterRoutes } from '../../functions/characters/routes.js';
import { routes as demographicRoutes } from '../../functions/demographics/routes.js';
import { routes as genreRoutes } from '../../functions/genres/routes.js';
import { routes as magazineRoutes } from '../../functions/magazines/routes.js';
import { routes as mangaRoutes } from '../../functions/mangas/routes.js';
import { routes as newsRoutes } from '../../functions/news/routes.js';
import { routes as personRoutes } from '../../functions/persons/routes.js';
import { routes as producerRoutes } from '../../functions/producers/routes.js';
import { routes as themeRoutes } from '../../functions/themes/routes.js';
import type { Caller } from '../../shared/auth/roles.js';
import { BulkWriter, type Item } from '../../shared/db/batch.js';
import { vectorOf, type Vector } from '../../shared/db/catalogue-index.js';
import { compactIndex } from '../../shared/domain/index-compaction.js';
import { readHead } from '../../shared/db/index-deltas.js';
import { counterKeyOf, createPlan, recordKeyOfKind, type BaseRecord, type EntityDef } from '../../shared/db/records.js';
import { titleWrite } from '../../shared/db/titles.js';
import { animes } from '../../shared/domain/animes.js';
import { mangas } from '../../shared/domain/mangas.js';
import { news } from '../../shared/domain/news.js';
import { appearanceTokens, namedBy, reverseStateOf } from '../../shared/domain/reverse-views.js';
import { fanOutItems, reverseItems, type ReverseItem } from '../../shared/db/reverse.js';
import { characters } from '../../shared/domain/characters.js';
import { persons } from '../../shared/domain/persons.js';
import { referencesFound, type ReferenceCheck } from '../../shared/domain/references.js';
import type { Resource } from '../../shared/domain/resource.js';
import type { TitleResource } from '../../shared/domain/title-resource.js';
import { demographics, genres, magazines, producers, themes } from '../../shared/domain/taxonomy.js';
import { ID_LENGTH } from '../../shared/ids.js';
import { resolveRefs, type Catalogue, type Kind } from './catalogue-data.js';

/** Taxonomy kinds: a records.ts entity, written with createPlan. */
const TAXONOMY: Partial<Record<Kind, { resource: Resource<BaseRecord>; body: z.ZodMiniType }>> = {
  genre: { resource: genres as never, body: genreRoutes.create.body! },
  theme: { resource: themes as never, body: themeRoutes.create.body! },
  demographic: { resource: demographics as never, body: demographicRoutes.create.body! },
  producer: { resource: producers as never, body: producerRoutes.create.body! },
  magazine: { resource: magazines as never, body: magazineRoutes.create.body! },
};

/** Title kinds: a titles.ts entity, written with titleWrite. */
const TITLES: Partial<Record<Kind, { resource: TitleResource<BaseRecord>; body: z.ZodMiniType }>> = {
  person: { resource: persons as never, body: personRoutes.create.body! },
  character: { resource: characters as never, body: characterRoutes.create.body! },
  anime: { resource: animes as never, body: animeRoutes.create.body! },
  manga: { resource: mangas as never, body: mangaRoutes.create.body! },
  news: { resource: news as never, body: newsRoutes.create.body! },
};

/** Titles whose casts and staff have reverse items (shared/domain/reverse-views.ts), and the record kind of each. */
const SOURCES: Partial<Record<Kind, 'ANIME' | 'MANGA'>> = { anime: 'ANIME', manga: 'MANGA' };

/** The kinds this branch can load, in creation order (catalogue-data.ts CREATION_ORDER). */
export const LOADABLE_KINDS: readonly Kind[] = (['genre', 'theme', 'demographic', 'producer', 'magazine', 'person', 'character', 'anime', 'manga', 'news'] as const).filter(
  (k) => k in TAXONOMY || k in TITLES,
);

export interface Stamp {
  id: string;
  created_at: string;
  updated_at: string;
}

/**
 * Deterministic ids and timestamps (so a kept store can be queried again without a record of
 * its ids): the id is a hash of (seed, kind, index) in the shape of shared/ids.ts; records are
 * created 10 ms apart in creation order, ending a day before the catalogue's `today`.
 */
export function benchStamps(cat: Catalogue, kinds: readonly Kind[] = LOADABLE_KINDS): (kind: Kind, index: number) => Stamp {
  const offsets = new Map<Kind, number>();
  let total = 0;
  for (const k of kinds) {
    offsets.set(k, total);
    total += cat.sizes[k];
  }
  const end = Date.parse(`${cat.today}T00:00:00.000Z`) - 86_400_000;
  return (kind, index) => {
    const id = createHash('sha256').update(`${cat.seed}/${kind}/${index}`).digest('base64url').slice(0, ID_LENGTH);
    const at = new Date(end - (total - (offsets.get(kind)! + index)) * 10).toISOString();
    return { id, created_at: at, updated_at: at };
  };
}

export interface KindReport {
  kind: Kind;
  records: number;
  /** Items written for the kind's records (the aggregates are counted apart). */
  items: number;
  seconds: number;
}

export interface LoadReport {
  kinds: KindReport[];
  /** Counters, taxonomy records with their counts, the index snapshots. */
  aggregates: { items: number; seconds: number };
  items: number;
  seconds: number;
  itemsPerSecond: number;
}

export interface LoadOptions {
  cat: Catalogue;
  /** Default: LOADABLE_KINDS (every kind a body refers to must be among them, earlier). */
  kinds?: readonly Kind[];
  /** The id and timestamps of each record (default benchStamps). */
  stamp?: (kind: Kind, index: number) => Stamp;
  /** Write calls (TransactWriteItems of up to 100 puts) in flight (default 8). */
  inFlight?: number;
  onProgress?: (line: string) => void;
  /** Called with each title's stored record (e.g. to evaluate queries in memory). */
  onRecord?: (kind: Kind, index: number, record: BaseRecord) => void;
  /**
   * Changes a title's record before it is written (default: none), e.g. the numbers a rankings
   * run would have written into it (`members`, `score`: what the index orders by, docs/decisions.md K1).
   */
  adjust?: (kind: Kind, index: number, record: BaseRecord) => BaseRecord;
  /** false: build the records (onRecord) but no items, and write nothing (a store loaded before). */
  write?: boolean;
  /** The moderator who creates the news articles (their `author`; default BENCH_EDITOR). */
  editor?: Caller;
  /** Kinds whose items are in the table already (a load resumed): built and counted, not written again. */
  skip?: readonly Kind[];
  /** Called when every item of a kind is written (what a resumed load may skip). */
  onWritten?: (kind: Kind) => void;
}

/**
 * The author of the benchmark's news articles: an account id in the shape of shared/ids.ts that
 * no account holds (the benchmark creates no users; the articles show it as written).
 */
export const BENCH_EDITOR: Caller = { user_id: 'bench-editor-000000000', username: 'bench_editor', role: 'moderator' };

/** The bulk writer of shared/db/batch.ts; items put while `paused` (kinds a resumed load wrote before) or in a dry run are dropped. */
function loaderWriter(inFlight: number, dryRun: boolean) {
  // 100 puts per TransactWriteItems (see load-community.ts).
  const bulk = new BulkWriter(inFlight, { transact: true });
  return {
    paused: false,
    get written() {
      return bulk.written;
    },
    put(item: Item): Promise<void> {
      return dryRun || this.paused ? Promise.resolve() : bulk.put(item);
    },
    drain: () => bulk.drain(),
  };
}

const keyOf = (k: { pk?: unknown; sk?: unknown }) => `${String(k.pk)}\u0000${String(k.sk)}`;

/** Sets `path` (`rec.anime_count`, `priv.studio_credits`) of `target` to its value (0 when absent) plus `d`. */
function addAt(target: Record<string, unknown>, path: string, d: number): void {
  const parts = path.split('.');
  let o = target;
  for (const p of parts.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
  const last = parts.at(-1)!;
  o[last] = Number(o[last] ?? 0) + d;
}

/** Writes the catalogue's records of `kinds` (see the module comment); returns what it wrote and how fast. */
export async function loadCatalogue(opts: LoadOptions): Promise<LoadReport> {
  const { cat } = opts;
  const kinds = opts.kinds ?? LOADABLE_KINDS;
  const stamp = opts.stamp ?? benchStamps(cat, kinds);
  const writer = loaderWriter(opts.inFlight ?? 8, opts.write === false);
  const skip = opts.skip ?? [];
  const started = Date.now();
  const ids: Partial<Record<Kind, string[]>> = {};
  /** Record items by `KIND#id` (only what a reference check reads: `rec.name`, `rec.type`). */
  const known = new Map<string, Item>();
  const check: ReferenceCheck = async (refs) => referencesFound(refs, refs.map((r) => known.get(recordKeyOfKind(r.kind, r.id).pk) ?? null));
  /** Taxonomy records, written last with the counts the titles add. */
  const linked = new Map<string, { entity: EntityDef<BaseRecord>; rec: Record<string, unknown>; priv: Record<string, unknown> | undefined; rev: number }>();
  const counters = new Map<string, { key: Item; n: number }>();
  /** Each title kind's vectors: its index's first snapshot. */
  const vectors = new Map<TitleResource<BaseRecord>, Vector[]>();
  const reports: KindReport[] = [];
  /** Characters built but not written yet, and the appearances their titles give them. */
  const deferred: { i: number; record: BaseRecord; relations: Record<string, readonly unknown[]> }[] = [];
  const appearances = new Map<string, ReverseItem[]>();

  /** Writes a title's items as its creation would (its links and counter added up); returns the items put. */
  const writeTitle = async (kind: Kind, i: number, resource: TitleResource<BaseRecord>, record: BaseRecord, relations: Record<string, readonly unknown[]>, rev = 1): Promise<number> => {
    const entity = resource.title.entity as EntityDef<BaseRecord>;
    let puts = 0;
    const links = resource.links?.(null, record) ?? [];
    // The i-th record of a kind takes slot i + 1, as the i-th creation would (slots.ts).
    const plan = titleWrite(resource.title, null, { after: record, relations, links, ...(resource.title.random ? { slots: { n: i } } : {}) });
    const counter = counterKeyOf(entity);
    let updates = 0;
    for (const op of [...plan.main.items, ...plan.rest.items] as Record<string, { Item?: Item; Key?: Item }>[]) {
      if (op.Put) {
        const item = op.Put.Item!;
        await writer.put(item.sk === 'R' && item.pk === recordKeyOfKind(entity.kind, record.id).pk ? { ...item, rev } : item);
        puts++;
      } else if (op.Update && keyOf(op.Update.Key!) === keyOf(counter)) {
        const c = counters.get(keyOf(counter)) ?? { key: counter as unknown as Item, n: 0 };
        c.n++;
        counters.set(keyOf(counter), c);
      } else if (op.Update) updates++;
      else throw new Error(`${kind} #${i}: a creation's plan holds ${Object.keys(op).join()}`);
    }
    if (updates !== links.length) throw new Error(`${kind} #${i}: ${updates} updates in the plan for ${links.length} links`);
    // Also of a kind a stopped run wrote (paused now): its snapshot is published only at the end.
    (vectors.get(resource) ?? vectors.set(resource, []).get(resource)!).push(vectorOf(resource.title.index, record));
    for (const link of links) {
      const target = linked.get(link.key.pk);
      if (!target) throw new Error(`${kind} #${i} links ${link.key.pk}, which is not loaded`);
      for (const [path, value] of Object.entries(link.require ?? {})) {
        if (path !== 'rec.type' || target.rec.type !== value) throw new Error(`${kind} #${i}: ${link.key.pk} fails ${path} = ${value}`);
      }
      for (const [path, d] of Object.entries(link.add)) addAt(target as unknown as Record<string, unknown>, path, d);
      target.rev++;
    }
    return puts;
  };

  for (const kind of kinds) {
    const t0 = Date.now();
    const before = writer.written;
    const taxonomy = TAXONOMY[kind];
    const title = TITLES[kind];
    if (!taxonomy && !title) throw new Error(`the loader cannot load ${kind} yet (add it to TAXONOMY or TITLES)`);
    const entity = (taxonomy?.resource.entity ?? title!.resource.title.entity) as EntityDef<BaseRecord>;
    writer.paused = skip.includes(kind);
    const list: string[] = (ids[kind] = []);
    let puts = 0;
    for (let i = 0; i < cat.sizes[kind]; i++) {
      const meta = stamp(kind, i);
      list.push(meta.id);
      const parsed = (taxonomy ?? title)!.body.safeParse(resolveRefs(cat.body(kind, i), ids));
      if (!parsed.success) throw new Error(`${kind} #${i}: the body is refused: ${parsed.error.message}`);
      const values = parsed.data as Record<string, unknown>;
      if (taxonomy) {
        const rec = taxonomy.resource.toRecord(values, meta, null) as unknown as Record<string, unknown>;
        taxonomy.resource.checkChange?.(null, rec as never);
        const priv = taxonomy.resource.privateDefaults?.();
        linked.set(recordKeyOfKind(entity.kind, meta.id).pk, { entity, rec, priv, rev: 1 });
        known.set(recordKeyOfKind(entity.kind, meta.id).pk, { rec: { name: rec.name, type: rec.type } });
        continue;
      }
      const { resource } = title!;
      const out = await resource.build(values, { ...meta, caller: opts.editor ?? BENCH_EDITOR }, null, check);
      if ('errors' in out) throw new Error(`${kind} #${i}: ${JSON.stringify(out.errors)}`);
      if (opts.adjust) out.record = opts.adjust(kind, i, out.record);
      known.set(recordKeyOfKind(entity.kind, meta.id).pk, { rec: { name: (out.record as unknown as { name: string }).name } });
      if (kind === 'character') {
        // Written last: its list filters index the appearances the animes and mangas give it.
        deferred.push({ i, record: out.record, relations: out.relations });
        continue;
      }
      opts.onRecord?.(kind, i, out.record);
      // Without writing, only the appearances are needed (the characters' records).
      if (opts.write !== false) puts += await writeTitle(kind, i, resource, out.record, out.relations);
      const source = SOURCES[kind];
      if (source) {
        const title = { kind: source, record: out.record as never, relations: out.relations };
        const names = new Map<string, string>();
        const named = namedBy(title);
        for (const pk of [...named.characters.map((c) => `CHARACTER#${c}`), ...named.persons.map((p) => `PERSON#${p}`)]) {
          const rec = known.get(pk)?.rec as { name?: string } | undefined;
          if (rec) names.set(pk, rec.name ?? '');
        }
        // What the relations consumer's reconcile of the new title writes (shared/db/reverse.ts).
        const state = reverseStateOf(title, names);
        const reverse = [...reverseItems(state).values()];
        for (const r of reverse) {
          await writer.put(r);
          if (String(r.pk).startsWith('CHARACTER#')) {
            const id = String(r.pk).split('#')[1]!;
            appearances.set(id, [...(appearances.get(id) ?? []), r as unknown as ReverseItem]);
          }
        }
        for (const f of fanOutItems(state)) await writer.put(f);
        puts += reverse.length;
      }
      if ((i + 1) % 5000 === 0) opts.onProgress?.(`  ${kind}: ${i + 1} / ${cat.sizes[kind]} (${puts} items)`);
    }
    if (taxonomy) counters.set(keyOf(counterKeyOf(entity)), { key: counterKeyOf(entity) as unknown as Item, n: cat.sizes[kind] });
    await writer.drain();
    reports.push({ kind, records: cat.sizes[kind], items: writer.written - before, seconds: (Date.now() - t0) / 1000 });
    opts.onProgress?.(`  ${kind}: ${cat.sizes[kind]} records, ${writer.written - before} items in ${((Date.now() - t0) / 1000).toFixed(1)} s${writer.paused ? ' (written before)' : ''}`);
    // A character's items are written with the appearances, below.
    if (kind !== 'character' && !writer.paused && opts.write !== false) opts.onWritten?.(kind);
  }

  if (deferred.length > 0) {
    const t0 = Date.now();
    const before = writer.written;
    writer.paused = skip.includes('character');
    // Each title naming a character updated its appearances once (a revision each), as the relations consumer does.
    for (const { i, record, relations } of deferred) {
      const items = appearances.get(record.id) ?? [];
      const withAppearances = { ...record, appearances: appearanceTokens(items) } as BaseRecord;
      opts.onRecord?.('character', i, withAppearances);
      if (opts.write !== false) await writeTitle('character', i, TITLES.character!.resource, withAppearances, relations, 1 + items.length);
    }
    await writer.drain();
    // The characters' own line counts the items written now.
    const line = reports.find((r) => r.kind === 'character');
    if (line) {
      line.items += writer.written - before;
      line.seconds += (Date.now() - t0) / 1000;
    }
    opts.onProgress?.(`  character items (with appearances): ${writer.written - before} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (!writer.paused && opts.write !== false) opts.onWritten?.('character');
  }
  // The aggregates are always written (puts of their final values).
  writer.paused = false;

  const t1 = Date.now();
  const before = writer.written;
  for (const { entity, rec, priv, rev } of linked.values()) {
    for (const op of createPlan(entity, rec as unknown as BaseRecord, priv).items as Record<string, { Item?: Item; Key?: Item }>[]) {
      // The counter is written once below; the record carries the revisions its links made.
      if (op.Update) continue;
      const item = op.Put!.Item!;
      await writer.put(item.sk === 'R' && item.pk === recordKeyOfKind(entity.kind, String(rec.id)).pk ? { ...item, rev } : item);
    }
  }
  for (const { key, n } of counters.values()) await writer.put({ ...key, n });
  await writer.drain();
  // Each kind's index: a snapshot of its records (a kind an earlier, stopped run wrote, `skip`, too: that run
  // stopped before this point, so it published none).
  for (const [resource, all] of vectors) await compactIndex(resource.title.index, { base: all, rebuild: { after: await readHead(resource.title.entity.kind) } });
  const seconds = (Date.now() - started) / 1000;
  return {
    kinds: reports,
    aggregates: { items: writer.written - before, seconds: (Date.now() - t1) / 1000 },
    items: writer.written,
    seconds,
    itemsPerSecond: writer.written / Math.max(seconds, 1e-3),
  };
}
