/**
 * A large catalogue entity as the operations see it (animes, mangas, characters, persons; API.md
 * §4.0, §4.1, §4.2, §4.7, §4.9): its storage (shared/db/titles.ts), write and read shapes, list
 * options, and how a write becomes a stored record with its relations and the count changes of
 * the records it links.
 */
import type { z } from 'zod';
import type { Role } from '../auth/roles.js';
import type { BaseRecord, WritePlan } from '../db/records.js';
import type { LinkCount, Relations, StoredTitle, TitleDef } from '../db/titles.js';
import type { FieldErrors } from '../http/problem.js';
import type { FieldSpecs } from './fields.js';

export interface TitleListOptions {
  orderings: readonly string[];
  defaultOrdering: string;
  search: boolean;
  /** Filter parameters (query schemas); each names an index filter of the same name, except ranges. */
  filters: z.ZodRawShape;
  /** Filters that name records (`genre` → `GENRE`): the record must exist (§1.6, else 400). */
  references?: Record<string, string>;
  /** Range filters: parameter → index number it is a lower bound of (`min_score` → `score`). */
  ranges?: Record<string, string>;
}

export interface TitleResource<R extends BaseRecord> {
  segment: string;
  noun: string;
  title: TitleDef<R>;
  writer: Role;
  fields: FieldSpecs;
  /** The detail shape. */
  read: z.ZodObject;
  /**
   * The list item shape where it is not the detail: the detail without its reverse views (a
   * character's `animes`, `mangas`, `voices`; shared/http/titles.ts detailOf).
   */
  listRead?: z.ZodObject;
  list: TitleListOptions;
  /** The writable values of a stored title (what a PATCH starts from). */
  writable(r: R, relations: Relations): Record<string, unknown>;
  /** The stored record and relations for validated values, or every field error (400). */
  build(
    values: Record<string, unknown>,
    meta: { id: string; created_at: string; updated_at: string },
    before: StoredTitle<R> | null,
  ): Promise<{ errors: FieldErrors } | { record: R; relations: Relations }>;
  /** The count changes of linked records when a title changes from `before` to `after` (absent: it links none). */
  links?(before: R | null, after: R | null): LinkCount[];
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
  anime: ['ANIME#*', 'GENRE#*', 'THEME#*', 'PRODUCER#*', 'CHARACTER#*', 'PERSON#*'],
  character: ['CHARACTER#*'],
  person: ['PERSON#*'],
} as const;
