/**
 * The migration of a store written before issue 18 (schema version 1) to this code's version
 * (shared/domain/migrations.ts, store-v2.ts), on the real engine: a catalogue and a community are
 * written by the current code (the bench's loaders, proved item-identical to the API's writes by
 * bulk-load.test.ts and community-load.test.ts) — the reference —, then turned into what version
 * 1 would hold for the same records (test/support/previous-store.ts says exactly what it lacked)
 * and migrated. The migrated table must agree with a recount and equal the reference item by
 * item; a second run writes nothing; a run stopped half-way and run again ends the same. A new
 * store never migrates: it holds the current version from its creation. And `npm start` on a
 * data dir such a store is in (made by test/support/old-store-run.ts, in a process of its own)
 * migrates it before it listens, and then serves what the current code served for the same data.
 * A store of version 3 (the schedule's digest, an anime index without entries) is migrated to
 * version 4: its schedule is unavailable until then, and afterwards exactly what the digest held.
 * A store of version 4 (voices/' ordering entries and counts) is migrated to version 5: they are
 * deleted, nothing else changes.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { animeIndex, scheduleEntryOf } from '../../shared/db/animes.js';
import { Unavailable } from '../../shared/db/errors.js';
import { forgetIndexes, indexEntries, indexPage } from '../../shared/domain/index-reader.js';
import { writeItems } from '../../shared/db/batch.js';
import { MigrationRunning, readCheckpoint, releaseMigration, SCHEMA_VERSION, storeVersion, takeMigration } from '../../shared/db/migrations.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { genreEntity, producerEntity, type GenreRecord, type ProducerRecord } from '../../shared/db/taxonomy.js';
import { migrateStore, type Progress } from '../../shared/domain/migrations.js';
import { storeV2 } from '../../shared/domain/store-v2.js';
import { storeV3 } from '../../shared/domain/store-v3.js';
import { storeV4 } from '../../shared/domain/store-v4.js';
import { storeV5 } from '../../shared/domain/store-v5.js';
import { storeV6 } from '../../shared/domain/store-v6.js';
import { storeV7 } from '../../shared/domain/store-v7.js';
import { catalogue, type Kind } from '../bench/catalogue-data.js';
import { community } from '../bench/community-data.js';
import { LOADABLE_KINDS, loadCatalogue } from '../bench/load-catalogue.js';
import { loadCommunity, type TitleLookup } from '../bench/load-community.js';
import { instrumentSdk, itemsWritten } from '../bench/sdk-calls.js';
import { leftOrderingEntries, toVersion1, toVersion3, toVersion4, toVersion5, toVersion6 } from '../support/previous-store.js';
import { publishedVectors, recount } from '../support/recount.js';
import { scanAll, sortKeys, type Item } from '../support/tables.js';

const recorder = instrumentSdk();
const cat = catalogue({
  scale: { genre: 8, theme: 5, demographic: 3, producer: 12, magazine: 4, person: 60, character: 90, anime: 40, manga: 50, news: 30 },
  seed: 5,
  today: '2025-06-01',
});
const comm = community(cat, { users: 40, items: 300, reviews: 60 });

/** Lists version 1 left of titles deleted before it (their cascades kept them: decision V6). */
const LEFT_LISTS: Item[] = [
  { pk: 'RECS#ANIME#deleted-anime-0000000000', sk: 'R', v: [{ n: 1, b: [['some-anime-000000000000', 4, 7.5, 'Some anime']] }] },
  { pk: 'RECS#MANGA#deleted-manga-0000000000', sk: 'R', v: [{ n: 2, b: [] }] },
];

/**
 * Items as compared: the schema items left out (their `at` differs), count attributes at 0 as
 * absent (a count brought back to 0 keeps its attribute, one never touched has none), the hash
 * `h` of voice groups that versions 2–4 wrote (version 5 neither reads nor rewrites it: O17), the
 * recommendation job's `prev`, which version 1 did not keep and the next run's completion sets
 * (decision Y5), and the names and times of the index pointers (decision O9) — with
 * `pointerVersions` false also their versions and predecessors (a rebuild publishes a version after
 * the one it replaces).
 */
