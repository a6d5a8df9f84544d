/**
 * Random animes and random list queries over them (every filter, every ordering, `q` with shared
 * words, accents, apostrophes, kana and kanji; nulls), with the filters as the contract states
 * them (`where`) for the brute-force evaluation of test/support/reference-list.ts: shared by the
 * property tests of the catalogue planner and of the in-memory index's snapshot.
 */
import fc from 'fast-check';
import { animeIndex, type AnimeRecord } from '../../shared/db/animes.js';
import { RANKING_MINIMUM } from '../../shared/db/titles.js';

export const WORDS = ['Shingeki', 'no', 'Kyojin', 'Pokémon', "JoJo's", 'Café', 'cafe', 'Ōkami', 'school', 'Sch', 'Love', 'live', 'x', '2', '進撃の巨人', '魔法少女', 'ショー', 'ß', 'Straße'];
export const GENRES = ['GenreAAAAAAAAAAAAAAAAA', 'GenreBBBBBBBBBBBBBBBBBB', 'GenreCCCCCCCCCCCCCCCCCC'];
export const STUDIOS = ['StudioAAAAAAAAAAAAAAAA', 'StudioBBBBBBBBBBBBBBBB'];
export const MEDIA = ['tv', 'movie', 'ova'];
export const STATUS = ['finished', 'airing'];
export const RATINGS = [null, 'pg13', 'r', 'rx'];
export const SEASONS = ['winter', 'spring', 'summer', 'fall'];
export const ORDERINGS = Object.keys(animeIndex.orderings);

const title = () => fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const subset = (values: readonly string[]) => fc.subarray([...values]);

export const animeArb = fc.record({
  name: title(),
  name_jpn: fc.constantFrom('', '進撃の巨人', '魔法少女まどか', 'ポケモン'),
  alternative_names: fc.array(title(), { maxLength: 2 }),
  media_type: fc.constantFrom(...MEDIA),
  status: fc.constantFrom(...STATUS),
  rating: fc.constantFrom(...RATINGS),
  aired_from: maybe(fc.constantFrom('2001-01-05', '2001-04-10', '2002-07-01', '2002-10-31')),
  // What the schedule's entry of an airing anime holds beside the vector's values.
  aired_to: maybe(fc.constantFrom('2001-03-30', '2003-01-01')),
  episodes: maybe(fc.constantFrom(1, 12, 24)),
  broadcast: maybe(fc.record({ day: fc.constantFrom('monday', 'saturday', 'other'), time: maybe(fc.constantFrom('00:00', '23:30')), timezone: fc.constantFrom('Asia/Tokyo', 'UTC') })),
  genres: subset(GENRES),
  themes: subset(GENRES.slice(0, 2)),
  studios: subset(STUDIOS),
  score: maybe(fc.constantFrom(5, 7.5, 8.25, 8.3)),
  scored_by: fc.constantFrom(0, RANKING_MINIMUM, RANKING_MINIMUM + 4),
  members: fc.nat(3),
  favorites: fc.nat(2),
  created_at: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z'),
  updated_at: fc.constantFrom('2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z'),
});

export type Generated = ReturnType<typeof animeArb.generate>["value"];

export function record(g: Generated, id: string): AnimeRecord {
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
    episodes: g.episodes,
    duration_seconds: null,
    aired_from: g.aired_from,
    aired_to: g.aired_to,
    season,
    year: g.aired_from ? Number(g.aired_from.slice(0, 4)) : null,
    broadcast: g.broadcast,
    next_episode: null,
    genres: ref(g.genres),
    themes: ref(g.themes),
    studios: ref(g.studios),
    producers: [],
    licensors: [],
    trailer_url: null,
    website: null,
    score: g.score,
    scored_by: g.scored_by,
    members: g.members,
    favorites: g.favorites,
    rank: null,
    popularity: null,
  };
}

/**
 * `rank` and `popularity` as a rankings run gives them (API.md §5.1): places by score desc,
 * scored_by desc, created_at asc (titles with a score and at least RANKING_MINIMUM scorers), and
 * by members desc, created_at asc (titles with members), then id. The index orders these two by
 * the run's keys (docs/decisions.md K2); the reference orders by the places.
 */
export function placeAsARunWould(records: AnimeRecord[]): void {
  const place = (eligible: (r: AnimeRecord) => boolean, cmp: (a: AnimeRecord, b: AnimeRecord) => number, field: 'rank' | 'popularity') =>
    records
      .filter(eligible)
      .sort((a, b) => cmp(a, b) || a.created_at.localeCompare(b.created_at) || (a.id < b.id ? -1 : 1))
      .forEach((r, i) => (r[field] = i + 1));
  place((r) => r.score !== null && r.scored_by >= RANKING_MINIMUM, (a, b) => b.score! - a.score! || b.scored_by - a.scored_by, 'rank');
  place((r) => r.members > 0, (a, b) => b.members - a.members, 'popularity');
}

/** Absent three times out of four: queries combine a few filters, so that their matches are seldom empty. */
export const rarely = <T>(a: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: a, weight: 1 });

export const queryArb = fc.record({
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
export type Query = ReturnType<typeof queryArb.generate>["value"];

export const FILTERS = ['media_type', 'status', 'season', 'year', 'rating', 'genre', 'theme', 'studio'] as const;

export function where(q: Query) {
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

