/**
 * One run of the rankings job (API.md §5.1 "job" numbers, §4.20, §4.2 `members/`, §5.5;
 * docs/decisions.md K1–K8, O13):
 *
 *  1. Take the lease (one run at a time; a run that finds it held does nothing).
 *  2. Read: every anime and manga (their slots, then each title's partition: the record with its
 *     counters, the cast and staff chunks) and, for each title with members, who lists it and
 *     which of them hold it as a favourite (`ANIME#<id>#L`); the characters' and persons'
 *     vectors (their indexes: index-reader.ts indexVectors); the top lists; the job's state.
 *  3. Compute: `rank` and `popularity` per kind from the counters; per character the distinct
 *     users of the titles it appears in (any item: `members`; a favourite: `favorites`), per
 *     person the distinct users holding a favourite of a title crediting it (anime staff, anime
 *     voice actors, manga authors) — users are numbered once, and each character's union is
 *     counted by stamping the users of its titles (no set per character).
 *  4. Write what changed, records first, without index deltas (writeTitle `index: 'patched'`):
 *     a title's numbers in its record (`score`, `scored_by`, `members`, `favorites` — what its
 *     index orders by — at its revision), its positions beside its counters (`st_rank`,
 *     `st_popularity`), a character's or person's numbers (at its revision) where its index's
 *     numbers differ from the run's — every character and person, records read, when the state
 *     says a run left numbers unpublished (a record may then differ from its index). The state is
 *     marked `unpublished` before the first record write.
 *  5. Publish, per kind (animes, mangas, characters, persons): the index's current vectors
 *     (read afresh) are compared with the values the run's numbers give them (IndexDef.ranked,
 *     computed with vectorOf as a write indexes a record), and those that differ go to the
 *     compactor as one patch (compactIndex `patch`), built again when another compaction moved
 *     the pointer first (PUBLISH_TRIES). Compared with the index, not the records: numbers a
 *     failed run wrote but did not publish are published by the next. Records first, then the
 *     patch: a write racing the run either committed before the job's record write (its delta
 *     is folded, then patched over) or failed on the revision and read the new numbers, so its
 *     delta carries them (docs/decisions.md O13).
 *  6. If every record was written and published, the top lists (entries moved, put, deleted).
 *     Then `refreshed_at`, in the transaction that releases the lease (and clears `unpublished`).
 *
 * A run that fails leaves `refreshed_at` and the top lists as the last completed run left them
 * (if it fails while writing records, the records written so far show their new numbers — K5 —
 * and are published; if publishing fails, the next run publishes them).
 * Idempotent: a second run over the same data writes nothing but `refreshed_at`.
 */
import { randomUUID } from 'node:crypto';
import { mapLimit } from '../concurrency.js';
import { vectorFields, vectorOf, type IndexDef, type Vector } from '../db/catalogue-index.js';
import { animeIndex } from '../db/animes.js';
import { characterIndex } from '../db/characters.js';
import { mangaIndex } from '../db/mangas.js';
import { personIndex } from '../db/persons.js';
import { listingUsers } from '../db/playlists.js';
import {
  characterEntries,
  completeRun,
  markUnpublished,
  personEntries,
  readState,
  readTopList,
  releaseLease,
  replaceTopList,
  setPositions,
  takeLease,
  titleEntries,
  TOP_LISTS,
  type TitleKind,
  type TopEntry,
  type TopList,
} from '../db/rankings.js';
import type { BaseRecord } from '../db/records.js';
import { slottedIds } from '../db/slots.js';
import { derivedNumbers, popularityOrder, rankOrder, type RankedTitle } from '../db/titles.js';
import { canonicalJson } from '../json.js';
import { animes } from './animes.js';
import { characters } from './characters.js';
import { compactIndex, compactionKeys, type VectorPatch } from './index-compaction.js';
import { indexVectors } from './index-reader.js';
import { mangas } from './mangas.js';
import { persons } from './persons.js';
import { ANIME_LIST, MANGA_LIST, type PlaylistKind } from './playlists.js';
import type { TitleResource } from './title-resource.js';
import { loadCurrent, writeTitle } from './title-writes.js';

/** Title partitions and listings read at once; record writes at once. */
const READS_IN_FLIGHT = 16;
const WRITES_IN_FLIGHT = 8;
/** Listing users per Query (each ~80 B: well within one 1 MB page). */
const LISTING_PAGE = 5_000;
/** How often a kind's patch is built and compacted again when another compaction moved the pointer first. */
const PUBLISH_TRIES = 5;

