/**
 * Animes (API.md §3.3): a title entity (titles.ts) with a unique name, the search and filter
 * index of `GET /api/animes/` (catalogue-index.ts) with the lists of the seasons (§4.16: a
 * `year_season` posting list each) and of the schedule (§4.15: the airing animes' entries, which
 * their vectors carry), and the written arrays kept in chunks.
 */
import { AnimeListStatus } from '../domain/enums.js';
import { uniquenessKey } from '../text.js';
import { ANIME_SITES, externalIdClaims, type ExternalIds } from './external-ids.js';
import type { EntryRow, IndexDef } from './catalogue-index.js';
import type { BaseRecord, EntityDef } from './records.js';
import { textPart } from './sort-keys.js';
import { descendingCount, RANKED_FIELDS, rankedOrderings, scoreNumber, type TitleDef } from './titles.js';

export interface Ref {
  id: string;
  name: string;
}

export interface AnimeRecord extends BaseRecord {
  name: string;
  name_jpn: string;
  name_rom: string;
  alternative_names: string[];
  image: string | null;
  synopsis: string;
  background: string;
  media_type: string;
  source: string | null;
  status: string;
  rating: string | null;
  episodes: number | null;
  duration_seconds: number | null;
  aired_from: string | null;
  aired_to: string | null;
  season: string | null;
  year: number | null;
  broadcast: { day: string; time: string | null; timezone: string } | null;
  next_episode: { number: number; airs_at: string } | null;
  genres: Ref[];
  themes: Ref[];
  studios: Ref[];
  producers: Ref[];
  licensors: Ref[];
  trailer_url: string | null;
  website: string | null;
  /** API.md §8.2; absent in records written before it (read as `{}`, `[]`). */
  external_ids?: ExternalIds;
  streaming?: { site: string; url: string }[];
  score: number | null;
  scored_by: number;
  members: number;
  favorites: number;
  rank: number | null;
  popularity: number | null;
}

export const ANIME_RELATIONS = ['characters', 'staff', 'videos', 'pictures'] as const;

const ids = (refs: readonly Ref[]) => refs.map((r) => r.id);
const one = (v: string | number | null) => (v === null ? [] : [String(v)]);

/** The index ordering of home's season sections (API.md §4.5): `members` desc, then name. */
export const HOME_ORDERING = 'members_name';

/** The value of HOME_ORDERING: `members` descending, then N(name). */
const membersThenName = (members: number, name: string) => `${descendingCount(members)}${textPart(name, 15)}`;

/** The value of an anime's `year_season` posting: its season of §5.2 (`2025-winter`). */
export const yearSeason = (year: number, season: string) => `${year}-${season}`;

/** The season of §5.2 an anime belongs to (none without `aired_from`). */
const seasonsOf = (r: AnimeRecord) => (r.year === null ? [] : [yearSeason(r.year, r.season!)]);

/** The schedule's entry of an airing anime (API.md §4.15): what ordering and §5.3 need. */
export interface ScheduleEntry {
  id: string;
  name: string;
  score: number | null;
  status: string;
  broadcast: AnimeRecord['broadcast'];
  aired_from: string | null;
  aired_to: string | null;
  episodes: number | null;
}

/**
 * What an airing anime's vector carries for the schedule (IndexDef.entry): the part of its
 * ScheduleEntry the vector lacks. The rest is the vector's — `id`, `name` and `aired_from` (the
 * orderings' values), `score` (the range number), `status` (airing: the only animes with one) —
 * so each number has one place, which a rankings run's patch of the vectors updates too.
 */
type ScheduleExtra = Pick<ScheduleEntry, 'broadcast' | 'aired_to' | 'episodes'> & {
  /** The airing calendar's event length (API.md §8.6); absent in entries written before it. */
  duration_seconds?: number | null;
};
const scheduleExtra = (r: AnimeRecord): ScheduleExtra | null =>
  r.status !== 'airing' ? null : { broadcast: r.broadcast, aired_to: r.aired_to, episodes: r.episodes, duration_seconds: r.duration_seconds };

/** An airing anime's episode length from its entry (null: unknown, or an entry written before §8.6). */
export const entryDuration = (row: EntryRow): number | null => (row.e as unknown as ScheduleExtra).duration_seconds ?? null;

/** An airing anime's schedule entry from what its index gives (index-reader.ts indexEntries). */
export function scheduleEntryOf(row: EntryRow): ScheduleEntry {
  const e = row.e as unknown as ScheduleExtra;
  return { id: row.id, name: String(row.o.name), score: row.x.score ?? null, status: 'airing', broadcast: e.broadcast, aired_from: (row.o.aired_from as string | null | undefined) ?? null, aired_to: e.aired_to, episodes: e.episodes };
}

export const animeEntity: EntityDef<AnimeRecord> = {
  kind: 'ANIME',
  // Lists are served by the in-memory index (catalogue-index.ts IndexDef), not by records.ts ordering entries.
  orderings: {},
  referenced: true,
  unique: [{ field: 'name', key: (r) => uniquenessKey(r.name), message: 'An anime with this name already exists.' }, ...externalIdClaims<AnimeRecord>(ANIME_SITES, 'An anime')],
};

export const animeIndex: IndexDef<AnimeRecord> = {
  kind: 'ANIME',
  listOrder: 'name',
  relevance: 'members',
  orderings: rankedOrderings<AnimeRecord>({ key: 'aired_from', value: (r) => r.aired_from }),
  // Home's season sections (§4.5): `members` desc, then N(name), from the vector's `members` and `name`.
  derived: { [HOME_ORDERING]: { value: (r) => membersThenName(r.members, r.name), fromVector: (o) => membersThenName(Number(o.members), String(o.name)), type: 'plain' } },
  filters: {
    media_type: (r) => [r.media_type],
    status: (r) => [r.status],
    season: (r) => one(r.season),
    year: (r) => one(r.year),
    // The animes of one season (GET /api/seasons/…, §4.16).
    year_season: (r) => seasonsOf(r),
    rating: (r) => one(r.rating),
    genre: (r) => ids(r.genres),
    theme: (r) => ids(r.themes),
    studio: (r) => ids(r.studios),
    producer: (r) => ids(r.producers),
    licensor: (r) => ids(r.licensors),
    // Credited in any role (GET /api/producers/{id}/animes/).
    credited: (r) => [...new Set([...ids(r.studios), ...ids(r.producers), ...ids(r.licensors)])],
  },
  numbers: { score: scoreNumber() },
  ranked: RANKED_FIELDS,
  searchFields: (r) => [r.name, r.name_jpn, r.name_rom, ...r.alternative_names],
  // GET /api/schedules/: the airing animes, read whole from the index.
  entry: scheduleExtra,
};

export const animeTitle: TitleDef<AnimeRecord> = { entity: animeEntity, index: animeIndex, relations: ANIME_RELATIONS, listStatuses: AnimeListStatus, random: true };
