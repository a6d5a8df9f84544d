/**
 * The anime list and the manga list of a user and their items (API.md §3.11, §4.10): the two
 * kinds as data — their statuses, progress fields and cards — with the write rules, the read
 * shapes and the orderings of the items' page. Storage: shared/db/playlists.ts.
 */
import * as z from 'zod/mini';
import type { AnimeRecord } from '../db/animes.js';
import { animeTitle } from '../db/animes.js';
import type { IndexDef } from '../db/catalogue-index.js';
import { mangaTitle, type MangaRecord } from '../db/mangas.js';
import type { BaseRecord } from '../db/records.js';
import { derivedNumbers, SCORES, scoreKey, type TitleDef } from '../db/titles.js';
import { addError, fieldErrors, type FieldErrors } from '../problem.js';
import { animeCard, mangaCard } from './cards.js';
import { AnimeListStatus, MangaListStatus, Priority, RepeatValue } from './enums.js';
import { date, distinctList, id, line, oneOf, optional, optionalNullable, optionalText, required, text, url, writeSchemas, type FieldSpecs } from './fields.js';

/** A progress field bounded by a count of the title when it is known (`episodes_watched` ≤ `episodes`). */
interface Progress {
  field: string;
  max: number;
  /** The title's field that bounds it (null: unknown, no bound). */
  bound: string;
}

export interface PlaylistKind {
  /** The path segment: `/api/playlists/<segment>/`. */
  segment: 'animelist' | 'mangalist';
  /** The items' path segment (`animes`, `mangas`). */
  items: 'animes' | 'mangas';
  /** Key prefix of the lists' storage. */
  store: 'ANIMELIST' | 'MANGALIST';
  title: TitleDef<BaseRecord>;
  /** The listed title's kind (`ANIME`) and the item's field naming it (`anime_id`), and where its card goes (`anime`). */
  titleKind: 'ANIME' | 'MANGA';
  idField: 'anime_id' | 'manga_id';
  cardField: 'anime' | 'manga';
  card: z.ZodMiniObject;
  statuses: readonly string[];
  progress: readonly Progress[];
  /** The names of the re-watching (re-reading) fields. */
  repeat: { is: string; times: string; value: string };
  /** The item's write fields without the title's id. */
  fields: FieldSpecs;
}

const tags = distinctList(line({ min: 1, max: 50 }), { max: 20, key: (t) => t.toLowerCase(), message: 'Duplicate tag (tags are compared case-insensitively).' });
const itemDate = () => date({ min: '1900-01-01', max: '2100-12-31' });
const int = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));

function itemFields(status: readonly [string, ...string[]], defaultStatus: string, progress: readonly Progress[], repeat: PlaylistKind['repeat']): FieldSpecs {
  return {
    status: optional(oneOf(status), () => defaultStatus),
    score: optional(int(0, 10), () => 0, '0 = not scored.'),
    ...Object.fromEntries(progress.map((p) => [p.field, optional(int(0, p.max), () => 0, `At most the title's \`${p.bound}\` when it is known.`)])),
    [repeat.is]: optional(z.boolean(), () => false),
    [repeat.times]: optional(int(0, 1000), () => 0),
    [repeat.value]: optionalNullable(oneOf(RepeatValue)),
    start_date: optionalNullable(itemDate()),
    finish_date: optionalNullable(itemDate()),
    priority: optional(oneOf(Priority), () => 'low'),
    tags: optional(tags, () => []),
    notes: optionalText(text({ max: 2000 })),
    is_favorite: optional(z.boolean(), () => false),
  };
}

const ANIME_PROGRESS: Progress[] = [{ field: 'episodes_watched', max: 5000, bound: 'episodes' }];
const MANGA_PROGRESS: Progress[] = [
  { field: 'chapters_read', max: 100_000, bound: 'chapters' },
  { field: 'volumes_read', max: 1000, bound: 'volumes' },
];

const ANIME_REPEAT = { is: 'is_rewatching', times: 'times_rewatched', value: 'rewatch_value' };
const MANGA_REPEAT = { is: 'is_rereading', times: 'times_reread', value: 'reread_value' };