type AnyTitle = TitleResource<BaseRecord>;
type AnyIndex = IndexDef<BaseRecord>;
const KINDS: { kind: TitleKind; resource: AnyTitle; list: PlaylistKind; index: AnyIndex }[] = [
  { kind: 'ANIME', resource: animes as unknown as AnyTitle, list: ANIME_LIST, index: animeIndex as unknown as AnyIndex },
  { kind: 'MANGA', resource: mangas as unknown as AnyTitle, list: MANGA_LIST, index: mangaIndex as unknown as AnyIndex },
];
/** The kinds whose numbers a run publishes, in that order. */
export type PublishedKind = TitleKind | 'CHARACTER' | 'PERSON';
/** What publishing does to the table: the compactions of those kinds' indexes (its function also writes their objects: `index: 'compact'`). */
export const RANKINGS_INDEX_KEYS = compactionKeys(['ANIME', 'MANGA', 'CHARACTER', 'PERSON'] satisfies PublishedKind[]);
const INDEXES: Record<PublishedKind, AnyIndex> = {
  ANIME: animeIndex as unknown as AnyIndex,
  MANGA: mangaIndex as unknown as AnyIndex,
  CHARACTER: characterIndex as unknown as AnyIndex,
  PERSON: personIndex as unknown as AnyIndex,
};

/** The numbers of a title the job writes into its record (what its index orders by). */
type TitleNumbers = Pick<RankedTitle, 'score' | 'scored_by' | 'members' | 'favorites'>;
const NUMBER_KEYS = ['score', 'scored_by', 'members', 'favorites'] as const;

/** A record's vector values that derive from the job's numbers (IndexDef.ranked). */
type RankedValues = Pick<Vector, 'o' | 'x'>;

/** The ranked values a record has with `numbers` (vectorOf: as a write indexes it). */
const rankedValues = (def: AnyIndex, record: BaseRecord, numbers: Record<string, number | null>): RankedValues =>
  vectorFields(vectorOf(def, { ...record, ...numbers } as BaseRecord), def.ranked!);

/** What a run keeps of a title: its numbers now and as stored, and who lists it (user numbers). */
interface TitleFacts {
  kind: TitleKind;
  id: string;
  name: string;
  created_at: string;
  f: { media_type: string; status: string };
  numbers: TitleNumbers;
  stored: TitleNumbers;
  /** The ranked values its new numbers give: what the run publishes of it. */
  ranked: RankedValues;
  positions: { rank: number | null; popularity: number | null };
  characters: string[];
  persons: string[];
  users: number[];
  favourites: number[];
}

/** What a run published of a kind: how many records its patch changed, and the snapshot's version (null: nothing to publish). */
export interface Published {
  patched: number;
  version: number | null;
}

export interface RankingsSummary {
  /** Another run held the lease: this one did nothing. */
  skipped?: true;
  animes: number;
  mangas: number;
  users: number;
  /** Items written, by kind of write (a record is one item: no index delta). */
  written: { titles: number; positions: number; characters: number; persons: number; entries: number };
  /** The numbers published through the compactor's patch, per kind. */
  published: Record<PublishedKind, Published>;
  failed: number;
  refreshed_at: string | null;
}

/** Numbers users from 0 on first sight. */
class UserNumbers {
  private readonly ids = new Map<string, number>();
  of(id: string): number {
    let n = this.ids.get(id);
    if (n === undefined) this.ids.set(id, (n = this.ids.size));
    return n;
  }
  get size(): number {
    return this.ids.size;
  }
}

/** Who lists a title: every listed posting (pages of LISTING_PAGE). */
async function listing(kind: PlaylistKind, titleId: string) {
  const all: Awaited<ReturnType<typeof listingUsers>> = [];
  for (let after: string | undefined; ; ) {
    const page = await listingUsers(kind, titleId, LISTING_PAGE, after);
    all.push(...page);
    if (page.length < LISTING_PAGE) return all;
    after = page.at(-1)!.userId;
  }
}

/** The characters a title's cast names and the persons it credits (anime staff and voice actors, manga authors). */
function creditsOf(kind: TitleKind, record: BaseRecord, relations: Record<string, readonly unknown[]>) {
  const cast = (relations.characters ?? []) as { character_id: string; voice_actors?: { person_id: string }[] }[];
  const persons =
    kind === 'ANIME'
      ? [...((relations.staff ?? []) as { person_id: string }[]).map((s) => s.person_id), ...cast.flatMap((c) => (c.voice_actors ?? []).map((v) => v.person_id))]
      : ((record as unknown as { authors: { id: string }[] }).authors ?? []).map((a) => a.id);
  return { characters: [...new Set(cast.map((c) => c.character_id))], persons: [...new Set(persons)] };
}

