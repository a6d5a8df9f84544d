/**
 * The catalogue CRUD operations of the large entities (animes, mangas, characters, persons;
 * API.md §4.0, §4.1.1, §4.2, §4.7, §4.9): lists answered by the catalogue index's planner,
 * details with their reverse views, writes that carry relations and link counts
 * (shared/db/titles.ts, staged.ts). Declarations: crud-routes.ts.
 */
import { getItems, type Item, type ItemKey } from '../db/batch.js';
import { queryIndex } from '../db/catalogue-index.js';
import { counterKeyOf, joinPlans, recordKeyOfKind, StaleRecord, type BaseRecord, type WritePlan } from '../db/records.js';
import { commitStaged, finishJournal } from '../db/staged.js';
import { loadTitle, titleWrite, type StoredTitle } from '../db/titles.js';
import { ChangedLink, GoneLink } from '../domain/references.js';
import type { TitleResource } from '../domain/title-resource.js';
import { newId } from '../ids.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { addError, fieldErrors, invalidQuery, notFound, serviceUnavailable, validationError } from './problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';

const now = () => new Date().toISOString();
const idOf = (req: ApiRequest) => (req.params as { id: string }).id;

interface Criteria {
  ordering: { key: string; descending: boolean };
  terms: string[];
  equals: Record<string, string>;
  atLeast: Record<string, number>;
  /** Records the filters name, by parameter. */
  named: { param: string; key: ItemKey }[];
}

function criteria<R extends BaseRecord>(resource: TitleResource<R>, req: ApiRequest): Criteria {
  const q = req.query as unknown as Record<string, unknown> & { ordering: Criteria['ordering']; q?: string[] };
  const { ranges = {}, references = {} } = resource.list;
  const equals: Record<string, string> = {};
  const atLeast: Record<string, number> = {};
  const named: Criteria['named'] = [];
  for (const param of Object.keys(resource.list.filters)) {
    const value = q[param];
    if (value === undefined) continue;
    if (Object.hasOwn(ranges, param)) atLeast[ranges[param]!] = value as number;
    else equals[param] = String(value);
    if (Object.hasOwn(references, param)) named.push({ param, key: recordKeyOfKind(references[param]!, String(value)) });
  }
  return { ordering: q.ordering, terms: q.q ?? [], equals, atLeast, named };
}

/** The keys of a resource's detail and of its list items (the detail without its reverse views). */
function shapeKeys<R extends BaseRecord>(resource: TitleResource<R>) {
  const detail = Object.keys(resource.read.shape);
  const item = Object.keys((resource.listRead ?? resource.read).shape);
  return { detail, item, views: detail.filter((k) => !item.includes(k)) };
}

/**
 * The detail of a record (what GET, the write responses and If-Match see): the record and its
 * reverse views, the detail's keys that list items lack (API.md §1.8: a character's `animes`,
 * `mangas`, `voices`, a person's `staff_credits`). The views are fed by the writes of the other
 * side (an anime's cast and staff, a manga's characters and authors); until those exist they
 * are empty. This is the one place that fills them.
 */
function detailOf<R extends BaseRecord>(resource: TitleResource<R>, record: R): R {
  const { detail, views } = shapeKeys(resource);
  return inShapeOrder({ ...record, ...Object.fromEntries(views.map((v) => [v, []])) }, detail);
}

/** Reads records by id, in order, leaving out those deleted meanwhile. */
export async function recordsOf<R>(kind: string, ids: readonly string[], shape: readonly string[]): Promise<R[]> {
  const items = await getItems(ids.map((id) => recordKeyOfKind(kind, id)));
  return items.filter((i): i is Item => i !== null).map((i) => inShapeOrder(i.rec as R, shape));
}

export function listTitles<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  const shape = shapeKeys(resource).item;
  const { entity, index } = resource.title;
  const counter = counterKeyOf(entity);
  const op: Operation = async (req) => {
    const c = criteria(resource, req);
    const filtered = c.terms.length > 0 || Object.keys(c.equals).length > 0 || Object.keys(c.atLeast).length > 0;
    const result = await queryIndex(
      index,
      counter,
      { ordering: c.ordering.key, descending: c.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: c.terms, equals: c.equals, atLeast: c.atLeast },
      {
        also: c.named.map((n) => n.key),
        check: (items) => {
          const errors = fieldErrors();
          c.named.forEach((n, i) => {
            if (!items[i]) addError(errors, n.param, 'No such record.');
          });
          if (Object.keys(errors).length > 0) throw invalidQuery(errors);
        },
        read: async (keys) => {
          const known = keys.map((k) => req.prefetched(k));
          return known.every((k) => k !== undefined) ? (known as (Item | null)[]) : getItems(keys);
        },
      },
    );
    const records = await recordsOf<R>(entity.kind, result.entries.map((e) => e.id), shape);
    return pageReply(req, { items: records, next: result.next, previous: result.previous }, filtered ? null : result.total);
  };
  // With a token, the first call also reads the caller's auth state.
  op.prefetch = (req) => {
    const c = criteria(resource, req);
    return c.named.length === 0 && c.terms.length === 0 && Object.keys(c.equals).length === 0 ? [counter] : [];
  };
  return op;
}