export const ANIME_LIST: PlaylistKind = {
  segment: 'animelist',
  items: 'animes',
  store: 'ANIMELIST',
  title: animeTitle as unknown as TitleDef<BaseRecord>,
  titleKind: 'ANIME',
  idField: 'anime_id',
  cardField: 'anime',
  card: animeCard,
  statuses: AnimeListStatus,
  progress: ANIME_PROGRESS,
  repeat: ANIME_REPEAT,
  fields: itemFields(AnimeListStatus, 'plan_to_watch', ANIME_PROGRESS, ANIME_REPEAT),
};

export const MANGA_LIST: PlaylistKind = {
  segment: 'mangalist',
  items: 'mangas',
  store: 'MANGALIST',
  title: mangaTitle as unknown as TitleDef<BaseRecord>,
  titleKind: 'MANGA',
  idField: 'manga_id',
  cardField: 'manga',
  card: mangaCard,
  statuses: MangaListStatus,
  progress: MANGA_PROGRESS,
  repeat: MANGA_REPEAT,
  fields: itemFields(MangaListStatus, 'plan_to_read', MANGA_PROGRESS, MANGA_REPEAT),
};

export const PLAYLISTS = [ANIME_LIST, MANGA_LIST] as const;

// ---- The list

export const listFields: FieldSpecs = {
  name: optionalText(line({ max: 100 })),
  is_public: optional(z.boolean(), () => true),
  banner: optionalNullable(url()),
};
export const listBody = writeSchemas(listFields).partial;

const timestamp = z.string().check(z.meta({ format: 'date-time' }));
const counts = (kind: PlaylistKind) => z.object({ ...Object.fromEntries(kind.statuses.map((s) => [s, z.int()])), total: z.int() });

export const listRead = (kind: PlaylistKind) =>
  z.object({
    id: z.string(),
    owner: z.object({ id: z.string(), username: z.string() }),
    name: z.string(),
    is_public: z.boolean(),
    banner: z.nullable(z.string().check(z.meta({ format: 'uri' }))),
    counts: counts(kind),
    created_at: timestamp,
    updated_at: timestamp,
  });

/** A list as stored (its owner's username and its counts are added when it is read). */
export interface ListRecord {
  id: string;
  name: string;
  is_public: boolean;
  banner: string | null;
  created_at: string;
  updated_at: string;
}

export const blankList = (listId: string, at: string): ListRecord => ({ id: listId, name: '', is_public: true, banner: null, created_at: at, updated_at: at });

/** The counts of a list (`AnimeListCounts`, §3.2): each status and their total. */
export function listCounts(kind: PlaylistKind, n: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(kind.statuses.map((s) => [s, Number(n[s] ?? 0)]));
  return { ...out, total: kind.statuses.reduce((sum, s) => sum + out[s]!, 0) };
}

// ---- The items

/** An item as stored: its write fields, the title's id, the title's name (for the `name` ordering) and its stamps. */
export type ItemRecord = BaseRecord & Record<string, unknown>;

export const itemBodies = (kind: PlaylistKind) => ({
  create: writeSchemas({ [kind.idField]: required(id()), ...kind.fields }).full,
  patch: writeSchemas(kind.fields).partial,
});

export const itemRead = (kind: PlaylistKind) =>
  z.object({
    id: z.string(),
    [kind.cardField]: kind.card,
    status: z.enum(kind.statuses as [string, ...string[]]),
    score: z.int(),
    ...Object.fromEntries(kind.progress.map((p) => [p.field, z.int()])),
    [kind.repeat.is]: z.boolean(),
    [kind.repeat.times]: z.int(),
    [kind.repeat.value]: z.nullable(z.enum(RepeatValue)),
    start_date: z.nullable(z.string().check(z.meta({ format: 'date' }))),
    finish_date: z.nullable(z.string().check(z.meta({ format: 'date' }))),
    priority: z.enum(Priority),
    tags: z.array(z.string()),
    notes: z.string(),
    is_favorite: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  });