async function readTitles(users: UserNumbers): Promise<TitleFacts[]> {
  const out: TitleFacts[] = [];
  for (const { kind, resource, list, index } of KINDS) {
    const ids = await slottedIds(kind);
    const facts = await mapLimit(ids, READS_IN_FLIGHT, async (id): Promise<TitleFacts | null> => {
      // As a write reads it (a journal left by an interrupted write is finished first).
      const stored = await loadCurrent(resource, id);
      if (!stored) return null;
      const r = stored.record as unknown as RankedTitle & { media_type: string; status: string };
      const numbers = derivedNumbers(list.statuses, stored.stats ?? {});
      // A listed posting exists only with its item, in the transaction that counts it.
      const listed = numbers.members > 0 ? await listing(list, id) : [];
      return {
        kind,
        id,
        name: r.name,
        created_at: r.created_at,
        f: { media_type: r.media_type, status: r.status },
        numbers,
        stored: { score: r.score, scored_by: r.scored_by, members: r.members, favorites: r.favorites },
        ranked: rankedValues(index, stored.record, { ...numbers }),
        positions: { rank: stored.stats?.rank ?? null, popularity: stored.stats?.popularity ?? null },
        ...creditsOf(kind, stored.record, stored.relations),
        users: listed.map((l) => users.of(l.userId)),
        favourites: listed.filter((l) => l.fav).map((l) => users.of(l.userId)),
      };
    });
    out.push(...facts.filter((f): f is TitleFacts => f !== null));
  }
  return out;
}

/** §5.1 `rank` and `popularity` of one kind's titles: positions in the orders of titles.ts (rankOrder, popularityOrder), then id. */
function positionsOf(titles: readonly TitleFacts[]): Map<string, { rank: number | null; popularity: number | null }> {
  const out = new Map(titles.map((t) => [t.id, { rank: null as number | null, popularity: null as number | null }]));
  const place = (key: (t: TitleFacts) => string | null, field: 'rank' | 'popularity') => {
    titles
      .map((t) => ({ t, k: key(t) }))
      .filter((x): x is { t: TitleFacts; k: string } => x.k !== null)
      // Keys are ASCII (digits and ISO timestamps) and ids [A-Za-z0-9_-]: `<` is code point order.
      .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.t.id < b.t.id ? -1 : 1))
      .forEach((x, i) => (out.get(x.t.id)![field] = i + 1));
  };
  place((t) => rankOrder({ ...t.numbers, created_at: t.created_at, id: t.id }), 'rank');
  place((t) => popularityOrder({ ...t.numbers, created_at: t.created_at, id: t.id }), 'popularity');
  return out;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

/**
 * Distinct users per character (of its titles' items: `members`; of their favourites:
 * `favorites`) and per person (favourites of the titles crediting it). Each union is counted by
 * stamping users with the record's number, so nothing is cleared between records.
 */
function distinctUsers(titles: readonly TitleFacts[], userCount: number) {
  const byCharacter = new Map<string, TitleFacts[]>();
  const byPerson = new Map<string, TitleFacts[]>();
  for (const t of titles) {
    if (t.users.length === 0) continue;
    for (const c of t.characters) push(byCharacter, c, t);
    if (t.favourites.length > 0) for (const p of t.persons) push(byPerson, p, t);
  }
  const seen = new Int32Array(userCount).fill(-1);
  const seenFav = new Int32Array(userCount).fill(-1);
  let stamp = 0;
  const count = (users: readonly number[], marks: Int32Array) => {
    let n = 0;
    for (const u of users) {
      if (marks[u] === stamp) continue;
      marks[u] = stamp;
      n++;
    }
    return n;
  };
  const characterNumbers = new Map<string, { favorites: number; members: number }>();
  for (const [id, ts] of byCharacter) {
    stamp++;
    let members = 0;
    let favorites = 0;
    for (const t of ts) {
      members += count(t.users, seen);
      favorites += count(t.favourites, seenFav);
    }
    characterNumbers.set(id, { favorites, members });
  }
  const personFavorites = new Map<string, number>();
  for (const [id, ts] of byPerson) {
    stamp++;
    let favorites = 0;
    for (const t of ts) favorites += count(t.favourites, seenFav);
    if (favorites > 0) personFavorites.set(id, favorites);
  }
  return { characterNumbers, personFavorites };
}

/**
 * Writes a record's new numbers at its revision, without an index delta (writeTitle `index:
 * 'patched'`: the run publishes them afterwards), marking the state `unpublished` before it
 * writes; keeps `updated_at`. Returns the record as written, or `null` when it is gone. Numbers
 * already there: nothing is written.
 */
