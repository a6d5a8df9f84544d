/**
 * The catalogue index's planner (shared/db/catalogue-index.ts) against an independent
 * evaluation of the contract's list rules (test/support/reference-list.ts): random animes
 * (titles with shared words, accents, apostrophes, kana and kanji; every filter attribute;
 * nulls), written through the title write path, and random queries over every filter, every
 * ordering in both directions and `q`. Each query is walked to the end with `next` and back to
 * the start with `previous`, under both strategies (a driver list read whole, and a walk of the
 * ordering partition); the records must be exactly the matching ones, in exactly the order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { animeEntity, animeIndex, ANIME_RELATIONS, type AnimeRecord } from '../../shared/db/animes.js';
import { queryIndex, type IndexQuery } from '../../shared/db/catalogue-index.js';
import { counterKeyOf } from '../../shared/db/records.js';
import { commitStaged } from '../../shared/db/staged.js';
import { titleWrite, type TitleDef } from '../../shared/db/titles.js';
import type { Cursor } from '../../shared/http/cursor.js';
import { newId } from '../../shared/ids.js';
import { queryTerms } from '../../shared/text.js';
import { referenceList } from '../support/reference-list.js';

const WORDS = ['Shingeki', 'no', 'Kyojin', 'Pokémon', "JoJo's", 'Café', 'cafe', 'Ōkami', 'school', 'Sch', 'Love', 'live', 'x', '2', '進撃の巨人', '魔法少女', 'ショー', 'ß', 'Straße'];
const GENRES = ['GenreAAAAAAAAAAAAAAAAA', 'GenreBBBBBBBBBBBBBBBBBB', 'GenreCCCCCCCCCCCCCCCCCC'];
const STUDIOS = ['StudioAAAAAAAAAAAAAAAA', 'StudioBBBBBBBBBBBBBBBB'];
const MEDIA = ['tv', 'movie', 'ova'];
const STATUS = ['finished', 'airing'];
const RATINGS = [null, 'pg13', 'r'];
const SEASONS = ['winter', 'spring', 'summer', 'fall'];
const ORDERINGS = Object.keys(animeIndex.orderings);

const title = () => fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const subset = (values: readonly string[]) => fc.subarray([...values]);

const animeArb = fc.record({
  name: title(),
  name_jpn: fc.constantFrom('', '進撃の巨人', '魔法少女まどか', 'ポケモン'),
  alternative_names: fc.array(title(), { maxLength: 2 }),
  media_type: fc.constantFrom(...MEDIA),
  status: fc.constantFrom(...STATUS),
  rating: fc.constantFrom(...RATINGS),
  aired_from: maybe(fc.constantFrom('2001-01-05', '2001-04-10', '2002-07-01', '2002-10-31')),
  genres: subset(GENRES),
  themes: subset(GENRES.slice(0, 2)),
  studios: subset(STUDIOS),
  score: maybe(fc.constantFrom(5, 7.5, 8.25, 8.3)),
  members: fc.nat(3),
  favorites: fc.nat(2),
  rank: maybe(fc.integer({ min: 1, max: 4 })),
  popularity: maybe(fc.integer({ min: 1, max: 4 })),
  created_at: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'),
  updated_at: fc.constantFrom('2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z'),
});

type Generated = ReturnType<typeof animeArb.generate>["value"];

function record(g: Generated, id: string): AnimeRecord {
  const ref = (ids: string[]) => ids.map((i) => ({ id: i, name: i }));
  const season = g.aired_from ? SEASONS[Math.floor((Number(g.aired_from.slice(5, 7)) - 1) / 3)]! : null;
  return {
    id,
    created_at: g.created_at,
    updated_at: g.updated_at,
    name: g.name,
    name_jpn: g.name_jpn,
    name_rom: '',
    alternative_names: g.alternative_names,
    image: null,
    synopsis: '',
    background: '',
    media_type: g.media_type,
    source: null,
    status: g.status,
    rating: g.rating,
    episodes: null,
    duration_seconds: null,
    aired_from: g.aired_from,
    aired_to: null,
    season,
    year: g.aired_from ? Number(g.aired_from.slice(0, 4)) : null,
    broadcast: null,
    next_episode: null,
    genres: ref(g.genres),
    themes: ref(g.themes),
    studios: ref(g.studios),
    producers: [],
    licensors: [],
    trailer_url: null,
    website: null,
    score: g.score,
    scored_by: 0,
    members: g.members,
    favorites: g.favorites,
    rank: g.rank,
    popularity: g.popularity,
  };
}

/** Absent three times out of four: queries combine a few filters, so that their matches are seldom empty. */
const rarely = <T>(a: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 });