export function getTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  const kind = resource.title.entity.kind;
  const op: Operation = async (req) => {
    const key = recordKeyOfKind(kind, idOf(req));
    const fetched = req.prefetched(key);
    const item = fetched !== undefined ? fetched : (await getItems([key]))[0];
    if (!item) throw notFound(`No ${resource.noun} with this id.`);
    return { status: 200, body: detailOf(resource, item.rec as R) };
  };
  op.prefetch = (req) => [recordKeyOfKind(kind, idOf(req))];
  return op;
}

/** Reads a title for a change: 404 when absent; a journal left by an interrupted write is finished first. */
export async function loadForChange<R extends BaseRecord>(resource: TitleResource<R>, id: string): Promise<StoredTitle<R>> {
  let stored = await loadTitle(resource.title, id);
  if (stored && stored.journal.length > 0 && (await finishJournal(stored.journal, stored.rev, stored.write))) stored = await loadTitle(resource.title, id);
  if (!stored) throw notFound(`No ${resource.noun} with this id.`);
  return { ...stored, record: inShapeOrder(stored.record, shapeKeys(resource).item) };
}

/** A change of a title, as one attempt of writeTitle computes it from what it read. */
export interface TitleAttempt<R> {
  before: StoredTitle<R> | null;
  after: R | null;
  relations: Record<string, readonly unknown[]>;
  /** Items of this change only, committed in the main transaction (e.g. an upload's guard deletion). */
  extra?: WritePlan;
}

/**
 * Writes a title change, retrying from the read when a record it depends on changed meanwhile
 * (its own revision, or a linked record that was deleted or changed type). The main
 * transaction also holds the resource's `extraPlan` and the attempt's `extra`.
 */
export async function writeTitle<R extends BaseRecord>(
  resource: TitleResource<R>,
  attempt: (skip: ReadonlySet<string>) => Promise<TitleAttempt<R> | 'done'>,
): Promise<void> {
  const skip = new Set<string>();
  for (let i = 0; i < 4; i++) {
    const change = await attempt(skip);
    if (change === 'done') return;
    const links = (resource.links?.(change.before?.record ?? null, change.after) ?? []).filter((l) => !skip.has(`${l.key.pk}`));
    const plan = titleWrite(resource.title, change.before, { after: change.after, relations: change.relations, links });
    const own = resource.extraPlan?.(change.before, change.after ? { record: change.after, relations: change.relations } : null);
    const main = joinPlans(plan.main, ...(own ? [own] : []), ...(change.extra ? [change.extra] : []));
    try {
      await commitStaged(main, plan.rest, plan.pk, plan.rev, plan.write);
      return;
    } catch (err) {
      if (err instanceof GoneLink) skip.add(err.key);
      else if (!(err instanceof StaleRecord) && !(err instanceof ChangedLink)) throw err;
    }
  }
  throw serviceUnavailable(1);
}

async function built<R extends BaseRecord>(resource: TitleResource<R>, values: Record<string, unknown>, meta: { id: string; created_at: string; updated_at: string }, before: StoredTitle<R> | null) {
  const out = await resource.build(values, meta, before);
  if ('errors' in out) throw validationError(out.errors);
  return out;
}

export function createTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  return async (req) => {
    const values = req.body() as Record<string, unknown>;
    const at = now();
    const meta = { id: newId(), created_at: at, updated_at: at };
    let record: R | null = null;
    await writeTitle(resource, async () => {
      const out = await built(resource, values, meta, null);
      record = out.record;
      return { before: null, after: out.record, relations: out.relations };
    });
    return { status: 201, body: detailOf(resource, record!), headers: { location: `${req.baseUrl}/api/${resource.segment}/${meta.id}/` } };
  };
}

const same = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

/** PUT and PATCH: 404, then If-Match (412), then the body (400), then the write (409). */
export function updateTitle<R extends BaseRecord>(resource: TitleResource<R>, mode: 'replace' | 'merge'): Operation {
  return async (req) => {
    let result: R | null = null;
    await writeTitle(resource, async () => {
      const before = await loadForChange(resource, idOf(req));
      checkIfMatch(req.ifMatch, recordEtag(detailOf(resource, before.record)));
      const input = req.body() as Record<string, unknown>;
      const current = resource.writable(before.record, before.relations);
      const values = mode === 'replace' ? input : { ...current, ...input };
      if (same(current, values)) {
        result = before.record;
        return 'done';
      }
      const r = before.record;
      const out = await built(resource, values, { id: r.id, created_at: r.created_at, updated_at: now() }, before);
      result = out.record;
      return { before, after: out.record, relations: out.relations };
    });
    return { status: 200, body: detailOf(resource, result!) };
  };
}

export function deleteTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  return async (req) => {
    await writeTitle(resource, async () => {
      const before = await loadForChange(resource, idOf(req));
      checkIfMatch(req.ifMatch, recordEtag(detailOf(resource, before.record)));
      return { before, after: null, relations: {} };
    });
    return { status: 204 };
  };
}
