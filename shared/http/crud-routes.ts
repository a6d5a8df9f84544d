/**
 * The six route declarations of a catalogue resource (API.md §4.0 CRUD pattern). Declarations
 * only: the operations behind them are in crud.ts.
 */
import * as z from 'zod/mini';
import type { KeyPattern } from '../db/key-patterns.js';
import { entityKeys, type BaseRecord } from '../db/records.js';
import { TOMBSTONE_KEYS } from '../db/tombstones.js';
import type { Role } from '../auth/roles.js';
import { writeSchemas, type FieldSpecs } from '../domain/fields.js';
import type { ListOptions } from '../domain/resource.js';
import type { LinkedListing } from '../domain/title-resource.js';
import { defineRoute } from './route.js';
import { orderingParam, searchParam } from './schemas.js';

/** The query parameters of a list: `ordering`, `q` where searched, and the list's filters. */
export function listQuery(listing: { list: Pick<ListOptions, 'orderings' | 'defaultOrdering' | 'search' | 'filters'> }) {
  const { orderings, defaultOrdering, search, filters } = listing.list;
  return z.object({
    ordering: orderingParam(orderings, defaultOrdering),
    ...(search ? { q: searchParam } : {}),
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
  list: Pick<ListOptions, 'orderings' | 'defaultOrdering' | 'search' | 'filters'>;
}

/**
 * The six declarations of a catalogue resource, grouped under its segment. Each touches only
 * the resource's items (`entity`), or the `keys` given (a title also links other records).
 */
export function crudRoutes<R extends BaseRecord>(resource: CrudShape & ({ entity: Parameters<typeof entityKeys<R>>[0] } | { keys: readonly KeyPattern[] })) {
  const { segment, noun, writer, read } = resource;
  const keys = 'keys' in resource ? resource.keys : [entityKeys(resource.entity)];
  // A deletion of a record others reference leaves a tombstone (tombstones.ts).
  const deleteKeys = 'entity' in resource && resource.entity.referenced && !keys.includes(TOMBSTONE_KEYS) ? [...keys, TOMBSTONE_KEYS] : keys;
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
      summary: `List ${segment}`, query: listQuery(resource),
      response: { status: 200, schema: listItem, page: true, fields: Object.keys(listItem.shape) }, keys,
    }),
    create: defineRoute({
      name: `${segment}.create`, method: 'POST', path: collection, access: writer,
      summary: `Create ${a}`, body: body.full,
      response: { status: 201, schema: read }, errors: writeErrors, keys,
    }),
    get: defineRoute({
      name: `${segment}.get`, method: 'GET', path: item, access: 'public',
      summary: `Retrieve one ${noun}`, response: { status: 200, schema: read, fields }, errors: ['not-found'], keys,
    }),
    put: defineRoute({
      name: `${segment}.put`, method: 'PUT', path: item, access: writer,
      summary: `Replace ${a}`, body: body.full,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys,
    }),
    patch: defineRoute({
      name: `${segment}.patch`, method: 'PATCH', path: item, access: writer,
      summary: `Partially update ${a}`, body: body.partial,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys,
    }),
    delete: defineRoute({
      name: `${segment}.delete`, method: 'DELETE', path: item, access: writer,
      summary: `Delete ${a}`, response: { status: 204 }, errors: ['not-found', 'precondition-failed'], keys: deleteKeys,
    }),
  };
}

/**
 * The declaration of a sub-resource list of the titles linking a parent (`GET
 * /api/animes/{id}/news/`; the operation: linked-titles.ts): public, paginated, list items of
 * the listed resource, its ordering keys and filters.
 */
export function linkedListRoute<R extends BaseRecord>(listing: LinkedListing<R>, decl: { name: string; path: string; summary: string; keys: readonly KeyPattern[] }) {
  const item = listing.resource.listRead ?? listing.resource.read;
  return defineRoute({
    name: decl.name, method: 'GET', path: decl.path, access: 'public', summary: decl.summary,
    query: z.object({ ordering: orderingParam(listing.orderings, listing.defaultOrdering), ...listing.filters }),
    response: { status: 200, schema: item, page: true, fields: Object.keys(item.shape) }, errors: ['not-found'], keys: decl.keys,
  });
}
