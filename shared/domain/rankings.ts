/**
 * One run of the rankings job (API.md §5.1 "job" numbers, §4.20, §4.2 `members/`, §5.5;
 * docs/decisions.md K1–K8):
 *
 *  1. Take the lease (one run at a time; a run that finds it held does nothing).
 *  2. Read: every anime and manga (their slots, then each title's partition: the record with its
 *     counters, the cast and staff chunks) and, for each title with members, who lists it and
 *     which of them hold it as a favourite (`ANIME#<id>#L`); the characters and persons whose
 *     stored numbers are not zero (their indexes' vectors: index-reader.ts indexVectors); the top lists.
 *  3. Compute: `rank` and `popularity` per kind from the counters; per character the distinct
 *     users of the titles it appears in (any item: `members`; a favourite: `favorites`), per
 *     person the distinct users holding a favourite of a title crediting it (anime staff, anime
 *     voice actors, manga authors) — users are numbered once, and each character's union is
 *     counted by stamping the users of its titles (no set per character).
 *  4. Write what changed, records first: a title's numbers in its record (`score`, `scored_by`,
 *     `members`, `favorites` — what its index orders by — at its revision, with its index delta
 *     whose vector changed), its positions beside its counters (`st_rank`, `st_popularity`), a
 *     character's or person's numbers (at its revision, with its delta). Then, if every
 *     record was written, the top lists (entries moved, put, deleted). Then `refreshed_at`, in the
 *     transaction that releases the lease.
 *
 * A run that fails leaves `refreshed_at` and the top lists as the last completed run left them
 * (if it fails while writing records, the records written so far show their new numbers: K5).
 * Idempotent: a second run over the same data writes nothing but `refreshed_at`.
 */
