/**
 * A large catalogue entity as the operations see it (animes, mangas, characters, persons; API.md
 * §4.0, §4.1, §4.2, §4.7, §4.9): its storage (shared/db/titles.ts), write and read shapes, list
 * options, and how a write becomes a stored record with its relations and the count changes of
 * the records it links.
 */
import { FEED_WRITES } from '../db/feed.js';
import { indexReads } from './index-reader.js';
import type * as z from 'zod/mini';
import type { Caller, Role } from '../auth/roles.js';
import { JOURNALED_ANSWERS } from '../db/idempotency.js';
import { grant, grants, type CrudGrants, type KeyPattern } from '../db/key-patterns.js';
import type { BaseRecord, WritePlan } from '../db/records.js';
import type { LinkCount, Relations, StoredTitle, TitleDef } from '../db/titles.js';
import type { FieldErrors } from '../problem.js';
import { TOMBSTONE_KEYS, TOMBSTONE_READS, type Deleted } from '../db/tombstones.js';
import type { FieldSpecs } from './fields.js';
import type { Reference, ReferenceCheck } from './references.js';

export interface TitleListOptions {
  orderings: readonly string[];
  defaultOrdering: string;
  search: boolean;
  /** `ordering=relevance` and `fuzzy` with `q` (API.md §8.4), by the index's relevance ordering. */
  relevance?: boolean;
  /** Filter parameters (query schemas); each names an index filter of the same name, except ranges. */
  filters: z.core.$ZodLooseShape;
  /** Filters that name records (`genre` → `GENRE`): the record must exist (§1.6, else 400). */
  references?: Record<string, string>;
  /** Range filters: parameter → index number it is a lower bound of (`min_score` → `score`). */
  ranges?: Record<string, string>;
  /** Turns the equality filters given into the index filters that answer them together (default: the same). */
  combine?(equals: Record<string, string>): Record<string, string>;
  /** `sfw` is accepted (§8.3: animes and mangas), leaving out the titles of this kind that are explicit. */
  sfw?: 'ANIME' | 'MANGA';
  /** Filters answered by a unique claim rather than the index (`mal_id` → `external_ids.mal`, §8.2). */
  lookups?: Record<string, string>;
}

export interface TitleResource<R extends BaseRecord> {
  segment: string;
  noun: string;
  title: TitleDef<R>;
  writer: Role;
  fields: FieldSpecs;
  /** The detail shape. */
  read: z.ZodMiniObject;
  /**
   * The list item shape where it is not the detail: the detail without its reverse views (a
   * character's `animes`, `mangas`, `voices`; shared/http/titles.ts detailOf).
   */
  listRead?: z.ZodMiniObject;
  list: TitleListOptions;
  /** The writable values of a stored title (what a PATCH starts from). */
  writable(r: R, relations: Relations): Record<string, unknown>;
  /**
   * The stored record and relations for validated values, or every field error (400). `caller`
   * is who writes (e.g. a news article's author, set at creation). `check` looks up the
   * references (default checkReferences, one batch read; the bulk loader of the benchmarks
   * passes a lookup in memory).
   */
  build(
    values: Record<string, unknown>,
    meta: { id: string; created_at: string; updated_at: string; caller?: Caller | null },
    before: StoredTitle<R> | null,
    check?: ReferenceCheck,
  ): Promise<{ errors: FieldErrors } | { record: R; relations: Relations }>;
  /** The count changes of linked records when a title changes from `before` to `after` (absent: it links none). */
  links?(before: R | null, after: R | null): LinkCount[];
  /** The records write values name, each at its path (checked by `build`; dropped by a refresh when deleted). */
  references?(values: Record<string, unknown>): Reference[];
  /**
   * The record's embedded references by kind (`genres` → `GENRE`): entries naming a record
   * deleted since are left out of every response at once (tombstones.ts).
   */
  embedded?: Record<string, string>;
  /** The reverse views of the detail (a character's `animes`, …), read from the record's reverse items. */
  views?(id: string, deleted: Deleted): Promise<Record<string, unknown>>;
  /**
   * The record as shown at `now`: fields computed at response time from the record and the
   * clock (an anime's `next_episode`, §5.3), in every representation (detail, list items, write
   * responses and the ETag If-Match compares). Absent: the record as stored.
   */
  present?(record: R, now: Date): R;
  /**
   * Items a change adds to the write's main transaction beyond the title's own (absent: none),
   * e.g. the stored files of uploaded pictures a write drops (persons, shared/db/files.ts).
   * `after` null: a deletion.
   */
  extraPlan?(before: StoredTitle<R> | null, after: { record: R; relations: Relations } | null): WritePlan;
}

/** The items of a title kind and of the records its operations read or write besides its own. */
interface TitleItems {
  /** Its own items: records, claims, counter, slots, chunks, journal, reverse items, index. */
  own: KeyPattern;
  /** Records it links and counts (`anime_count`, a producer's credits): read to check, updated when linked or unlinked. */
  counted?: readonly KeyPattern[];
  /** Records its values name: read to check them (400 when absent). */
  referenced?: readonly KeyPattern[];
  /** Records its list filters name (TitleListOptions.references: 400 when absent). */
  filters?: readonly KeyPattern[];
  /** The detail shows reverse views (a Query of its reverse items), reading these records too. */
  views?: readonly KeyPattern[];
  /** Its deletion leaves a tombstone (others reference its records; tombstones.ts). */
  tombstone: boolean;
  /** It has random picks: a creation or deletion moves its slots, reading the counter and a slot (GetItem; slots.ts). */
  random: boolean;
  /**
   * Its records' names are unique: a creation at the maxima of links may leave its stored answer
   * (an Idempotency-Key) in its journal, which its writes finish (shared/db/idempotency.ts).
   */
  answers?: true;
}

