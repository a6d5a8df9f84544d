/**
 * A large catalogue entity as the operations see it (animes, mangas, characters, persons; API.md
 * §4.0, §4.1, §4.2, §4.7, §4.9): its storage (shared/db/titles.ts), write and read shapes, list
 * options, and how a write becomes a stored record with its relations and the count changes of
 * the records it links.
 */
import type * as z from 'zod/mini';
import type { Caller, Role } from '../auth/roles.js';
import type { BaseRecord, WritePlan } from '../db/records.js';
import type { LinkCount, Relations, StoredTitle, TitleDef } from '../db/titles.js';
import type { FieldErrors } from '../http/problem.js';
import type { Deleted } from '../db/tombstones.js';
import type { FieldSpecs } from './fields.js';
import type { Reference, ReferenceCheck } from './references.js';

export interface TitleListOptions {
  orderings: readonly string[];
  defaultOrdering: string;
  search: boolean;
  /** Filter parameters (query schemas); each names an index filter of the same name, except ranges. */
  filters: z.core.$ZodLooseShape;
  /** Filters that name records (`genre` → `GENRE`): the record must exist (§1.6, else 400). */
  references?: Record<string, string>;
  /** Range filters: parameter → index number it is a lower bound of (`min_score` → `score`). */
  ranges?: Record<string, string>;
  /** Turns the equality filters given into the index filters that answer them together (default: the same). */
  combine?(equals: Record<string, string>): Record<string, string>;
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

/**
 * The items a title's operations touch: its own (records, claims, counter, chunks, journal,
 * index), the records it links (counts) and the records its relations name (checked by read).
 */
export const TITLE_KEYS = {
  anime: ['ANIME#*', 'GENRE#*', 'THEME#*', 'PRODUCER#*', 'CHARACTER#*', 'PERSON#*', 'DELETED'],
  manga: ['MANGA#*', 'GENRE#*', 'THEME#*', 'DEMOGRAPHIC#*', 'MAGAZINE#*', 'CHARACTER#*', 'PERSON#*', 'DELETED'],
  character: ['CHARACTER#*', 'PERSON#*', 'ANIME#*', 'MANGA#*', 'DELETED'],
  person: ['PERSON#*', 'DELETED'],
  news: ['NEWS#*', 'ANIME#*', 'MANGA#*', 'DELETED'],
} as const;

/**
 * A sub-resource list of the titles that link a parent record (API.md §4.0 "Sub-resource
 * lists"; the `news/` of an anime or a manga, §4.1.2): the listed resource's index queried with
 * the parent's equality (`filter`) and the query's filters, its exact `count` from the index's
 * exact counts (shared/http/linked-titles.ts; declared by linkedListRoute, shared/http/crud-routes.ts).
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
  /**
   * The exact count: the index's count `name` (IndexDef.counted) of the parent's id paired with
   * the value of the query filter `param` (linkedValue), summed over its `values` without it.
   */
  counted: { name: string; param: string; values: readonly string[] };
}