/** The keys of an item's read shape, in order. */
export const itemShape = (kind: PlaylistKind) => Object.keys(itemRead(kind).shape);

/**
 * Errors of a resulting item (§3.11, checked on the item after the change, §1.8): the dates in
 * order; a progress field sent in this request at most the title's known count.
 */
export function itemErrors(kind: PlaylistKind, item: Record<string, unknown>, sent: Record<string, unknown>, title: Record<string, unknown>): FieldErrors {
  const errors = fieldErrors();
  if (item.start_date && item.finish_date && (item.finish_date as string) < (item.start_date as string)) addError(errors, 'finish_date', 'Must not be before start_date.');
  for (const p of kind.progress) {
    const bound = title[p.bound];
    if (p.field in sent && typeof bound === 'number' && (item[p.field] as number) > bound) addError(errors, p.field, `Ensure this value is less than or equal to the ${kind.titleKind.toLowerCase()}'s ${p.bound} (${bound}).`);
  }
  return errors;
}

/** The orderings of an items' page (§4.10): the item's fields, `name` being the title's. */
export const ITEM_ORDERINGS = ['updated_at', 'created_at', 'score', 'name', 'start_date', 'finish_date'] as const;
export const ITEM_DEFAULT_ORDERING = '-updated_at';

/**
 * How an items' page is ordered and filtered in memory (catalogue-index.ts `vectorPage`): the
 * vector of an item holds these values. `name` is the title's name when the item was last
 * written (kept in step with renames by the relations consumer).
 */
export const itemIndex = (kind: PlaylistKind): IndexDef<ItemRecord> => ({
  kind: `${kind.store}#V`,
  listOrder: ITEM_DEFAULT_ORDERING,
  orderings: {
    updated_at: { value: (r) => r.updated_at, type: 'plain' },
    created_at: { value: (r) => r.created_at, type: 'plain' },
    score: { value: (r) => r.score as number, type: 'count' },
    name: { value: (r) => r.title_name as string, type: 'text' },
    start_date: { value: (r) => r.start_date as string | null, type: 'plain' },
    finish_date: { value: (r) => r.finish_date as string | null, type: 'plain' },
  },
  // `title`: the listed title's id, so a page leaves out the items of titles deleted since;
  // `favorite`: what the recommendations read for the caller's seeds (API.md §5.4).
  filters: { status: (r) => [r.status as string], title: (r) => [r[kind.idField] as string], favorite: (r) => (r.is_favorite === true ? ['true'] : []) },
  searchFields: () => [],
});

/** The title a list kind's items name, as its record (for the bounds and the card). */
export type ListedTitle = AnimeRecord | MangaRecord;

// ---- Statistics of a title (§3.13, §5.1)

export const statsRead = (kind: PlaylistKind) =>
  z.object({
    [`${kind.titleKind.toLowerCase()}_id`]: z.string(),
    ...Object.fromEntries(kind.statuses.map((s) => [s, z.int()])),
    total: z.int(),
    scored_by: z.int(),
    score: z.nullable(z.number()),
    scores: z.array(z.object({ score: z.int(), votes: z.int(), percentage: z.number() })).check(z.length(10)),
  });

/** A title's statistics from its counters: status counts, total, and the ten scores with their share rounded half up to one decimal. */
export function titleStats(kind: PlaylistKind, titleId: string, stats: Record<string, number>) {
  const { scored_by, score } = derivedNumbers(kind.statuses, stats);
  const scores = SCORES.map((s) => {
    const votes = Number(stats[scoreKey(s)] ?? 0);
    // round_half_up(1000 × votes / scored_by) / 10, in integers.
    const percentage = scored_by === 0 ? 0 : Math.floor((2000 * votes + scored_by) / (2 * scored_by)) / 10;
    return { score: s, votes, percentage };
  });
  return { [`${kind.titleKind.toLowerCase()}_id`]: titleId, ...listCounts(kind, stats), scored_by, score, scores };
}
