/**
 * A store as schema version 1 (the code before issue 18, commit 2bae71c) wrote it, made from one
 * the current code wrote: the migration's test (test/integration/migrations.test.ts) starts from
 * it; one as version 3 wrote it (toVersion3), and one as version 4 wrote it (toVersion4). What version 1 lacked is deleted, what it wrote otherwise is written in its form, what it
 * left behind is put back — exactly this, no more (the list was taken from a store the bench's
 * loaders wrote with each version's code, compared item by item: every other item was equal):
 *
 *  - the schema version item: none;
 *  - the schedule (O15): its digest, an item per airing anime (`ANIME#D#schedule` / `<id>`: the
 *    anime's id, name, score, status, broadcast, aired_from, aired_to, episodes), which versions
 *    1–3 wrote with every anime write; and no entry in the vectors (`e`);
 *  - the titles' index (issue 19, O9): no in-memory index (pointer, deltas: `<KIND>#IX`);
 *    instead the planner's items of every title in the families versions 1 and 2 wrote — an
 *    ordering entry per ordering and direction, a posting per filter value, word postings
 *    (`legacyIndexItems`: what version 3 must delete, by family; versions 2 and 3 read none of
 *    them), with the manga vectors without `f.author_role` (Q4);
 *  - reviews (Q6): no list entries (`REVIEWS#<K>#<T>#O#…`, `REVIEWS#USER#<U>#O#…`) and no title
 *    counts (`REVIEWS#<K>#<T>` / `N`); instead a vector per review, sk = its id, in
 *    `REVIEWS#<K>#<T>` and in `REVIEWS#USER#<U>#V`; a user's counts only `n`; claims without `sp`;
 *  - reverse views (N1–N4): no voice entries (`PERSON#<p>#V#…`), voice groups (`VA#`) or counts
 *    (`VN`, `VC#`), no fan-out head or parts; instead version 1's items — an appearance
 *    `CHARACTER#<c>#X` / `<KIND>#<title id>`, a voice item `PERSON#<p>#X` / `VOICE#<a>#<c>#<language>`
 *    (the anime's name and `aired_from`, the character's name, role, language), a staff credit
 *    `PERSON#<p>#X` / `STAFF#<a>` — and a fan-out `<KIND>#<id>#F` / `<n>` listing their keys and hashes;
 *  - recommendations (V6, V7): the job item without `prev`; the lists of deleted titles
 *    (`leftLists`), which version 1's title cascades left;
 *  - taxonomy (Z4): ordering entries of deleted records (`leftEntries`, made by
 *    `leftOrderingEntries`), which version 1's catalogue consumer put back after the deletion.
 *
 * Versions 2–4 kept, beside the voice groups, what `voices/` read before version 5 (O17): each
 * voice entry in six ordering partitions and the persons' voice counts, and the groups carried the
 * hash that guarded the counts' transactions (voiceItemsBefore5).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { writeItems, type ItemKey } from '../../shared/db/batch.js';
import { animeIndex, type AnimeRecord } from '../../shared/db/animes.js';
import { mangaIndex } from '../../shared/db/mangas.js';
import { vectorOf, type IndexDef } from '../../shared/db/catalogue-index.js';
import { sortKey } from '../../shared/db/sort-keys.js';
import { characterIndex } from '../../shared/db/characters.js';
import { indexPk, pointerKey, readPointer } from '../../shared/db/index-deltas.js';
import { encodeVectors, loadVectors } from '../../shared/domain/index-compaction.js';
import { buildSnapshot, encodeSnapshot } from '../../shared/search/snapshot.js';
import { ByteReader, ByteWriter } from '../../shared/search/codec.js';
import { indexObjectKey, indexVersionName, putIndexObject } from '../../shared/storage/index-objects.js';
import { newsIndex } from '../../shared/db/news.js';
import { personIndex } from '../../shared/db/persons.js';
import { isSchemaItem, SCHEDULE_DIGEST_PK } from '../../shared/db/migrations.js';
import { orderingItems, type BaseRecord, type EntityDef } from '../../shared/db/records.js';
import { chunk } from '../../shared/db/titles.js';
import { canonicalJson } from '../../shared/json.js';
import { searchText } from '../../shared/text.js';
import { scanAll, type Item } from './tables.js';

const keyOf = (i: Item): ItemKey => ({ pk: String(i.pk), sk: String(i.sk) });
const INDEXES = [animeIndex, mangaIndex, characterIndex, personIndex, newsIndex] as unknown as IndexDef<BaseRecord>[];
const hashOf = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('base64url').slice(0, 12);

/**
 * The planner's items of a title as versions 1 and 2 wrote them, family by family (ordering
 * entries `K#O#<o>#A|D`, postings `K#P#<filter>#<value>`, word postings `K#W#<start>` of the
 * search text's words' first two and three characters, each holding the vector).
 */
