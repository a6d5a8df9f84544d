/**
 * The catalogue CRUD pattern of API.md §4.0: the six route declarations of a resource and the
 * operation behind each. Handlers are one line each (functions/<segment>/<op>.ts).
 */
import * as z from 'zod';
import { countRecords, createRecord, deleteRecord, getRecord, listRecords, replaceRecord, StaleRecord, type BaseRecord, type Stored } from '../db/records.js';
import { bodySchemas, type Resource } from '../domain/resource.js';
import { newId } from '../ids.js';
import type { ApiRequest, Reply } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound, serviceUnavailable } from './problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';
import { defineRoute } from './route.js';
import { orderingParam, searchParam } from './schemas.js';

function listQuery<R extends BaseRecord>(resource: Resource<R>) {
  const { orderings, defaultOrdering, search, filters } = resource.list;
  return z.object({
    ordering: orderingParam(orderings, defaultOrdering),
    ...(search ? { q: searchParam } : {}),
    ...filters,
  });
}

/** The six declarations of a catalogue resource, grouped under its segment. */
export function crudRoutes<R extends BaseRecord>(resource: Resource<R>) {
  const { segment, noun, writer, read } = resource;
  const collection = `/api/${segment}/`;
  const item = `/api/${segment}/{id}/`;
  const fields = Object.keys(read.shape);
  const body = bodySchemas(resource);
  const writeErrors = ['validation-error', 'conflict'] as const;
  return {
    list: defineRoute({
      name: `${segment}.list`, method: 'GET', path: collection, access: 'public',
      summary: `List ${segment}`, query: listQuery(resource),
      response: { status: 200, schema: read, page: true, fields },
    }),
    create: defineRoute({
      name: `${segment}.create`, method: 'POST', path: collection, access: writer,
      summary: `Create a ${noun}`, body: body.full,
      response: { status: 201, schema: read }, errors: writeErrors,
    }),
    get: defineRoute({
      name: `${segment}.get`, method: 'GET', path: item, access: 'public',
      summary: `Retrieve one ${noun}`, response: { status: 200, schema: read, fields }, errors: ['not-found'],
    }),
    put: defineRoute({
      name: `${segment}.put`, method: 'PUT', path: item, access: writer,
      summary: `Replace a ${noun}`, body: body.full,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors],
    }),
    patch: defineRoute({
      name: `${segment}.patch`, method: 'PATCH', path: item, access: writer,
      summary: `Partially update a ${noun}`, body: body.partial,
      response: { status: 200, schema: read }, errors: ['not-found', 'precondition-failed', ...writeErrors],
    }),
    delete: defineRoute({
      name: `${segment}.delete`, method: 'DELETE', path: item, access: writer,
      summary: `Delete a ${noun}`, response: { status: 204 }, errors: ['not-found', 'precondition-failed'],
    }),
  };
}

type Op = (req: ApiRequest) => Promise<Reply>;
const now = () => new Date().toISOString();

export function listOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  const filterNames = Object.keys(resource.list.filters ?? {});
  return async (req) => {
    const q = req.query as unknown as { ordering: { key: string; descending: boolean }; q?: string[] } & Record<string, unknown>;
    const terms = q.q ?? [];
    const equals: Record<string, string> = {};
    for (const name of filterNames) if (typeof q[name] === 'string') equals[name] = q[name];
    const filtered = terms.length > 0 || Object.keys(equals).length > 0;
    const [page, count] = await Promise.all([
      listRecords(resource.entity, {
        ordering: q.ordering.key,
        descending: q.ordering.descending,
        limit: pageLimit(req),
        cursor: req.query.cursor ?? null,
        terms,
        equals,
      }),
      filtered ? Promise.resolve(null) : countRecords(resource.entity),
    ]);
    const keys = Object.keys(resource.read.shape);
    return pageReply(req, { ...page, items: page.items.map((i) => inShapeOrder(i.value, keys)) }, count);
  };
}

async function load<R extends BaseRecord>(resource: Resource<R>, req: ApiRequest): Promise<Stored<R>> {
  const stored = await getRecord(resource.entity, (req.params as { id: string }).id);
  if (!stored) throw notFound(`No ${resource.noun} with this id.`);
  return { ...stored, record: inShapeOrder(stored.record, Object.keys(resource.read.shape)) };
}

export function getOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  return async (req) => ({ status: 200, body: (await load(resource, req)).record });
}

export function createOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  return async (req) => {
    const values = req.body() as Record<string, unknown>;
    const at = now();
    const record = resource.toRecord(values, { id: newId(), created_at: at, updated_at: at }, null);
    resource.checkChange?.(null, record);
    await createRecord(resource.entity, record);
    return {
      status: 201,
      body: record,
      headers: { location: `${req.baseUrl}/api/${resource.segment}/${record.id}/` },
    };
  };
}

const writable = <R extends BaseRecord>(resource: Resource<R>, r: R) =>
  Object.fromEntries(Object.keys(resource.fields).map((f) => [f, (r as unknown as Record<string, unknown>)[f]]));

/**
 * PUT and PATCH: read the record (404), compare If-Match with its current ETag (412), validate
 * the body (400), write conditioned on the revision that was read (409 on a uniqueness clash).
 * A concurrent change between read and write makes the write fail; it is then retried from the
 * read, so If-Match is always compared with the representation actually replaced.
 */
export function updateOperation<R extends BaseRecord>(resource: Resource<R>, mode: 'replace' | 'merge'): Op {
  return async (req) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await load(resource, req);
      checkIfMatch(req.ifMatch, recordEtag(before.record));
      const input = req.body() as Record<string, unknown>;
      const current = writable(resource, before.record);
      const values = mode === 'replace' ? input : { ...current, ...input };
      // Nothing writable changes: no write, and `updated_at` stays (§1.3).
      if (sameValues(current, values)) return { status: 200, body: before.record };
      const r = before.record;
      const after = resource.toRecord(values, { id: r.id, created_at: r.created_at, updated_at: now() }, r);
      resource.checkChange?.(before, after);
      try {
        await replaceRecord(resource.entity, before, after);
        return { status: 200, body: after };
      } catch (err) {
        if (!(err instanceof StaleRecord)) throw err;
      }
    }
    throw serviceUnavailable(1);
  };
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return Object.keys(a).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

export function deleteOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  return async (req) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = await load(resource, req);
      checkIfMatch(req.ifMatch, recordEtag(stored.record));
      try {
        await deleteRecord(resource.entity, stored);
        return { status: 204 };
      } catch (err) {
        if (!(err instanceof StaleRecord)) throw err;
      }
    }
    throw serviceUnavailable(1);
  };
}
