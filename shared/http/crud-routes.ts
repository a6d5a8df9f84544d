/**
 * The six route declarations of a catalogue resource (API.md §4.0 CRUD pattern). Declarations
 * only: the operations behind them are in crud.ts.
 */
import * as z from 'zod';
import { entityKeys, type BaseRecord } from '../db/records.js';
import { bodySchemas, type Listing, type Resource } from '../domain/resource.js';
import { defineRoute } from './route.js';
import { orderingParam, searchParam } from './schemas.js';

/** The query parameters of a list: `ordering`, `q` where searched, and the list's filters. */
export function listQuery<R extends BaseRecord>(listing: Listing<R>) {
  const { orderings, defaultOrdering, search, filters } = listing.list;
  return z.object({
    ordering: orderingParam(orderings, defaultOrdering),
    ...(search ? { q: searchParam } : {}),
    ...filters,
  });
}

/** The six declarations of a catalogue resource, grouped under its segment; each touches only the resource's items. */
export function crudRoutes<R extends BaseRecord>(resource: Resource<R>) {
  const { segment, noun, writer, read } = resource;
  const keys = [entityKeys(resource.entity)];
  const collection = `/api/${segment}/`;
  const item = `/api/${segment}/{id}/`;
  const fields = Object.keys(read.shape);
  const body = bodySchemas(resource);
  const writeErrors = ['validation-error', 'conflict'] as const;
  return {
    list: defineRoute({
      name: `${segment}.list`, method: 'GET', path: collection, access: 'public',
      summary: `List ${segment}`, query: listQuery(resource),
      response: { status: 200, schema: read, page: true, fields }, keys,
    }),
    create: defineRoute({
      name: `${segment}.create`, method: 'POST', path: collection, access: writer,
      summary: `Create a ${noun}`, body: body.full,
      response: { status: 201, schema: read }, errors: writeErrors, keys,
    }),
    get: defineRoute({
      name: `${segment}.get`, method: 'GET', path: item, access: 'public',
      summary: `Retrieve one ${noun}`, response: { status: 200, schema: read, fields }, errors: ['not-found'], keys,
    }),
    put: defineRoute({
      name: `${segment}.put`, method: 'PUT', path: item, access: writer,
      summary: `Replace a ${noun}`, body: body.full,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys,
    }),
    patch: defineRoute({
      name: `${segment}.patch`, method: 'PATCH', path: item, access: writer,
      summary: `Partially update a ${noun}`, body: body.partial,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors], keys,
    }),
    delete: defineRoute({
      name: `${segment}.delete`, method: 'DELETE', path: item, access: writer,
      summary: `Delete a ${noun}`, response: { status: 204 }, errors: ['not-found', 'precondition-failed'], keys,
    }),
  };
}