function legacyIndexItems(def: IndexDef<BaseRecord>, r: BaseRecord): Item[] {
  const v = vectorBefore4(def, r);
  const items: Item[] = [];
  for (const [name, o] of Object.entries(def.orderings)) {
    for (const dir of ['asc', 'desc'] as const) items.push({ pk: `${def.kind}#O#${name}#${dir === 'asc' ? 'A' : 'D'}`, sk: sortKey(o.value(r), o.type, r.id, dir), ...v });
  }
  const key = sortKey(def.orderings[def.listOrder.replace(/^-/, '')]!.value(r), def.orderings[def.listOrder.replace(/^-/, '')]!.type, r.id, def.listOrder.startsWith('-') ? 'desc' : 'asc');
  for (const [name, values] of Object.entries(v.f)) for (const value of values) items.push({ pk: `${def.kind}#P#${name}#${value}`, sk: key, ...v });
  for (const word of new Set(v.sw.split(' ').filter((w) => [...w].length >= 2))) {
    for (const n of [2, 3]) if ([...word].length >= n) items.push({ pk: `${def.kind}#W#${[...word].slice(0, n).join('')}`, sk: key, ...v });
  }
  const unique = new Map(items.map((i) => [`${String(i.pk)} ${String(i.sk)}`, i]));
  return [...unique.values()];
}

/** A record's vector as versions 1–3 computed it: without its entry (`e`, O15). */
function vectorBefore4(def: IndexDef<BaseRecord>, r: BaseRecord) {
  const { e: _e, ...v } = vectorOf(def, r);
  return v;
}

/** The schedule's digest item of an anime (versions 1–3): airing animes only. */
function scheduleDigestItem(r: AnimeRecord): Item | null {
  if (r.status !== 'airing') return null;
  return { pk: SCHEDULE_DIGEST_PK, sk: r.id, id: r.id, name: r.name, score: r.score, status: r.status, broadcast: r.broadcast, aired_from: r.aired_from, aired_to: r.aired_to, episodes: r.episodes };
}

/** What version 1 computed for a review (its vector: the orderings' values and the filters of version 1's review index). */
function v1Vector(r: { id: string; kind: string; is_spoiler: boolean; title_id: string; user_id: string; created_at: string; rating: number }, helpful: number) {
  return {
    id: r.id,
    o: { created_at: r.created_at, helpful_count: helpful, rating: r.rating },
    f: { kind: [r.kind], spoiler: [String(r.is_spoiler)], title: [r.title_id], user: [r.user_id] },
    x: {},
    sw: searchText([]),
  };
}

interface CastEntry {
  character_id: string;
  role: string;
  voice_actors?: { person_id: string; language: string }[];
}

/** Version 1's reverse items of a title (its reverse-views.ts reverseItemsOf). */
function v1ReverseItems(kind: 'ANIME' | 'MANGA', record: { id: string; name: string; aired_from?: string | null }, relations: Record<string, unknown[]>, names: ReadonlyMap<string, string>): Item[] {
  const items: Item[] = [];
  const title = { id: record.id, name: record.name };
  for (const c of (relations.characters ?? []) as CastEntry[]) {
    const character = names.get(`CHARACTER#${c.character_id}`);
    if (character === undefined) continue;
    const voices = (c.voice_actors ?? []).filter((a) => names.has(`PERSON#${a.person_id}`));
    items.push({ pk: `CHARACTER#${c.character_id}#X`, sk: `${kind}#${record.id}`, v: kind === 'ANIME' ? { anime: title, role: c.role, voices } : { manga: title, role: c.role } });
    for (const a of voices) {
      items.push({
        pk: `PERSON#${a.person_id}#X`,
        sk: `VOICE#${record.id}#${c.character_id}#${a.language}`,
        v: { anime: { ...title, aired_from: record.aired_from ?? null }, character: { id: c.character_id, name: character }, role: c.role, language: a.language },
      });
    }
  }
  for (const s of (relations.staff ?? []) as { person_id: string; positions: string[] }[]) {
    if (!names.has(`PERSON#${s.person_id}`)) continue;
    items.push({ pk: `PERSON#${s.person_id}#X`, sk: `STAFF#${record.id}`, v: { anime: title, positions: s.positions } });
  }
  return items;
}