import { randomUUID } from 'node:crypto';
import { mapLimit } from '../concurrency.js';
import type { Vector } from '../db/catalogue-index.js';
import { indexVectors } from './index-reader.js';
import { characterIndex } from '../db/characters.js';
import { personIndex } from '../db/persons.js';
import { listingUsers } from '../db/playlists.js';
import {
  characterEntries,
  completeRun,
  personEntries,
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
import { animes } from './animes.js';
import { characters } from './characters.js';
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

type AnyTitle = TitleResource<BaseRecord>;
const KINDS: { kind: TitleKind; resource: AnyTitle; list: PlaylistKind }[] = [
  { kind: 'ANIME', resource: animes as unknown as AnyTitle, list: ANIME_LIST },
  { kind: 'MANGA', resource: mangas as unknown as AnyTitle, list: MANGA_LIST },
];

/** The numbers of a title the job writes into its record (what its index orders by). */
type TitleNumbers = Pick<RankedTitle, 'score' | 'scored_by' | 'members' | 'favorites'>;
const NUMBER_KEYS = ['score', 'scored_by', 'members', 'favorites'] as const;

/** What a run keeps of a title: its numbers now and as stored, and who lists it (user numbers). */
interface TitleFacts {
  kind: TitleKind;
  id: string;
  name: string;
  created_at: string;
  f: { media_type: string; status: string };
  numbers: TitleNumbers;
  stored: TitleNumbers;
  positions: { rank: number | null; popularity: number | null };
  characters: string[];
  persons: string[];
  users: number[];
  favourites: number[];
}

export interface RankingsSummary {
  /** Another run held the lease: this one did nothing. */
  skipped?: true;
  animes: number;
  mangas: number;
  users: number;
  /** Items written, by kind of write (records with their deltas count as one each). */
  written: { titles: number; positions: number; characters: number; persons: number; entries: number };
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
  for (const { kind, resource, list } of KINDS) {
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
 * Writes a record's new numbers at its revision, with its index delta (a title write
 * keeping `updated_at`, title-writes.ts); returns the record as written, or `null` when it is
 * gone. Numbers already there: nothing is written.
 */
async function writeNumbers(resource: AnyTitle, id: string, numbers: Record<string, number | null>): Promise<{ record: BaseRecord; written: boolean } | null> {
  let out: { record: BaseRecord; written: boolean } | null = null;
  await writeTitle(resource, async () => {
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
    const after = { ...before.record, ...numbers } as BaseRecord;
    out = { record: after, written: true };
    return { before, after, relations: before.relations };
  });
  return out;
}

const sameNumbers = (a: TitleNumbers, b: TitleNumbers) => NUMBER_KEYS.every((k) => a[k] === b[k]);
const numberOf = (v: Vector, ordering: string) => Number(v.o[ordering] ?? 0);

export async function runRankings(opts: { leaseMs: number; now?: () => Date }): Promise<RankingsSummary> {
  const now = opts.now ?? (() => new Date());
  const owner = randomUUID();
  const written = { titles: 0, positions: 0, characters: 0, persons: 0, entries: 0 };
  const empty = { animes: 0, mangas: 0, users: 0, written, failed: 0, refreshed_at: null };
  if (!(await takeLease(owner, now().getTime(), now().getTime() + opts.leaseMs))) return { skipped: true, ...empty };
  try {
    // 2. Read.
    const users = new UserNumbers();
    const [titles, storedCharacters, storedPersons, lists] = await Promise.all([
      readTitles(users),
      indexVectors(characterIndex).then((all) => [...all.values()].filter((v) => numberOf(v, 'members') >= 1)),
      indexVectors(personIndex).then((all) => [...all.values()].filter((v) => numberOf(v, 'favorites') >= 1)),
      Promise.all(TOP_LISTS.map(async (list) => [list, await readTopList(list)] as const)),
    ]);

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
    const desired = new Map<TopList, TopEntry[]>(TOP_LISTS.map((l) => [l, []]));
    const add = (entries: [TopList, TopEntry][]) => entries.forEach(([list, e]) => desired.get(list)!.push(e));

    await mapLimit(titles, WRITES_IN_FLIGHT, (t) =>
      attempt(async () => {
        const resource = KINDS.find((k) => k.kind === t.kind)!.resource;
        if (!sameNumbers(t.numbers, t.stored)) {
          const done = await writeNumbers(resource, t.id, { ...t.numbers });
          if (!done) return; // deleted meanwhile: in no list
          if (done.written) written.titles++;
        }
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
    const stored = new Map(storedCharacters.map((v) => [v.id, v]));
    const characterIds = new Set([...stored.keys(), ...characterNumbers.keys()]);
    await mapLimit([...characterIds], WRITES_IN_FLIGHT, (id) =>
      attempt(async () => {
        const want = characterNumbers.get(id) ?? { favorites: 0, members: 0 };
        const v = stored.get(id);
        let name = v ? String(v.o.name) : null;
        if (!v || numberOf(v, 'favorites') !== want.favorites || numberOf(v, 'members') !== want.members) {
          const done = await writeNumbers(characters as unknown as AnyTitle, id, want);
          if (!done) return; // a deleted character still named by a cast its cleanup has not reached
          if (done.written) written.characters++;
          name = (done.record as unknown as { name: string }).name;
        }
        add(characterEntries({ id, name: name!, ...want }));
      }),
    );
    const storedP = new Map(storedPersons.map((v) => [v.id, v]));
    const personIds = new Set([...storedP.keys(), ...personFavorites.keys()]);
    await mapLimit([...personIds], WRITES_IN_FLIGHT, (id) =>
      attempt(async () => {
        const favorites = personFavorites.get(id) ?? 0;
        const v = storedP.get(id);
        let person = v ? { name: String(v.o.name), category: v.f.category?.[0] ?? '' } : null;
        if (!v || numberOf(v, 'favorites') !== favorites) {
          const done = await writeNumbers(persons as unknown as AnyTitle, id, { favorites });
          if (!done) return;
          if (done.written) written.persons++;
          const r = done.record as unknown as { name: string; category: string };
          person = { name: r.name, category: r.category };
        }
        add(personEntries({ id, favorites, ...person! }));
      }),
    );
    if (failed > 0) throw new Error(`rankings: ${failed} records not written (the top lists and refreshed_at stay as the last run left them; the next run writes them)`);

    // 5. The top lists, then refreshed_at with the lease's release.
    for (const [list, existing] of lists) written.entries += await replaceTopList(list, existing, desired.get(list)!);
    const refreshedAt = now().toISOString();
    await completeRun(owner, refreshedAt);
    return {
      animes: titles.filter((t) => t.kind === 'ANIME').length,
      mangas: titles.filter((t) => t.kind === 'MANGA').length,
      users: users.size,
      written,
      failed,
      refreshed_at: refreshedAt,
    };
  } catch (err) {
    await releaseLease(owner).catch(() => undefined);
    throw err;
  }
}