/**
 * What the CRUD operations of a title kind do to the table (shared/http/titles.ts,
 * title-writes.ts). Every operation reads the tombstones (BatchGetItem, with what it reads
 * anyway). A list reads the kind's in-memory index (its pointer and deltas: index-reader.ts) and
 * the page's records and the records its filters name; a detail reads the record (and queries its reverse views). A write reads the
 * title for the change (Query of its partition), may read the kind's counter and slots (GetItem,
 * Query; kinds with random picks), and puts, updates and deletes its own items: which of these a given write takes
 * depends on the data (a staged write and its journal, a creation or deletion that moves the
 * random-pick slots), not on the method, so the four writes share them. It answers with the
 * detail (its views). Creations and updates read the records they link and name; the linked
 * ones' counts are updated (UpdateItem, never put or deleted), also by a deletion, which writes
 * the tombstone (UpdateItem) where others reference the kind.
 */
function titleOperations(t: TitleItems): CrudGrants {
  const tombstones = TOMBSTONE_READS;
  const views = t.views ? grants(grant(t.own, 'Query'), grant(t.views, 'BatchGetItem')) : {};
  // Every write also puts its change-feed change (shared/db/feed.ts); a title's journal may hold a creation's stored answer.
  const write = grants(grant(t.own, 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'), t.random ? grant(t.own, 'GetItem') : {}, views, tombstones, FEED_WRITES, t.answers ? JOURNALED_ANSWERS : {});
  const linking = grants(write, grant(t.counted ?? [], 'BatchGetItem', 'UpdateItem'), grant(t.referenced ?? [], 'BatchGetItem'));
  return {
    list: grants(grant(t.own, 'BatchGetItem'), indexReads(t.own.replace(/#\*$/, '')), grant(t.filters ?? [], 'BatchGetItem'), tombstones),
    get: grants(grant(t.own, 'BatchGetItem'), views, tombstones),
    create: linking,
    update: linking,
    delete: grants(write, grant(t.counted ?? [], 'UpdateItem'), t.tombstone ? grant(TOMBSTONE_KEYS, 'UpdateItem') : {}),
  };
}

/** The items of each title kind and of the records its operations read or write besides its own. */
export const TITLE_ITEMS = {
  anime: { own: 'ANIME#*', counted: ['GENRE#*', 'THEME#*', 'PRODUCER#*'], referenced: ['CHARACTER#*', 'PERSON#*'], filters: ['GENRE#*', 'THEME#*', 'PRODUCER#*'], tombstone: true, random: true, answers: true },
  manga: {
    own: 'MANGA#*',
    counted: ['GENRE#*', 'THEME#*', 'DEMOGRAPHIC#*', 'MAGAZINE#*'],
    referenced: ['CHARACTER#*', 'PERSON#*'],
    filters: ['GENRE#*', 'THEME#*', 'DEMOGRAPHIC#*', 'MAGAZINE#*', 'PERSON#*'],
    tombstone: true,
    random: true,
    answers: true,
  },
  // A character's animes, mangas and voices are reverse views; the voices name their persons.
  character: { own: 'CHARACTER#*', filters: ['ANIME#*', 'MANGA#*'], views: ['PERSON#*'], tombstone: true, random: true },
  person: { own: 'PERSON#*', views: [], tombstone: true, random: true },
  news: { own: 'NEWS#*', referenced: ['ANIME#*', 'MANGA#*'], filters: ['ANIME#*', 'MANGA#*'], tombstone: false, random: false },
} as const satisfies Record<string, TitleItems>;

/** What each CRUD operation of each title kind does to the table (titleOperations). */
export const TITLE_OPERATIONS: Readonly<Record<keyof typeof TITLE_ITEMS, CrudGrants>> = {
  anime: titleOperations(TITLE_ITEMS.anime),
  manga: titleOperations(TITLE_ITEMS.manga),
  character: titleOperations(TITLE_ITEMS.character),
  person: titleOperations(TITLE_ITEMS.person),
  news: titleOperations(TITLE_ITEMS.news),
};

/**
 * A sub-resource list of the titles that link a parent record (API.md §4.0 "Sub-resource
 * lists"; the `news/` of an anime or a manga, §4.1.2): the listed resource's index queried with
 * the parent's equality (`filter`) and the query's filters, its exact `count` the index's count of
 * that query (shared/http/linked-titles.ts; declared by linkedListRoute, shared/http/crud-routes.ts).
 */
export interface LinkedListing<R extends BaseRecord> {
  /** The listed titles (their list item shape). */
  resource: TitleResource<R>;
  /** The parent named by the path's `{id}`: 404 when it does not exist. */
  parent: { kind: string; noun: string };
  /** The index filter whose posting list for the parent's id holds the titles. */
  filter: string;
  orderings: readonly string[];
  defaultOrdering: string;
  /** Query filters (schemas); each names an index filter of the same name. */
  filters: z.core.$ZodLooseShape;
  /** The query filter that narrows the list to one value of it (news: `tag`); `count` is the index's count of the query. */
  param: string;
}
