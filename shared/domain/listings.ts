/**
 * What the sub-resource and linked lists of shared/http need to know of a listing — declared by
 * the domain (animes.ts, mangas.ts, casts.ts, media.ts, linked-animes.ts, …), answered by
 * shared/http/casts.ts, relations.ts and linked-titles.ts. Types only, here so that the domain
 * does not import shared/http.
 */
import type { Item } from '../db/batch.js';
import type { BaseRecord } from '../db/records.js';
import type { OrderType, OrderValue } from '../db/sort-keys.js';
import type { TitleDef } from '../db/titles.js';
import type { TitleResource } from './title-resource.js';

/** A record as a cast list shows it. */
export type ListedRecord = Record<string, unknown> & { id: string };

/** The titles linked to a record (shared/http/linked-titles.ts). */
export interface LinkedTitles<R extends BaseRecord> {
  /** The titles listed (their index, records and list item shape). */
  titles: TitleResource<R>;
  /** The record in the path: its kind (`GENRE`) and noun (404 message). */
  parent: { kind: string; noun: string };
  /**
   * The index's equality filters that select the titles linking the record `id` (given the
   * request's query, e.g. a `role`): `{ genre: id }`, `{ credited: id }`, `{ studio: id }`.
   */
  filter(id: string, query: Record<string, unknown>): Record<string, string>;
  /** The exact number of listed titles from the parent's item (`rec.anime_count`, …); absent: the index's count of the page's query. */
  count?(parent: Item, query: Record<string, unknown>): number;
  /** Fields the list adds to each title (e.g. a producer's `producer_roles`), after its own. */
  extra?(record: R, id: string): Record<string, unknown>;
}

/** A title's relation whose entries name records (shared/http/casts.ts). */
export interface CastListing<E> {
  title: TitleDef<BaseRecord>;
  relation: string;
  noun: string;
  /** The kind of the record an entry names, and its id. */
  kind: string;
  idOf(e: E): string;
  /** Orderings: by the entry's position, or by a field of the record it names. */
  orderings: Record<string, { position: true } | { field: string; type: OrderType }>;
  /** Equality filters: query parameter → the entry's value. */
  filters?: Record<string, (e: E) => string>;
  /** The fields of the record shown (its list item shape). */
  shape: readonly string[];
  /** Records each entry also shows (voice actors): their kind and ids; absent and deleted ones are left out. */
  also?: { kind: string; ids(e: E): string[] };
  /** The entry's own fields added to the record (`role`, `voice_actors`, `positions`). */
  extra(e: E, also: (id: string) => ListedRecord | null): Record<string, unknown>;
}

/** A title's relation listed as written (shared/http/relations.ts). */
export interface RelationListing<E extends { id: string }> {
  title: TitleDef<BaseRecord>;
  relation: string;
  noun: string;
  orderings: Record<string, { value: (e: E, position: number) => OrderValue; type: OrderType }>;
  /** Equality filters: query parameter → the entry's value. */
  filters?: Record<string, (e: E) => string>;
  /** The entry as the list shows it. */
  project?: (e: E) => unknown;
}
