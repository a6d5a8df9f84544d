/**
 * The six route declarations of a catalogue resource (API.md §4.0 CRUD pattern). Declarations
 * only: the operations behind them are in crud.ts.
 */
import * as z from 'zod/mini';
import type { CrudGrants, KeyGrants } from '../db/key-patterns.js';
import { crudGrants, type BaseRecord } from '../db/records.js';
import type { Role } from '../auth/roles.js';
import { writeSchemas, type FieldSpecs } from '../domain/fields.js';
import type { ListOptions } from '../domain/resource.js';
import type { LinkedListing } from '../domain/title-resource.js';
import type { RateLimitDecl } from './rate-limits.js';
import { defineRoute, type Capability } from './route.js';
import { fuzzyParam, idsParam, orderingParam, searchParam, sfwParam } from '../domain/params.js';
import { RELEVANCE } from '../search/relevance.js';

/** The query parameters of a list: `ordering` (with `relevance` where ranked, §8.4), `q` where searched (and `fuzzy` where ranked), and the list's filters. */
export function listQuery(listing: { list: Pick<ListOptions, 'orderings' | 'defaultOrdering' | 'search' | 'relevance' | 'filters'> }) {
  const { orderings, defaultOrdering, search, relevance, filters } = listing.list;
  const ranked = search && relevance === true;
  return z.object({
    ordering: orderingParam(ranked ? [...orderings, RELEVANCE] : orderings, defaultOrdering),
    ...(search ? { q: searchParam } : {}),
    ...(ranked ? { fuzzy: fuzzyParam } : {}),
    ...filters,
  });
}

/** What the six declarations need to know of a resource. */
export interface CrudShape {
  segment: string;
  noun: string;
  writer: Role;
  fields: FieldSpecs;
  /** The detail shape (GET of one record, write responses). */
  read: z.ZodMiniObject;
  /** The list item shape where it is not the detail. */
  listRead?: z.ZodMiniObject;
  list: Pick<ListOptions, 'orderings' | 'defaultOrdering' | 'search' | 'relevance' | 'filters'> & { sfw?: string };
}

/** Every write of the catalogue and taxonomy collections is counted by the `catalogue write` policy (API.md §7.2). */
export const CATALOGUE_WRITE: RateLimitDecl = { policy: 'catalogue-write' };

/**
 * The six declarations of a catalogue resource, grouped under its segment. Each does to the
 * table what its operation does to the resource's items (`entity`: records.ts crudGrants), or
 * what the `keys` given say (a title also links and reads other records). The four writes are
 * counted by the `catalogue write` policy.
 */
export function crudRoutes<R extends BaseRecord>(resource: CrudShape & ({ entity: Parameters<typeof crudGrants<R>>[0] } | { keys: CrudGrants; listUses?: readonly Capability[] })) {
  const { segment, noun, writer, read } = resource;
  const keys = 'keys' in resource ? resource.keys : crudGrants(resource.entity);
  const collection = `/api/${segment}/`;
  const item = `/api/${segment}/{id}/`;
  const fields = Object.keys(read.shape);
  const listItem = resource.listRead ?? read;
  const body = writeSchemas(resource.fields);
  const writeErrors = ['validation-error', 'conflict'] as const;
  const a = /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
  return {
    list: defineRoute({
      name: `${segment}.list`, method: 'GET', path: collection, access: 'public',
      // Every catalogue and taxonomy list is also a batch lookup (API.md §8.1).
      summary: `List ${segment}`, query: z.object({ ...listQuery(resource).shape, ids: idsParam, ...('sfw' in resource.list && resource.list.sfw ? { sfw: sfwParam } : {}) }),
      response: { status: 200, schema: listItem, page: true, fields: Object.keys(listItem.shape) }, keys: keys.list,
      ...('listUses' in resource && resource.listUses ? { uses: resource.listUses } : {}),
    }),
    create: defineRoute({
      name: `${segment}.create`, method: 'POST', path: collection, access: writer,
      summary: `Create ${a}`, body: body.full,
      response: { status: 201, schema: read }, errors: writeErrors, keys: keys.create, rateLimit: CATALOGUE_WRITE,
    }),
    get: defineRoute({
      name: `${segment}.get`, method: 'GET', path: item, access: 'public',
      summary: `Retrieve one ${noun}`, response: { status: 200, schema: read, fields }, errors: ['not-found'], keys: keys.get,
    }),
    put: defineRoute({
      name: `${segment}.put`, method: 'PUT', path: item, access: writer,
      summary: `Replace ${a}`, body: body.full,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys: keys.update, rateLimit: CATALOGUE_WRITE,
    }),
    patch: defineRoute({
      name: `${segment}.patch`, method: 'PATCH', path: item, access: writer,
      summary: `Partially update ${a}`, body: body.partial,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys: keys.update, rateLimit: CATALOGUE_WRITE,
    }),
    delete: defineRoute({
      name: `${segment}.delete`, method: 'DELETE', path: item, access: writer,
      summary: `Delete ${a}`, response: { status: 204 }, errors: ['not-found', 'precondition-failed'], keys: keys.delete, rateLimit: CATALOGUE_WRITE,
    }),
  };
}

/**
 * The declaration of a sub-resource list of the titles linking a parent (`GET
 * /api/animes/{id}/news/`; the operation: linked-titles.ts): public, paginated, list items of
 * the listed resource, its ordering keys and filters.
 */
export function linkedListRoute<R extends BaseRecord>(listing: LinkedListing<R>, decl: { name: string; path: string; summary: string; keys: KeyGrants }) {
  const item = listing.resource.listRead ?? listing.resource.read;
  return defineRoute({
    name: decl.name, method: 'GET', path: decl.path, access: 'public', summary: decl.summary,
    query: z.object({ ordering: orderingParam(listing.orderings, listing.defaultOrdering), ...listing.filters }),
    response: { status: 200, schema: item, page: true, fields: Object.keys(item.shape) }, errors: ['not-found'], keys: decl.keys, uses: ['index-read'],
  });
}