function comparable(items: ReadonlyMap<string, Item>, pointerVersions = true): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, item] of items) {
    if (item.pk === 'SCHEMA') continue;
    let copy: Item = item;
    if (item.sk === 'N') copy = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== 0));
    if (String(item.sk).startsWith('VA#')) copy = Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'h'));
    if (item.pk === 'RECS#JOB') copy = Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'prev'));
    // An index pointer names its snapshot's objects and when it was published: each run its own.
    const ignored = pointerVersions ? ['name', 'at'] : ['name', 'at', 'version', 'previous'];
    if (/^[A-Z]+#IX$/.test(String(item.pk)) && item.sk === 'P') copy = Object.fromEntries(Object.entries(item).filter(([k]) => !ignored.includes(k)));
    out.set(key, JSON.stringify(sortKeys(copy)));
  }
  return out;
}

function expectSameItems(actual: ReadonlyMap<string, Item>, expected: ReadonlyMap<string, Item>, pointerVersions = true): void {
  const a = comparable(actual, pointerVersions);
  const e = comparable(expected, pointerVersions);
  const missing = [...e.keys()].filter((k) => !a.has(k));
  const extra = [...a.keys()].filter((k) => !e.has(k));
  const differing = [...e.keys()].filter((k) => a.has(k) && a.get(k) !== e.get(k));
  expect(missing.slice(0, 10), `${missing.length} items missing`).toEqual([]);
  expect(extra.slice(0, 10), `${extra.length} items the migration left or wrote that the current code does not`).toEqual([]);
  for (const k of differing.slice(0, 3)) expect(a.get(k), k).toEqual(e.get(k));
  expect(differing.length).toBe(0);
}

