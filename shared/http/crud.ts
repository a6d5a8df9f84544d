/**
 * The operations of the catalogue CRUD pattern (API.md §4.0; declarations in crud-routes.ts).
 * Handlers are one line each (functions/<segment>/<op>.ts).
 */
import { getItems } from '../db/batch.js';
import {
  countFromItem,
  countRecords,
  counterKeyOf,
  createRecord,
  deleteRecord,
  getRecord,
  listRecords,
  listRecordsAmong,
  recordKeyOf,
  replaceRecord,
  StaleRecord,
  storedFromItem,
  type BaseRecord,
  type Stored,
} from '../db/records.js';
import type { Listing, Resource } from '../domain/resource.js';
import { newId } from '../ids.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound, serviceUnavailable } from '../problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';

type Op = Operation;
const now = () => new Date().toISOString();

export function listOperation<R extends BaseRecord>(resource: Listing<R>): Op {
  const filterNames = Object.keys(resource.list.filters ?? {});
  const keys = Object.keys(resource.read.shape);
  const alsoPrefixOf = resource.list.alsoPrefixOf;
  const criteria = (req: ApiRequest) => {
    const q = req.query as unknown as { ordering: { key: string; descending: boolean }; q?: string[]; ids?: string[] } & Record<string, unknown>;
    const equals: Record<string, string | boolean> = {};
    for (const name of filterNames) {
      const value = q[name];
      if (typeof value === 'string' || typeof value === 'boolean') equals[name] = value;
    }
    const terms = q.q ?? [];
    const rawQ = req.queryPairs.find(([k]) => k === 'q')?.[1];
    const orPrefix = alsoPrefixOf && terms.length > 0 && rawQ !== undefined ? { attribute: alsoPrefixOf.attribute, prefix: alsoPrefixOf.normalize(rawQ) } : undefined;
    return { ordering: q.ordering, terms, equals, orPrefix, ids: q.ids, exactCount: terms.length === 0 && Object.keys(equals).length === 0 && q.ids === undefined };
  };
  const counter = counterKeyOf(resource.entity);
  const op: Op = async (req) => {
    const { ordering, terms, equals, orPrefix, ids, exactCount } = criteria(req);
    const prefetched = req.prefetched(counter);
    const listRequest = {
      ordering: ordering.key,
      descending: ordering.descending,
      limit: pageLimit(req),
      cursor: req.query.cursor ?? null,
      terms,
      equals,
      ...(orPrefix ? { orPrefix } : {}),
    };
    // A batch lookup (§8.1) reads its records by id: one round, the records as they are now.
    if (ids) {
      const page = await listRecordsAmong(resource.entity, ids, listRequest);
      return pageReply(req, { ...page, items: page.items.map((i) => inShapeOrder(i.value, keys)) }, null);
    }
    const [page, count] = await Promise.all([
      listRecords(resource.entity, listRequest),
      !exactCount ? null : prefetched !== undefined ? countFromItem(prefetched) : countRecords(resource.entity),
    ]);
    const values = resource.list.liveRecords ? await liveRecords(resource, page.items.map((i) => i.value)) : page.items.map((i) => i.value);
    return pageReply(req, { ...page, items: values.map((v) => inShapeOrder(v, keys)) }, count);
  };
  // The exact count is read anyway: with a token, together with the caller's auth state.
  op.prefetch = (req) => (criteria(req).exactCount ? [counter] : []);
  return op;
}

/** The current records of a page's entries (a record deleted meanwhile is left out). */
async function liveRecords<R extends BaseRecord>(resource: Listing<R>, entries: readonly R[]): Promise<R[]> {
  const items = await getItems(entries.map((e) => recordKeyOf(resource.entity, e.id)));
  return items.flatMap((item) => (item ? [storedFromItem<R>(item)!.record] : []));
}

const idOf = (req: ApiRequest) => (req.params as { id: string }).id;

async function load<R extends BaseRecord>(resource: Resource<R>, req: ApiRequest, useFetched = false): Promise<Stored<R>> {
  const fetched = useFetched ? req.prefetched(recordKeyOf(resource.entity, idOf(req))) : undefined;
  const stored = fetched !== undefined ? storedFromItem<R>(fetched) : await getRecord(resource.entity, idOf(req));
  if (!stored) throw notFound(`No ${resource.noun} with this id.`);
  return { ...stored, record: inShapeOrder(stored.record, Object.keys(resource.read.shape)) };
}

export function getOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  const op: Op = async (req) => ({ status: 200, body: (await load(resource, req, true)).record });
  // With a token, the record is read together with the caller's auth state.
  op.prefetch = (req) => [recordKeyOf(resource.entity, idOf(req))];
  return op;
}

export function createOperation<R extends BaseRecord>(resource: Resource<R>): Op {
  return async (req) => {
    const values = req.body() as Record<string, unknown>;
    const at = now();
    const record = resource.toRecord(values, { id: newId(), created_at: at, updated_at: at }, null);
    resource.checkChange?.(null, record);
    const reply = { status: 201, body: record, headers: { location: `${req.baseUrl}/api/${resource.segment}/${record.id}/` } };
    await createRecord(resource.entity, record, resource.privateDefaults?.(), req.idempotent(reply));
    return reply;
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