/** Version 1's fan-out of a title: the keys and hashes of its reverse items, in chunks. */
const v1FanOut = (kind: string, id: string, items: readonly Item[]): Item[] =>
  items.length === 0 ? [] : chunk(items.map((d) => [d.pk, d.sk, hashOf(d.v)])).map((keys, n) => ({ pk: `${kind}#${id}#F`, sk: String(n), keys }));

/**
 * What version 1's catalogue consumer left of a taxonomy record deleted after a title's write
 * changed one of its counts (decision Z4): every ordering entry of the record as the consumer's
 * late rewrite saw it, its record gone.
 */
export const leftOrderingEntries = <R extends BaseRecord>(def: EntityDef<R>, deleted: R): Item[] => orderingItems(def, deleted);

export interface PreviousStore {
  /** Items deleted and put to make it. */
  deleted: number;
  put: number;
}

/**
 * Rewrites the table of TABLE_NAME (written by the current code, its consumers settled) into
 * what version 1 would hold for the same records (see above). `leftLists`: recommendation lists
 * of titles deleted before, which version 1 kept; `leftEntries`: ordering entries of taxonomy
 * records deleted before, which version 1's catalogue consumer put back.
 */
export async function toVersion1(opts: { leftLists?: readonly Item[]; leftEntries?: readonly Item[] } = {}): Promise<PreviousStore> {
  const table = process.env.TABLE_NAME!;
  const all = await scanAll(table, { schema: true });
  const deletes: ItemKey[] = [];
  const puts: Item[] = [];
  const derived = new Set(Object.keys(animeIndex.derived ?? {}).map((name) => `ANIME#O#${name}#A`));
  const records = new Map<string, Item>();
  const chunks = new Map<string, Item[]>();
  for (const item of all.values()) {
    const pk = String(item.pk);
    const sk = String(item.sk);
    if (/^[A-Z]+#[^#]+$/.test(pk) && sk === 'R') records.set(pk, item);
    if (/^(ANIME|MANGA)#[^#]+$/.test(pk) && sk.startsWith('C#')) (chunks.get(pk) ?? chunks.set(pk, []).get(pk)!).push(item);
    if (isSchemaItem(item)) deletes.push(keyOf(item));
    // The titles' in-memory index
    else if (INDEXES.some((d) => pk === indexPk(d.kind))) deletes.push(keyOf(item));
    // Catalogue index
    else if (/^[A-Z]+#C#/.test(pk) && sk === 'N') deletes.push(keyOf(item));
    else if (derived.has(pk)) deletes.push(keyOf(item));
    else if (new RegExp(`^${mangaIndex.kind}#D#`).test(pk)) {
      const f = { ...(item.f as Record<string, unknown>) };
      delete f.author_role;
      puts.push({ ...item, f });
    }
    // Reviews
    else if (/^REVIEWS#(ANIME|MANGA|USER)#[^#]+#O#/.test(pk)) deletes.push(keyOf(item));
    else if (/^REVIEWS#(ANIME|MANGA)#[^#]+$/.test(pk) && sk === 'N') deletes.push(keyOf(item));
    else if (/^REVIEWS#USER#[^#]+$/.test(pk) && sk === 'N') puts.push({ pk, sk, n: item.n ?? 0 });
    else if (/^REVIEWS#USER#[^#]+$/.test(pk) && sk.startsWith('T#')) puts.push({ pk, sk, id: item.id });
    // Reverse views
    else if (/^(CHARACTER|PERSON)#[^#]+#X$/.test(pk) || /^PERSON#[^#]+#V#/.test(pk) || /^(ANIME|MANGA)#[^#]+#F$/.test(pk)) deletes.push(keyOf(item));
    // Recommendations
    else if (pk === 'RECS#JOB') {
      const { prev: _prev, ...job } = item;
      puts.push(job);
    }
  }
  // The schedule's digest.
  for (const [pk, item] of records) if (pk.startsWith(`${animeIndex.kind}#`)) puts.push(...[scheduleDigestItem(item.rec as AnimeRecord)].filter((i) => i !== null));
  // The planner's items of every title, in version 1's form.
  for (const def of INDEXES) {
    for (const [pk, item] of records) {
      if (!new RegExp(`^${def.kind}#[^#]+$`).test(pk)) continue;
      for (const i of legacyIndexItems(def, item.rec as BaseRecord)) {
        const ipk = String(i.pk);
        if (new RegExp(`^${def.kind}#D#`).test(ipk)) continue;
        if (def.kind === mangaIndex.kind) {
          const f = { ...(i.f as Record<string, unknown>) };
          delete f.author_role;
          puts.push({ ...i, f });
        } else puts.push(i);
      }
    }
  }
  // Version 1's review vectors.
  for (const [pk, item] of records) {
    if (!pk.startsWith('REVIEW#')) continue;
    const r = item.rec as Parameters<typeof v1Vector>[0];
    const vector = v1Vector(r, Number(item.hc ?? 0));
    puts.push({ pk: `REVIEWS#${r.kind.toUpperCase()}#${r.title_id}`, sk: r.id, ...vector }, { pk: `REVIEWS#USER#${r.user_id}#V`, sk: r.id, ...vector });
  }
  // Version 1's reverse items and fan-outs.
  const names = new Map<string, string>();
  for (const [pk, item] of records) if (/^(CHARACTER|PERSON)#/.test(pk)) names.set(pk, String((item.rec as { name: string }).name));
  for (const kind of ['ANIME', 'MANGA'] as const) {
    for (const [pk, item] of records) {
      if (!pk.startsWith(`${kind}#`)) continue;
      const relations: Record<string, unknown[]> = {};
      const parts = (chunks.get(pk) ?? []).sort((a, b) => Number(String(a.sk).split('#')[2]) - Number(String(b.sk).split('#')[2]));
      for (const c of parts) (relations[String(c.sk).split('#')[1]!] ??= []).push(...(c.entries as unknown[]));
      const rec = item.rec as { id: string; name: string; aired_from?: string | null };
      const reverse = v1ReverseItems(kind, rec, relations, names);
      puts.push(...reverse, ...v1FanOut(kind, rec.id, reverse));
    }
  }
  puts.push(...(opts.leftLists ?? []), ...(opts.leftEntries ?? []));
  // Puts replace deleted keys where both name one (none do: version 1's keys are other keys).
  const putKeys = new Set(puts.map((p) => `${String(p.pk)} ${String(p.sk)}`));
  const gone = deletes.filter((k) => !putKeys.has(`${k.pk} ${k.sk}`));
  await writeItems([], gone);
  await writeItems(puts);
  return { deleted: gone.length, put: puts.length };
}

/**
 * A snapshot's bytes as format version 1 encoded them (the code before schema version 4): the
 * same sections without the entries, and a header without `entries`. For a snapshot whose entries
 * are not known (built with `entriesKnown` false), which has no entries section.
 */
export const asVersion1 = (bytes: Uint8Array): Uint8Array => asFormat(bytes, 1, ['entries', 'relevance']);

/**
 * Snapshot bytes of the current format as an earlier format version wrote them: the same
 * sections, the version number `version`, and a header without the flags of the sections it
 * did not have (which must be off: those sections are absent).
 */
function asFormat(bytes: Uint8Array, version: number, flags: readonly string[]): Uint8Array {
  const r = new ByteReader(bytes);
  const magic = [r.u8(), r.u8(), r.u8(), r.u8()];
  r.u32();
  const header = JSON.parse(r.text()) as Record<string, unknown>;
  for (const flag of flags) {
    if (header[flag] !== false) throw new Error(`as format ${version}: the snapshot has ${flag}`);
    delete header[flag];
  }
  const w = new ByteWriter();
  for (const b of magic) w.u8(b);
  w.u32(version);
  w.text(JSON.stringify(header));
  w.bytes(bytes.subarray(r.at));
  return w.done();
}

/**
 * Rewrites the table of TABLE_NAME (written by the current code, its anime index published)
 * into what schema version 3 would hold for the same records: what version 4 held for `voices/`
 * (voiceItemsBefore5); the schedule's digest items; the
 * anime index's vectors without their entries — its snapshot (format version 1) and vectors
 * object as version 3 wrote them, under a new name that the pointer (same version and number)
 * names, and its deltas —; the version item at 3.
 */
export async function toVersion3(): Promise<void> {
  const all = await scanAll(process.env.TABLE_NAME!, { schema: true });
  const puts: Item[] = [{ pk: 'SCHEMA', sk: 'V', version: 3, at: new Date().toISOString() }, ...voiceItemsBefore5(all)];
  for (const item of all.values()) {
    const pk = String(item.pk);
    if (new RegExp(`^${animeIndex.kind}#[^#]+$`).test(pk) && item.sk === 'R') puts.push(...[scheduleDigestItem(item.rec as AnimeRecord)].filter((i) => i !== null));
    if (pk === indexPk(animeIndex.kind) && String(item.sk).startsWith('D#') && item.v) {
      const { e: _e, sb: _sb, ...v } = item.v as Record<string, unknown>;
      puts.push({ ...item, v });
    }
  }
  await writeItems(puts);
  await animeIndexAsVersion3();
}

/**
 * Replaces the objects of the anime index's current snapshot by those version 3 wrote for the
 * same vectors — a snapshot of format version 1 and a vectors object, without entries —, under a
 * new name that the pointer (its version and number unchanged) then names.
 */
export async function animeIndexAsVersion3(): Promise<void> {
  const def = animeIndex as unknown as IndexDef<BaseRecord>;
  const pointer = (await readPointer(def.kind))!;
  const vectors = [...(await loadVectors(def.kind, pointer)).values()].map(({ e: _e, sb: _sb, ...v }) => v);
  const name = indexVersionName(pointer.version);
  await putIndexObject(indexObjectKey(def.kind, name, 'snapshot'), new Uint8Array(gzipSync(asVersion1(encodeSnapshot(buildSnapshot(def, vectors, false))))));
  await putIndexObject(indexObjectKey(def.kind, name, 'vectors'), encodeVectors({ kind: def.kind, seq: pointer.seq, vectors }));
  await writeItems([{ ...pointerKey(def.kind), ...pointer, name }]);
}

/** Ties of a voice entry in versions 2–4's ordering partitions: the character's id, the anime's, the language padded to 12. */
const voiceTieBefore5 = (character: string, anime: string, language: string) => `${character}${anime}${language.padEnd(12, '-')}`;

/**
 * What versions 2–4 wrote for `voices/` beside the voice groups of a store the current code wrote
 * (`all`: its items): each group with its hash `h`; each voice entry in the six partitions
 * `PERSON#<p>#V#<ordering>#A|D` (aired_from, anime_name, character_name; sort key: the value, then
 * the ties above), holding `a`, `c`, `r`, `l`; each person's counts `VN` and per character
 * `VC#<c>` (`n` and one number per `<language>:<role>`).
 */
function voiceItemsBefore5(all: ReadonlyMap<string, Item>): Item[] {
  const rec = (pk: string) => all.get(`${pk} R`)?.rec as { name: string; aired_from?: string | null } | undefined;
  const out: Item[] = [];
  const counts = new Map<string, Record<string, number>>();
  const add = (pk: string, sk: string, language: string, role: string) => {
    const key = `${pk} ${sk}`;
    const c = counts.get(key) ?? counts.set(key, { n: 0 }).get(key)!;
    c.n! += 1;
    c[`${language}:${role}`] = (c[`${language}:${role}`] ?? 0) + 1;
  };
  for (const g of all.values()) {
    const pk = String(g.pk);
    if (!/^PERSON#[^#]+#X$/.test(pk) || !String(g.sk).startsWith('VA#')) continue;
    const person = pk.split('#')[1]!;
    const a = String(g.sk).slice(3);
    const entries = g.e as [string, string, string][];
    out.push({ ...g, h: hashOf(entries) });
    const anime = rec(`ANIME#${a}`)!;
    for (const [c, language, role] of entries) {
      const values = { aired_from: [anime.aired_from ?? null, 'plain'], anime_name: [anime.name, 'text'], character_name: [rec(`CHARACTER#${c}`)!.name, 'text'] } as const;
      for (const [ordering, [value, type]] of Object.entries(values)) {
        for (const dir of ['asc', 'desc'] as const) out.push({ pk: `PERSON#${person}#V#${ordering}#${dir === 'asc' ? 'A' : 'D'}`, sk: sortKey(value, type, voiceTieBefore5(c, a, language), dir), a, c, r: role, l: language });
      }
      add(pk, 'VN', language, role);
      add(pk, `VC#${c}`, language, role);
    }
  }
  for (const [key, c] of counts) {
    const [pk, sk] = key.split(' ');
    out.push({ pk, sk, ...c });
  }
  return out;
}

/**
 * Rewrites the table of TABLE_NAME (written by the current code) into what schema version 4
 * would hold for the same records: voiceItemsBefore5 added, the version item at 4.
 */
export async function toVersion4(): Promise<number> {
  const all = await scanAll(process.env.TABLE_NAME!, { schema: true });
  const puts = voiceItemsBefore5(all);
  await writeItems([{ pk: 'SCHEMA', sk: 'V', version: 4, at: new Date().toISOString() }, ...puts]);
  return puts.filter((i) => !String(i.sk).startsWith('VA#')).length;
}

/**
 * Rewrites the table of TABLE_NAME (written by the current code) into what schema version 5
 * would hold for the same records: genres and themes without `explicit` (their records and the
 * copies their ordering entries carry), the version item at 5. Returns the records changed.
 */
export async function toVersion5(): Promise<Item[]> {
  const all = await scanAll(process.env.TABLE_NAME!, { schema: true });
  const puts: Item[] = [];
  for (const item of all.values()) {
    if (!/^(GENRE|THEME)#/.test(String(item.pk)) || typeof item.rec !== 'object' || item.rec === null) continue;
    const { explicit: _explicit, ...rec } = item.rec as Record<string, unknown>;
    puts.push({ ...item, rec });
  }
  await writeItems([{ pk: 'SCHEMA', sk: 'V', version: 5, at: new Date().toISOString() }, ...puts]);
  return puts.filter((i) => i.sk === 'R');
}

/** Snapshot bytes of the current format, without relevance words, as format version 2 wrote them: a header without `relevance`. */
export const asVersion2 = (bytes: Uint8Array): Uint8Array => asFormat(bytes, 2, ['relevance']);

/**
 * Rewrites the table of TABLE_NAME (written by the current code, every title index published)
 * into what schema version 6 would hold: each index's vectors without the runs of each field
 * (`sb`) — its snapshot (format version 2, no relevance words) and vectors object under a new
 * name that the pointer (same version and number) names, and its deltas —; the version item at 6.
 */
export async function toVersion6(): Promise<void> {
  const all = await scanAll(process.env.TABLE_NAME!, { schema: true });
  const puts: Item[] = [{ pk: 'SCHEMA', sk: 'V', version: 6, at: new Date().toISOString() }];
  for (const item of all.values()) {
    if (INDEXES.some((d) => String(item.pk) === indexPk(d.kind)) && String(item.sk).startsWith('D#') && item.v) {
      const { sb: _sb, ...v } = item.v as Record<string, unknown>;
      puts.push({ ...item, v });
    }
  }
  for (const def of INDEXES) {
    const pointer = await readPointer(def.kind);
    if (!pointer) continue;
    const vectors = [...(await loadVectors(def.kind, pointer)).values()].map(({ sb: _sb, ...v }) => v);
    const name = indexVersionName(pointer.version);
    await putIndexObject(indexObjectKey(def.kind, name, 'snapshot'), new Uint8Array(gzipSync(asVersion2(encodeSnapshot(buildSnapshot(def, vectors))))));
    await putIndexObject(indexObjectKey(def.kind, name, 'vectors'), encodeVectors({ kind: def.kind, seq: pointer.seq, vectors }));
    puts.push({ ...pointerKey(def.kind), ...pointer, name });
  }
  await writeItems(puts);
}