const families = (items: ReadonlyMap<string, Item>) => {
  const keys = [...items.keys()];
  const n = (re: RegExp) => keys.filter((k) => re.test(k)).length;
  return {
    indexPointers: n(/^(ANIME|MANGA|CHARACTER|PERSON|NEWS)#IX P$/),
    reviewEntries: n(/^REVIEWS#(ANIME|MANGA|USER)#[^#]+#O#/),
    reviewVectors: n(/^REVIEWS#(USER#[^#]+#V|(ANIME|MANGA)#[^#]+) (?!N$)/),
    legacyVoiceEntries: n(/^PERSON#[^#]+#V#/),
    legacyVoiceCounts: n(/^PERSON#[^#]+#X (VN|VC#)/),
    voiceGroups: n(/^PERSON#[^#]+#X VA#/),
    fanOutHeads: n(/^(ANIME|MANGA)#[^#]+#F H$/),
    legacyFanOuts: n(/^(ANIME|MANGA)#[^#]+#F \d+$/),
    legacyVoices: n(/^PERSON#[^#]+#X VOICE#/),
    legacyIndex: n(/^(ANIME|MANGA|CHARACTER|PERSON|NEWS)#[OPWLC]#/),
    legacyDigest: n(/^ANIME#D#schedule /),
  };
};

let reference: Map<string, Item>;
/** The airing animes of the reference (the schedule's). */
const airing = () => [...reference.values()].filter((i) => /^ANIME#[^#]+$/.test(String(i.pk)) && i.sk === 'R' && (i.rec as { status: string }).status === 'airing');
let reviews: number;
/** Ordering entries version 1 left of a genre and a producer deleted before (decision Z4). */
let leftEntries: Item[];
const table = () => process.env.TABLE_NAME!;

beforeAll(async () => {
  const records: Record<string, BaseRecord[]> = { anime: [], manga: [] };
  await loadCatalogue({ cat, kinds: LOADABLE_KINDS, inFlight: 4, onRecord: (kind: Kind, i, r) => void (kind in records && (records[kind]![i] = r)) });
  const titles: TitleLookup = (kind, i) => ({ id: records[kind]![i]!.id, rec: records[kind]![i] as unknown as Record<string, unknown> });
  await loadCommunity({ comm, titles, passwordHash: '$scrypt$bench', inFlight: 4 });
  // What a recommendations run leaves (the job item with `prev`, a list of a title that exists).
  await writeItems([
    { pk: 'RECS#JOB', sk: 'R', n: 2, done: 2, prev: 1, at: '2025-05-31T00:00:00.000Z' },
    { pk: `RECS#ANIME#${records.anime![0]!.id}`, sk: 'R', v: [{ n: 2, b: [[records.anime![1]!.id, 3, null, 'x']] }] },
  ]);
  reference = await scanAll(table());
  reviews = [...reference.keys()].filter((k) => /^REVIEW#[^#]+ R$/.test(k)).length;
  // A genre and a producer as they were when deleted, a count moved by a title's write since the deletion removed their entries.
  const recordOf = <R>(kind: string) => [...reference.values()].find((i) => String(i.pk).startsWith(`${kind}#`) && i.sk === 'R')!.rec as R;
  const genre = recordOf<GenreRecord>('GENRE');
  const producer = recordOf<ProducerRecord>('PRODUCER');
  leftEntries = [
    ...leftOrderingEntries(genreEntity, { ...genre, id: 'deleted-genre-00000000000', name: `${genre.name} (deleted)`, anime_count: genre.anime_count + 1 }),
    ...leftOrderingEntries(producerEntity, { ...producer, id: 'deleted-producer-000000000', name: `${producer.name} (deleted)` }),
  ];
}, 600_000);

describe('a new store', () => {
  it('holds the current schema version from its creation, so it never migrates', async () => {
    expect(await storeVersion()).toBe(SCHEMA_VERSION);
    const empty = `empty-${randomBytes(6).toString('hex')}`;
    await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, empty);
    const own = table();
    process.env.TABLE_NAME = empty;
    try {
      expect(await storeVersion()).toBe(SCHEMA_VERSION);
      expect((await migrateStore()).steps).toEqual([]);
      // A store a later version wrote is refused, untouched: this code must not write it.
      await writeItems([{ pk: 'SCHEMA', sk: 'V', version: SCHEMA_VERSION + 1, at: '2030-01-01T00:00:00.000Z' }]);
      await expect(migrateStore()).rejects.toThrow(`the store is at schema version ${SCHEMA_VERSION + 1}, written by a later version of this code`);
      expect(await storeVersion()).toBe(SCHEMA_VERSION + 1);
    } finally {
      process.env.TABLE_NAME = own;
    }
  });
});

describe('migrating a store of schema version 1', () => {
  it('the reference agrees with a recount, and holds every family version 1 lacked', async () => {
    expect(recount(reference, await publishedVectors(reference))).toEqual([]);
    const f = families(reference);
    for (const [family, n] of Object.entries(f)) if (!family.startsWith('legacy') && family !== 'reviewVectors') expect(n, family).toBeGreaterThan(0);
    expect(f.reviewVectors + f.legacyFanOuts + f.legacyVoices + f.legacyIndex + f.legacyDigest + f.legacyVoiceEntries + f.legacyVoiceCounts).toBe(0);
  });

  it('is brought to the items the current code writes, item by item', async () => {
    const previous = await toVersion1({ leftLists: LEFT_LISTS, leftEntries });
    const old = await scanAll(table());
    expect(leftEntries.filter((e) => old.has(`${String(e.pk)} ${String(e.sk)}`))).toHaveLength(leftEntries.length);
    expect(await storeVersion()).toBe(1);
    const f = families(old);
    expect([f.indexPointers, f.reviewEntries, f.voiceGroups, f.fanOutHeads]).toEqual([0, 0, 0, 0]);
    expect(f.legacyIndex).toBeGreaterThan(0);
    expect(f.legacyDigest).toBe(airing().length);
    expect(reviews).toBeGreaterThan(20);
    expect(f.reviewVectors).toBe(2 * reviews);
    expect(recount(old).length, 'the problems of the old store').toBeGreaterThan(100);

    const progress: Progress[] = [];
    const report = await migrateStore({ concurrency: 4, segments: 3, onProgress: (_s, p) => progress.push(p) });
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    expectSameItems(after, reference);
    expect(await storeVersion()).toBe(SCHEMA_VERSION);
    expect(await readCheckpoint(2)).toBeNull();
    const summary = report.steps[0]!.summary;
    expect(report).toMatchObject({ from: 1, to: SCHEMA_VERSION });
    // Version 3: every title kind's first snapshot, the planner's title index gone.
    const titles = cat.sizes.anime + cat.sizes.manga + cat.sizes.character + cat.sizes.person + cat.sizes.news;
    expect(report.steps[1]!.summary).toMatchObject({ records: titles, snapshots: 5 });
    expect(report.steps[1]!.summary.deleted).toBeGreaterThan(titles * 10);
    // Version 4: the anime index version 3 published from the records has the entries already; the digest gone.
    expect(report.steps[2]!.summary).toEqual({ records: 0, snapshots: 0, deleted: airing().length });
    // Version 5: version 2's reconciles wrote no voice entries nor counts (the current code's reverse items).
    expect(report.steps[3]!.summary).toEqual({ deleted: 0 });
    // Version 6: the genres and themes the current code wrote have `explicit` already.
    expect(report.steps[4]!.summary).toEqual({ genres: 0, themes: 0 });
    // Version 7: the indexes version 3 published from the records have the relevance words already.
    expect(report.steps[5]!.summary).toEqual({ indexes: 0, records: 0 });
    expect(summary).toMatchObject({ titles: cat.sizes.anime + cat.sizes.manga, reviews, listsRemoved: LEFT_LISTS.length, entriesRemoved: leftEntries.length, sweeps: 2 });
    expect(progress.filter((p) => p.phase === 'titles').at(-1)).toMatchObject({ done: cat.sizes.anime + cat.sizes.manga, total: cat.sizes.anime + cat.sizes.manga });
    console.log(`migrated ${after.size} items (${previous.deleted} deleted and ${previous.put} put to make the old store) in ${report.seconds.toFixed(1)} s: ${JSON.stringify(summary)}`);
  }, 300_000);

  it('a second run writes nothing', async () => {
    recorder.take();
    const summary = await storeV2.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    const writes = recorder.take().filter((c) => itemsWritten(c) > 0);
    expect(writes.map((c) => c.operation)).toEqual([]);
    expect(summary).toMatchObject({ reviews: 0, countsPut: 0, listsRemoved: 0, entriesRemoved: 0, sweeps: 1 });
    const v3 = await storeV3.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
    expect(v3).toMatchObject({ snapshots: 0, deleted: 0 });
    const v4 = await storeV4.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
    expect(v4).toMatchObject({ snapshots: 0, deleted: 0 });
    const v5 = await storeV5.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
    expect(v5).toEqual({ deleted: 0 });
    const v6 = await storeV6.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
    expect(v6).toEqual({ genres: 0, themes: 0 });
    expectSameItems(await scanAll(table()), reference);
  }, 300_000);

  it('a run stopped half-way and run again ends the same', async () => {
    await toVersion1({ leftLists: LEFT_LISTS, leftEntries });
    const half = Math.floor((cat.sizes.anime + cat.sizes.manga) / 2);
    // Every title after the first half fails, as if the process were killed there.
    await expect(migrateStore({ concurrency: 4, pageSize: 10, beforeTitle: (n) => { if (n >= half) throw new Error('stopped'); } })).rejects.toThrow('stopped');
    expect(await storeVersion()).toBe(1);
    const checkpoint = await readCheckpoint(2);
    expect(checkpoint).toMatchObject({ phase: 'titles', kind: 'MANGA' });
    expect(Number(checkpoint!.done)).toBeGreaterThan(0);
    const between = families(await scanAll(table()));
    // Some titles are migrated, others not yet.
    expect(between.fanOutHeads).toBeGreaterThan(0);
    expect(between.legacyFanOuts).toBeGreaterThan(0);

    // Another run's lease (a run killed without giving it back, on another machine) refuses this one while it lasts.
    await takeMigration(2, 'another-machine');
    await expect(migrateStore({ holder: 'this-machine' })).rejects.toThrow(MigrationRunning);
    await releaseMigration(2, 'another-machine');

    const report = await migrateStore({ concurrency: 4, pageSize: 10, holder: 'this-machine' });
    expect(report.steps[0]!.summary.titles).toBeLessThan(cat.sizes.anime + cat.sizes.manga);
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    expectSameItems(after, reference);
    expect(await storeVersion()).toBe(SCHEMA_VERSION);
  }, 300_000);
});

describe('migrating a store of schema version 3', () => {
  it("rebuilds the anime index with the airing animes' entries and deletes the digest; until then the schedule is unavailable, not wrong", async () => {
    const voiceItems = await toVersion4();
    await toVersion3();
    expect(await storeVersion()).toBe(3);
    const old = await scanAll(table());
    const digest = [...old.values()].filter((i) => i.pk === 'ANIME#D#schedule').map(({ pk: _pk, sk: _sk, ...entry }) => entry);
    expect(digest.map((e) => e.id).sort()).toEqual(airing().map((r) => (r.rec as { id: string }).id).sort());
    expect(digest.length).toBeGreaterThan(0);
    // A function of this code over version 3's index: its lists as they were, its schedule unknown (503).
    forgetIndexes();
    await expect(indexEntries(animeIndex)).rejects.toThrow(Unavailable);
    expect((await indexPage(animeIndex, { ordering: 'name', descending: false, limit: 1, cursor: null, terms: [], equals: {} })).count).toBe(cat.sizes.anime);

    const report = await migrateStore({ segments: 3 });
    expect(report).toMatchObject({ from: 3, to: SCHEMA_VERSION });
    expect(report.steps.map((s) => s.summary)).toEqual([{ records: cat.sizes.anime, snapshots: 1, deleted: digest.length }, { deleted: voiceItems }, { genres: 0, themes: 0 }, { indexes: 0, records: 0 }]);
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    expectSameItems(after, reference, false);
    expect(await storeVersion()).toBe(SCHEMA_VERSION);
    // The same function sees the pointer move: the schedule's entries are exactly what the digest held.
    const byId = (a: object, b: object) => (String((a as { id: string }).id) < String((b as { id: string }).id) ? -1 : 1);
    expect((await indexEntries(animeIndex)).map(scheduleEntryOf).sort(byId)).toEqual(digest.sort(byId));

    recorder.take();
    const again = await storeV4.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
    expect(again).toMatchObject({ snapshots: 0, deleted: 0 });
  }, 300_000);
});

describe('migrating a store of schema version 4', () => {
  it("deletes voices/' ordering entries and the persons' voice counts, and nothing else", async () => {
    const voiceItems = await toVersion4();
    expect(await storeVersion()).toBe(4);
    const f = families(await scanAll(table()));
    // Six ordering entries per voice entry, and the counts.
    expect(f.legacyVoiceEntries).toBeGreaterThan(6 * 20);
    expect(f.legacyVoiceEntries % 6).toBe(0);
    expect(f.legacyVoiceEntries + f.legacyVoiceCounts).toBe(voiceItems);
    expect(recount(await scanAll(table())).some((p) => /reverse items/.test(p))).toBe(true);

    const report = await migrateStore({ segments: 3 });
    expect(report).toMatchObject({ from: 4, to: SCHEMA_VERSION });
    expect(report.steps.map((s) => s.summary)).toEqual([{ deleted: voiceItems }, { genres: 0, themes: 0 }, { indexes: 0, records: 0 }]);
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    // The anime index is the one the previous test rebuilt (a later version than the reference's).
    expectSameItems(after, reference, false);
    expect(await storeVersion()).toBe(SCHEMA_VERSION);

    recorder.take();
    expect(await storeV5.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined })).toEqual({ deleted: 0 });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
  }, 300_000);
});

describe('migrating a store of schema version 5', () => {
  it('gives every genre and theme `explicit: false` at its next revision, and changes nothing else', async () => {
    const before = await scanAll(table());
    const stripped = await toVersion5();
    expect(await storeVersion()).toBe(5);
    expect(stripped.length).toBeGreaterThan(0);
    expect(recount(await scanAll(table())).length, 'version 5 records without `explicit`').toBeGreaterThan(0);

    const report = await migrateStore({ segments: 3 });
    expect(report).toMatchObject({ from: 5, to: SCHEMA_VERSION });
    const n = (kind: string) => stripped.filter((i) => String(i.pk).startsWith(`${kind}#`)).length;
    expect(report.steps.map((s) => s.summary)).toEqual([{ genres: n('GENRE'), themes: n('THEME') }, { indexes: 0, records: 0 }]);
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    // Each rewritten record's representation changed (`explicit` appears): one change-feed change each (§8.5).
    const changes = [...after].filter(([, i]) => i.pk === 'FEED#P');
    expect(changes.map(([, i]) => `${String(i.k)} ${String(i.id)} ${String(i.c)}`).sort()).toEqual(stripped.map((i) => `${String(i.pk).split('#')[0]!.toLowerCase()} ${(i.rec as { id: string }).id} updated`).sort());
    for (const [key] of changes) after.delete(key);
    // The store as before, each rewritten record at its next revision.
    const expected = new Map(before);
    for (const i of stripped) {
      const key = `${String(i.pk)} ${String(i.sk)}`;
      expected.set(key, { ...before.get(key)!, rev: Number(before.get(key)!.rev) + 1 });
    }
    expectSameItems(after, expected, false);

    recorder.take();
    expect(await storeV6.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined })).toEqual({ genres: 0, themes: 0 });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
  }, 300_000);
});

describe('migrating a store of schema version 6', () => {
  it('rebuilds every title index with what relevance compares; until then relevance and fuzzy answer 503, the other lists as before', async () => {
    const before = await scanAll(table());
    await toVersion6();
    expect(await storeVersion()).toBe(6);
    // A function of this code over version 6's indexes.
    forgetIndexes();
    const byName = { ordering: 'name', descending: false, limit: 5, cursor: null, terms: ['a'], equals: {} };
    const named = await indexPage(animeIndex, byName);
    await expect(indexPage(animeIndex, { ...byName, ordering: 'relevance' })).rejects.toThrow(Unavailable);
    await expect(indexPage(animeIndex, { ...byName, fuzzy: true })).rejects.toThrow(Unavailable);

    const report = await migrateStore({ segments: 3 });
    expect(report).toMatchObject({ from: 6, to: SCHEMA_VERSION });
    const titles = cat.sizes.anime + cat.sizes.manga + cat.sizes.character + cat.sizes.person + cat.sizes.news;
    expect(report.steps.map((s) => s.summary)).toEqual([{ indexes: 5, records: titles }]);
    const after = await scanAll(table());
    expect(recount(after, await publishedVectors(after))).toEqual([]);
    expect(await storeVersion()).toBe(SCHEMA_VERSION);
    // The same function sees the pointers move: relevance answers, and the other lists are as they were.
    expect((await indexPage(animeIndex, byName)).entries).toEqual(named.entries);
    const ranked = await indexPage(animeIndex, { ...byName, ordering: 'relevance', limit: 100 });
    expect(ranked.entries.length).toBeGreaterThan(0);
    expect(new Set(ranked.entries.map((e) => e.id))).toEqual(new Set((await indexPage(animeIndex, { ...byName, limit: 100 })).entries.map((e) => e.id)));
    // Only the index objects' pointers and the rebuilt indexes' items changed.
    expect([...after.keys()].filter((k) => !before.has(k) && !/^(ANIME|MANGA|CHARACTER|PERSON|NEWS)#IX /.test(k))).toEqual([]);

    recorder.take();
    expect(await storeV7.run({ concurrency: 4, segments: 3, checkpoint: null, save: async () => undefined, progress: () => undefined })).toEqual({ indexes: 0, records: 0 });
    expect(recorder.take().filter((c) => itemsWritten(c) > 0).map((c) => c.operation)).toEqual([]);
  }, 300_000);
});

describe('npm start on a data dir of schema version 1', () => {
  it('migrates the store before it prints `listening`, says so with a progress bar, and then serves what the current code served', async () => {
    const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'old-store-'));
    try {
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, POWERTOOLS_LOG_LEVEL: 'SILENT', CATALOGUE_CACHE_DIR: 'off' };
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/support/old-store-run.ts', dir], { env, timeout: 240_000 });
      const { views } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { views: { path: string; now: Page; old: Page }[] };
      // What version 1's store shows for them: none of the voices, reviews and season (no index yet).
      for (const v of views) expect(v.old.count, v.path).not.toBe(v.now.count);

      const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], { env: { ...env, DATA_DIR: dir, PORT: '0' } });
      const lines: string[] = [];
      const url = await new Promise<string>((resolve, reject) => {
        const take = (prefix: string) => (chunk: Buffer) => {
          for (const line of chunk.toString().split(/[\r\n]+/).filter(Boolean)) {
            lines.push(`${prefix} ${line}`);
            const m = /^listening on (\S+)/.exec(line);
            if (m) resolve(m[1]!);
          }
        };
        child.stdout.on('data', take('out'));
        child.stderr.on('data', take('err'));
        child.on('exit', (code) => reject(new Error(`npm start exited (${code}): ${lines.join('\n')}`)));
      });
      try {
        const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
        const listening = at(/^out listening on /);
        expect(at(/^err migrating the store from schema version 1 to 7: issue 18.*; the titles' in-memory index.*; the schedule from the anime index.*; voices\/ ordered by the indexes.*; genres and themes given `explicit: false`.*; the title indexes rebuilt from the records with what relevance and fuzzy search compare/)).toBeGreaterThanOrEqual(0);
        expect(at(/^err migrating: titles \[#+\.*\] \d+\/40 titles/)).toBeGreaterThan(at(/^err migrating the store/));
        expect(at(/^out migrated the store from schema version 1 to 7 in [\d.]+ s \(40 titles, /)).toBeGreaterThan(at(/^err migrating: titles/));
        expect(listening).toBeGreaterThan(at(/^out migrated the store/));
        for (const v of views) {
          const page = (await (await fetch(`${url}${v.path}`)).json()) as Page;
          expect({ count: page.count, results: page.results }, v.path).toEqual({ count: v.now.count, results: v.now.results });
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 420_000);
});

interface Page {
  count: number;
  results: unknown[];
}