async function writeNumbers(resource: AnyTitle, id: string, numbers: Record<string, number | null>, mark: () => Promise<void>): Promise<{ record: BaseRecord; written: boolean } | null> {
  let out: { record: BaseRecord; written: boolean } | null = null;
  await writeTitle(
    resource,
    async () => {
      const before = await loadCurrent(resource, id);
      if (!before) {
        out = null;
        return 'done';
      }
      const r = before.record as unknown as Record<string, unknown>;
      if (Object.entries(numbers).every(([k, v]) => r[k] === v)) {
        out = { record: before.record, written: false };
        return 'done';
      }
      await mark();
      const after = { ...before.record, ...numbers } as BaseRecord;
      out = { record: after, written: true };
      return { before, after, relations: before.relations };
    },
    { index: 'patched' },
  );
  return out;
}

/**
 * Publishes the ranked values `want` (by id) of a kind: those its index's current vectors do
 * not hold go to the compactor as one patch. Read and built again when another compaction moved
 * the pointer first; an Error after PUBLISH_TRIES. Records the index does not hold (deleted
 * meanwhile) are left out.
 */
async function publish(def: AnyIndex, want: ReadonlyMap<string, RankedValues>): Promise<Published> {
  for (let attempt = 1; attempt <= PUBLISH_TRIES; attempt++) {
    // Read afresh (the pointer and every delta now): nothing a held copy may lag behind.
    const current = await indexVectors(def);
    const patch = new Map<string, RankedValues>();
    for (const [id, values] of want) {
      const v = current.get(id);
      if (v && canonicalJson(vectorFields(v, def.ranked!)) !== canonicalJson(values)) patch.set(id, values);
    }
    if (patch.size === 0) return { patched: 0, version: null };
    const done = await compactIndex(def, { patch: patch as VectorPatch });
    if (done.version !== null) return { patched: patch.size, version: done.version };
  }
  throw new Error(`rankings: the ${def.kind} numbers were not published (other compactions moved the pointer first ${PUBLISH_TRIES} times)`);
}

const sameNumbers = (a: TitleNumbers, b: TitleNumbers) => NUMBER_KEYS.every((k) => a[k] === b[k]);
const numberOf = (v: Vector, ordering: string) => Number(v.o[ordering] ?? 0);
const nothingPublished = (): Record<PublishedKind, Published> => ({
  ANIME: { patched: 0, version: null },
  MANGA: { patched: 0, version: null },
  CHARACTER: { patched: 0, version: null },
  PERSON: { patched: 0, version: null },
});