const queryArb = fc.record({
  ordering: fc.constantFrom(...ORDERINGS),
  descending: fc.boolean(),
  limit: fc.integer({ min: 1, max: 6 }),
  q: rarely(fc.constantFrom('sh', 'shingeki kyo', 'pokemon', 'jojos', 'cafe', 'caf', 'okami', 'l', '2', '巨人', '撃', 'まどか', 'ショ', 'ss', 'strasse', 'geki', 'lo li')),
  media_type: rarely(fc.constantFrom(...MEDIA)),
  status: rarely(fc.constantFrom(...STATUS)),
  season: rarely(fc.constantFrom(...SEASONS)),
  year: rarely(fc.constantFrom('2001', '2002')),
  rating: rarely(fc.constantFrom('pg13', 'r')),
  genre: rarely(fc.constantFrom(...GENRES)),
  theme: rarely(fc.constantFrom(...GENRES)),
  studio: rarely(fc.constantFrom(...STUDIOS)),
  min_score: rarely(fc.constantFrom(0, 7.5, 8.26)),
});
type Query = ReturnType<typeof queryArb.generate>["value"];

const FILTERS = ['media_type', 'status', 'season', 'year', 'rating', 'genre', 'theme', 'studio'] as const;

function where(q: Query) {
  return (r: AnimeRecord) =>
    (q.media_type === undefined || r.media_type === q.media_type) &&
    (q.status === undefined || r.status === q.status) &&
    (q.season === undefined || r.season === q.season) &&
    (q.year === undefined || String(r.year) === q.year) &&
    (q.rating === undefined || r.rating === q.rating) &&
    (q.genre === undefined || r.genres.some((g) => g.id === q.genre)) &&
    (q.theme === undefined || r.themes.some((g) => g.id === q.theme)) &&
    (q.studio === undefined || r.studios.some((g) => g.id === q.studio)) &&
    (q.min_score === undefined || (r.score !== null && r.score >= q.min_score));
}

/** Every page forwards from the start, then backwards from the end: the records of each walk. */
async function walkBothWays(def: TitleDef<AnimeRecord>, q: Query, driverMax: number | undefined) {
  const equals = Object.fromEntries(FILTERS.flatMap((f) => (q[f] === undefined ? [] : [[f, q[f]!]])));
  const terms = q.q === undefined ? [] : (queryTerms(q.q) as { terms: string[] }).terms;
  const base: Omit<IndexQuery, 'cursor'> = { ordering: q.ordering, descending: q.descending, limit: q.limit, terms, equals, atLeast: q.min_score === undefined ? {} : { score: q.min_score } };
  const page = (cursor: Cursor | null) => queryIndex(def.index, counterKeyOf(def.entity), { ...base, cursor }, driverMax === undefined ? {} : { driverMax });
  const forward: string[] = [];
  let cursor: Cursor | null = null;
  let last: Cursor | null = null;
  for (let n = 0; n < 500; n++) {
    const p = await page(cursor);
    forward.push(...p.entries.map((e) => e.id));
    if (p.next === null) {
      // Backward from the end: through the last record, or (an empty last page) the page's own
      // `previous`, which includes the record its cursor followed.
      last = p.entries.length > 0 ? { d: 'p', k: p.entries.at(-1)!.sk, i: true } : p.previous;
      break;
    }
    cursor = p.next;
  }
  const backward: string[] = [];
  cursor = last;
  for (let n = 0; cursor && n < 500; n++) {
    const p = await page(cursor);
    if (p.entries.length === 0) break;
    backward.unshift(...p.entries.map((e) => e.id));
    cursor = p.previous;
  }
  return { forward, backward };
}

describe('the catalogue planner against the contract', () => {
  it('gives exactly the matching records, in order, both ways, under both strategies', { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(animeArb, { minLength: 5, maxLength: 30 }), fc.array(queryArb, { minLength: 6, maxLength: 6 }), async (animes, queries) => {
        // A kind of its own per run: each run starts from an empty index.
        const kind = `T${newId().replace(/[^A-Za-z]/g, '').slice(0, 8).toUpperCase()}`;
        const def: TitleDef<AnimeRecord> = { entity: { ...animeEntity, kind }, index: { ...animeIndex, kind }, relations: ANIME_RELATIONS };
        const records = animes.map((g) => record(g, newId()));
        await Promise.all(
          records.map(async (r) => {
            r.name = `${r.name} ${r.id.slice(0, 4)}`;
            const plan = titleWrite(def, null, { after: r, relations: {}, links: [] });
            await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
          }),
        );
        for (const q of queries) {
          const expected = referenceList(records, {
            ...(q.q === undefined ? {} : { q: q.q }),
            searchFields: (r) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
            where: where(q),
            ordering: { value: (r) => (r as unknown as Record<string, string | number | null>)[q.ordering]!, text: q.ordering === 'name', descending: q.descending },
          }).map((r) => r.id);
          for (const driverMax of [undefined, 0]) {
            const got = await walkBothWays(def, q, driverMax);
            expect(got.forward, JSON.stringify({ q, driverMax })).toEqual(expected);
            expect(got.backward, JSON.stringify({ q, driverMax, backward: true })).toEqual(expected);
          }
        }
      }),
      { numRuns: 5 },
    );
  });
});
