/**
 * A catalogue resource as the CRUD operations see it (API.md §4.0): its storage (an entity of
 * shared/db), its write shape, its read shape, its list options and its own rules.
 */
import type * as z from 'zod/mini';
import type { Role } from '../auth/roles.js';
import type { BaseRecord, EntityDef, Stored } from '../db/records.js';
import type { FieldSpecs } from './fields.js';

export interface ListOptions {
  /** Allowed `ordering` keys and the default (prefixed with `-` for descending). */
  orderings: readonly string[];
  defaultOrdering: string;
  /** Whether `q` is accepted. */
  search: boolean;
  /** Whether `ordering=relevance` and `fuzzy` are accepted with `q` (API.md §8.4: the lists of the in-memory index). */
  relevance?: boolean;
  /** Extra filter parameters (query schemas) matched by equality on filter attributes. */
  filters?: z.core.$ZodLooseShape;
  /**
   * `q` also matches a record whose filter attribute `attribute` starts with the whole `q`,
   * normalised by `normalize` (the users' e-mail search, API.md §4.21.1).
   */
  alsoPrefixOf?: { attribute: string; normalize: (q: string) => string };
  /**
   * Pages show the records themselves, read by id after the page's entries: the records hold
   * counts that linked titles change without rewriting the ordering entries (exact at once,
   * §3.7), one more call per page.
   */
  liveRecords?: boolean;
}

export interface Resource<R extends BaseRecord = BaseRecord> {
  /** Collection segment of the paths (`/api/<segment>/`). */
  segment: string;
  /** Singular noun for messages and summaries. */
  noun: string;
  entity: EntityDef<R>;
  /** Lowest role allowed to write. */
  writer: Role;
  /** Write shape: fields a client may send. */
  fields: FieldSpecs;
  /** Read shape (list item = detail for these resources). */
  read: z.ZodMiniObject;
  list: ListOptions;
  /** Builds the stored record from the writable values (`prev` when the record exists). */
  toRecord(values: Record<string, unknown>, meta: { id: string; created_at: string; updated_at: string }, prev: R | null): R;
  /** Private attributes a new record starts with (e.g. a producer's credit counters). */
  privateDefaults?: () => Record<string, unknown>;
  /** Rules that need the stored record (e.g. 409 on a forbidden change); throws HttpError. */
  checkChange?(before: Stored<R> | null, after: R): void;
}

/** What listing a resource needs: its entity, read shape and list options. */
export type Listing<R extends BaseRecord = BaseRecord> = Pick<Resource<R>, 'entity' | 'read' | 'list'>;