export async function runRankings(opts: { leaseMs: number; now?: () => Date }): Promise<RankingsSummary> {
  const now = opts.now ?? (() => new Date());
  const owner = randomUUID();
  const written = { titles: 0, positions: 0, characters: 0, persons: 0, entries: 0 };
  const published = nothingPublished();
  const empty = { animes: 0, mangas: 0, users: 0, written, published, failed: 0, refreshed_at: null };
  if (!(await takeLease(owner, now().getTime(), now().getTime() + opts.leaseMs))) return { skipped: true, ...empty };
  try {
    // 2. Read.
    const users = new UserNumbers();
    const [titles, allCharacters, allPersons, lists, state] = await Promise.all([
      readTitles(users),
      indexVectors(characterIndex),
      indexVectors(personIndex),
      Promise.all(TOP_LISTS.map(async (list) => [list, await readTopList(list)] as const)),
      readState(),
    ]);
    // After a run that left numbers unpublished, a character's or person's record may differ from its index: each is read.
    const checkAll = state.unpublished;

    // 3. Compute.
    const positions = new Map<string, { rank: number | null; popularity: number | null }>();
    for (const { kind } of KINDS) for (const [id, p] of positionsOf(titles.filter((t) => t.kind === kind))) positions.set(`${kind}#${id}`, p);
    const { characterNumbers, personFavorites } = distinctUsers(titles, users.size);

    // 4. Records first; a record that cannot be written fails the run after the others are tried.
    let failed = 0;
    const attempt = async (work: () => Promise<void>) => {
      try {
        await work();
      } catch (err) {
        failed++;
        console.error('rankings: a record was not written', err);
      }
    };
    let marked: Promise<void> | undefined;
    const mark = () => (marked ??= markUnpublished());
    const desired = new Map<TopList, TopEntry[]>(TOP_LISTS.map((l) => [l, []]));
    const add = (entries: [TopList, TopEntry][]) => entries.forEach(([list, e]) => desired.get(list)!.push(e));
    // What each kind's index should hold of the run's numbers (step 5).
    const want = new Map<PublishedKind, Map<string, RankedValues>>(Object.keys(INDEXES).map((k) => [k as PublishedKind, new Map()]));

    await mapLimit(titles, WRITES_IN_FLIGHT, (t) =>
      attempt(async () => {
        const resource = KINDS.find((k) => k.kind === t.kind)!.resource;
        if (!sameNumbers(t.numbers, t.stored)) {
          const done = await writeNumbers(resource, t.id, { ...t.numbers }, mark);
          if (!done) return; // deleted meanwhile: in no list
          if (done.written) written.titles++;
        }
        want.get(t.kind)!.set(t.id, t.ranked);
        const p = positions.get(`${t.kind}#${t.id}`)!;
        if (p.rank !== t.positions.rank || p.popularity !== t.positions.popularity) {
          if (!(await setPositions(t.kind, t.id, p.rank, p.popularity))) return;
          written.positions++;
        }
        const order = { ...t.numbers, created_at: t.created_at, id: t.id };
        add(titleEntries(t.kind, { id: t.id, name: t.name, rank: rankOrder(order), popularity: popularityOrder(order), favorites: t.numbers.favorites, f: t.f }));
      }),
    );

    // Characters and persons: those with new numbers are written; the others keep their entries' values.
    const storedCharacters = new Map([...allCharacters].filter(([, v]) => checkAll || numberOf(v, 'members') >= 1));
    const characterIds = new Set([...storedCharacters.keys(), ...characterNumbers.keys()]);
    await mapLimit([...characterIds], WRITES_IN_FLIGHT, (id) =>
      attempt(async () => {
        const numbers = characterNumbers.get(id) ?? { favorites: 0, members: 0 };
        const v = storedCharacters.get(id);
        let name = v ? String(v.o.name) : null;
        if (checkAll || !v || numberOf(v, 'favorites') !== numbers.favorites || numberOf(v, 'members') !== numbers.members) {
          const done = await writeNumbers(characters as unknown as AnyTitle, id, numbers, mark);
          if (!done) return; // a deleted character still named by a cast its cleanup has not reached
          if (done.written) written.characters++;
          want.get('CHARACTER')!.set(id, rankedValues(characterIndex as unknown as AnyIndex, done.record, numbers));
          name = (done.record as unknown as { name: string }).name;
        }
        add(characterEntries({ id, name: name!, ...numbers }));
      }),
    );
    const storedPersons = new Map([...allPersons].filter(([, v]) => checkAll || numberOf(v, 'favorites') >= 1));
    const personIds = new Set([...storedPersons.keys(), ...personFavorites.keys()]);
    await mapLimit([...personIds], WRITES_IN_FLIGHT, (id) =>
      attempt(async () => {
        const favorites = personFavorites.get(id) ?? 0;
        const v = storedPersons.get(id);
        let person = v ? { name: String(v.o.name), category: v.f.category?.[0] ?? '' } : null;
        if (checkAll || !v || numberOf(v, 'favorites') !== favorites) {
          const done = await writeNumbers(persons as unknown as AnyTitle, id, { favorites }, mark);
          if (!done) return;
          if (done.written) written.persons++;
          want.get('PERSON')!.set(id, rankedValues(personIndex as unknown as AnyIndex, done.record, { favorites }));
          const r = done.record as unknown as { name: string; category: string };
          person = { name: r.name, category: r.category };
        }
        add(personEntries({ id, favorites, ...person! }));
      }),
    );

    // 5. Publish what was written (also when some records were not: those are written and published by the next run).
    for (const [kind, values] of want) {
      try {
        published[kind] = await publish(INDEXES[kind], values);
      } catch (err) {
        failed++;
        console.error(`rankings: the ${kind} numbers were not published`, err);
      }
    }
    if (failed > 0) throw new Error(`rankings: ${failed} records not written or kinds not published (the top lists and refreshed_at stay as the last run left them; the next run writes them)`);

    // 6. The top lists, then refreshed_at with the lease's release.
    for (const [list, existing] of lists) written.entries += await replaceTopList(list, existing, desired.get(list)!);
    const refreshedAt = now().toISOString();
    await completeRun(owner, refreshedAt);
    return {
      animes: titles.filter((t) => t.kind === 'ANIME').length,
      mangas: titles.filter((t) => t.kind === 'MANGA').length,
      users: users.size,
      written,
      published,
      failed,
      refreshed_at: refreshedAt,
    };
  } catch (err) {
    await releaseLease(owner).catch(() => undefined);
    throw err;
  }
}
