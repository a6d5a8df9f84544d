/**
 * The catalogue CRUD operations of the large entities (animes, mangas, characters, persons;
 * API.md §4.0, §4.1.1, §4.2, §4.7, §4.9): lists evaluated over the kinds' in-memory indexes,
 * details with their reverse views, writes that carry relations and link counts
 * (shared/db/titles.ts, staged.ts). Declarations: crud-routes.ts.
 */
import { getItems, type Item, type ItemKey } from '../db/batch.js';
import type { IndexQuery } from '../db/catalogue-index.js';
import { recordKeyOfKind, uniqueKeyOf, type BaseRecord } from '../db/records.js';
import { titleRecordOf, withStats, type StoredTitle } from '../db/titles.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { pickSlot } from '../db/slots.js';
import type { TitleResource } from '../domain/title-resource.js';
import { indexPage, indexPick } from '../domain/index-reader.js';
import { sfwExclusions } from '../domain/sfw.js';
import { built, loadForChange, withoutDeleted, withoutPaths, writeTitle } from '../domain/title-writes.js';
import { clock } from '../clock.js';
import { newId } from '../ids.js';
import type { ApiRequest, Operation, Reply } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { addError, fieldErrors, invalidQuery, notFound } from '../problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';
import { RELEVANCE } from '../search/relevance.js';

const now = () => new Date().toISOString();
const idOf = (req: ApiRequest) => (req.params as { id: string }).id;

interface Criteria {
  ordering: { key: string; descending: boolean };
  terms: string[];
  /** `fuzzy=true` (§8.4). */
  fuzzy: boolean;
  equals: Record<string, string>;
  atLeast: Record<string, number>;
  /** `ids` (§8.1): only these records; ids of no record are not an error. */
  ids: ReadonlySet<string> | undefined;
  /** `sfw=true` (§8.3). */
  sfw: boolean;
  /** Records the filters name, by parameter. */
  named: { param: string; key: ItemKey }[];
  /** External-id lookups (`mal_id=…`, §8.2): the claims to read (each narrows the list to the record holding it), the field and value. */
  lookups: { key: ItemKey; field: string; value: string }[];
}

function criteria<R extends BaseRecord>(resource: TitleResource<R>, req: ApiRequest): Criteria {
  const q = req.query as unknown as Record<string, unknown> & { ordering: Criteria['ordering']; q?: string[]; ids?: string[]; sfw?: boolean; fuzzy?: boolean };
  const { ranges = {}, references = {} } = resource.list;
  const equals: Record<string, string> = {};
  const atLeast: Record<string, number> = {};
  const named: Criteria['named'] = [];
  const lookups: Criteria['lookups'] = [];
  for (const param of Object.keys(resource.list.filters)) {
    const value = q[param];
    if (value === undefined) continue;
    const lookup = resource.list.lookups?.[param];
    if (lookup) lookups.push({ key: uniqueKeyOf(resource.title.entity, lookup, String(value).toLowerCase()), field: lookup, value: String(value).toLowerCase() });
    else if (Object.hasOwn(ranges, param)) atLeast[ranges[param]!] = value as number;
    else equals[param] = String(value);
    if (Object.hasOwn(references, param)) named.push({ param, key: recordKeyOfKind(references[param]!, String(value)) });
  }
  return { ordering: q.ordering, terms: q.q ?? [], fuzzy: q.fuzzy === true, equals: resource.list.combine?.(equals) ?? equals, atLeast, ids: q.ids && new Set(q.ids), sfw: q.sfw === true, named, lookups };
}

/** The keys of a resource's detail and of its list items (the detail without its reverse views, or a news article's `content`). */
export function shapeKeys<R extends BaseRecord>(resource: TitleResource<R>) {
  const detail = Object.keys(resource.read.shape);
  const item = Object.keys((resource.listRead ?? resource.read).shape);
  return { detail, item };
}

/**
 * The detail of a record (what GET, the write responses and If-Match see): the record as shown
 * now, without references to deleted records, and its reverse views (the detail's keys that list items lack,
 * API.md §1.8: a character's `animes`, `mangas`, `voices`, a person's `staff_credits`), read
 * from its reverse items (one Query). This is the one place that fills them.
 */
async function detailOf<R extends BaseRecord>(resource: TitleResource<R>, record: R, deleted: Deleted): Promise<R> {
  const { detail } = shapeKeys(resource);
  const views = resource.views ? await resource.views(record.id, deleted) : {};
  return inShapeOrder({ ...presented(resource, clock())(withoutDeleted(resource, record, deleted)), ...views }, detail);
}

/** How a resource's records are shown at `now` (TitleResource.present). */
function presented<R extends BaseRecord>(resource: TitleResource<R>, now: Date): (record: R) => R {
  return resource.present ? (record) => resource.present!(record, now) : (record) => record;
}

/**
 * Reads records by id, in order, as shown now (TitleResource.present), leaving out those deleted
 * meanwhile and their references to deleted records (`deleted`: the tombstones, read before; or a request id, to read them with
 * the records — one call more when the page holds 100).
 */
export async function recordsOf<R extends BaseRecord>(resource: TitleResource<R>, ids: readonly string[], shape: readonly string[], deleted: Deleted | string): Promise<R[]> {
  return (await recordsWith(resource, ids, shape, deleted, [])).records;
}

/** As recordsOf, reading the items at `also` in the same call (e.g. the state of the job that made the list). */
export async function recordsWith<R extends BaseRecord>(
  resource: TitleResource<R>,
  ids: readonly string[],
  shape: readonly string[],
  deleted: Deleted | string,
  also: readonly ItemKey[],
): Promise<{ records: R[]; also: (Item | null)[]; deleted: Deleted }> {
  const keys = [...also, ...ids.map((id) => recordKeyOfKind(resource.title.entity.kind, id))];
  let items: (Item | null)[];
  if (typeof deleted === 'string') {
    const [tomb, ...rest] = await getItems([tombstoneKey(deleted), ...keys]);
    deleted = new Deleted(tomb);
    items = rest;
  } else items = await getItems(keys);
  const known = deleted;
  const present = presented(resource, clock());
  const records = items
    .slice(also.length)
    .filter((i): i is Item => i !== null)
    .map((i) => inShapeOrder(present(withoutDeleted(resource, titleRecordOf(resource.title, i), known)), shape));
  return { records, also: items.slice(0, also.length), deleted: known };
}

/** The tombstones, read now (a write's read-for-change). */
async function deletedNow(): Promise<Deleted> {
  return new Deleted((await getItems([tombstoneKey()]))[0]);
}

/** Items the operation named in its `prefetch` (read with the caller's auth state), else read now. */
export async function readKnown(req: ApiRequest, keys: readonly ItemKey[]): Promise<(Item | null)[]> {
  const known = keys.map((k) => req.prefetched(k));
  return known.every((k) => k !== undefined) ? (known as (Item | null)[]) : getItems(keys);
}

/**
 * The index query as `sfw=true` makes it (§8.3) for a list of `resource`'s titles: with the
 * exclusions of its kind once the tombstone shard — the last item of `known`, read beside the
 * index, in the same round — names the explicit genres and themes; else `q` itself.
 */
export function sfwQuery<R extends BaseRecord>(resource: TitleResource<R>, sfw: unknown, q: IndexQuery, known: Promise<readonly (Item | null)[]>): IndexQuery | Promise<IndexQuery> {
  const kind = resource.list.sfw;
  return kind && sfw === true ? known.then((also) => ({ ...q, excluded: sfwExclusions(kind, new Deleted(also.at(-1))) })) : q;
}

/** The value at a dotted path of a record, as claims key it (lower case). */
const valueAt = (r: object, path: string) => String(path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], r) ?? '').toLowerCase();

/** `ids` narrowed to the records the claims name (every claim must name the same record; a missing one: none). */
function narrowed(ids: ReadonlySet<string> | undefined, claims: readonly (Item | null)[]): ReadonlySet<string> {
  const holders = new Set(claims.map((c) => (c ? String(c.id) : '')));
  const [only] = holders;
  if (holders.size !== 1 || !only || (ids && !ids.has(only))) return new Set();
  return new Set([only]);
}

/**
 * A catalogue list (§4.0): the page evaluated over the kind's in-memory index (its deltas read
 * with the records its filters name and a tombstone shard, at once), then the page's records —
 * two rounds of calls (shared/domain/index-reader.ts).
 */
export function listTitles<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  const shape = shapeKeys(resource).item;
  const { index } = resource.title;
  const op: Operation = async (req) => {
    const c = criteria(resource, req);
    // Relevance ranks the matches of terms (§8.4): without them there is nothing to rank by.
    if (c.ordering.key === RELEVANCE && c.terms.length === 0) throw invalidQuery({ ordering: ['Ordering by relevance needs a search q with at least one term.'] });
    const filtered = c.terms.length > 0 || Object.keys(c.equals).length > 0 || Object.keys(c.atLeast).length > 0 || c.ids !== undefined || c.sfw || c.lookups.length > 0;
    const q = { ordering: c.ordering.key, descending: c.ordering.descending, limit: pageLimit(req), cursor: req.query.cursor ?? null, terms: c.terms, equals: c.equals, atLeast: c.atLeast, ...(c.ids ? { ids: c.ids } : {}), ...(c.fuzzy ? { fuzzy: true } : {}) };
    const known = readKnown(req, [...c.named.map((n) => n.key), ...c.lookups.map((l) => l.key), tombstoneKey(req.requestId)]);
    // An external-id lookup narrows the list to the record its claim names (none: nothing), read beside the index.
    const looked = c.lookups.length === 0 ? q : known.then((also) => ({ ...q, ids: narrowed(c.ids, also.slice(c.named.length, c.named.length + c.lookups.length)) }));
    const [page, also] = await Promise.all([indexPage(index, Promise.resolve(looked).then((x) => sfwQuery(resource, c.sfw, x, known))), known]);
    const errors = fieldErrors();
    c.named.forEach((n, i) => {
      if (!also[i]) addError(errors, n.param, 'No such record.');
    });
    if (Object.keys(errors).length > 0) throw invalidQuery(errors);
    const found = await recordsOf(resource, page.entries.map((e) => e.id), shape, new Deleted(also.at(-1)));
    // A claim given up by a write still finishing names its record for a moment (UniqueField.releaseLater): the record decides.
    const records = c.lookups.length === 0 ? found : found.filter((r) => c.lookups.every((l) => valueAt(r, l.field) === l.value));
    return pageReply(req, { items: records, next: page.next, previous: page.previous }, filtered ? null : page.count);
  };
  // With a token, the tombstones are read with the caller's auth state.
  op.prefetch = (req) => (criteria(resource, req).named.length === 0 ? [tombstoneKey(req.requestId)] : []);
  return op;
}

export function getTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  const kind = resource.title.entity.kind;
  const keys = (req: ApiRequest) => [recordKeyOfKind(kind, idOf(req)), tombstoneKey(req.requestId)];
  const op: Operation = async (req) => {
    const wanted = keys(req);
    const fetched = wanted.map((k) => req.prefetched(k));
    const [item, tomb] = fetched.every((f) => f !== undefined) ? fetched : await getItems(wanted);
    if (!item) throw notFound(`No ${resource.noun} with this id.`);
    return { status: 200, body: await detailOf(resource, titleRecordOf(resource.title, item), new Deleted(tomb)) };
  };
  op.prefetch = keys;
  return op;
}

/**
 * `GET /api/random/<kind>/` (§4.13): a record drawn uniformly from the kind's slots (slots.ts),
 * as its detail GET shows it: the counter, a slot, then the record with the tombstones — three
 * calls (and the reverse views' Query of characters and persons) whatever the catalogue's size.
 */
export function randomTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  const kind = resource.title.entity.kind;
  const { index } = resource.title;
  const sfwKind = resource.list.sfw;
  /** `sfw=true` (§8.3): drawn among the index's records that are not explicit (the tombstone shard read beside it). */
  const safePick = (req: ApiRequest) =>
    indexPick(
      index,
      getItems([tombstoneKey(req.requestId)]).then(([tomb]) => ({ ordering: index.listOrder.replace(/^-/, ''), descending: false, limit: 1, cursor: null, terms: [], equals: {}, excluded: sfwExclusions(sfwKind!, new Deleted(tomb)) })),
    );
  return async (req) => {
    const sfw = sfwKind !== undefined && (req.query as { sfw?: boolean }).sfw === true;
    // A record deleted between the slot's read and its own is drawn again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const id = sfw ? await safePick(req) : await pickSlot(kind);
      if (id === null) break;
      const [item, tomb] = await getItems([recordKeyOfKind(kind, id), tombstoneKey(req.requestId)]);
      if (item) return { status: 200, body: await detailOf(resource, titleRecordOf(resource.title, item), new Deleted(tomb)) };
    }
    throw notFound(`There is no ${resource.noun} yet.`);
  };
}

export function createTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  return async (req) => {
    const values = req.body() as Record<string, unknown>;
    const at = now();
    const meta = { id: newId(), created_at: at, updated_at: at, caller: req.caller };
    let reply: Reply | null = null;
    await writeTitle(resource, async () => {
      const out = await built(resource, values, meta, null);
      // The answer is known before the commit, which stores it with the record (§8.7).
      reply = { status: 201, body: await detailOf(resource, out.record, await deletedNow()), headers: { location: `${req.baseUrl}/api/${resource.segment}/${meta.id}/` } };
      return { before: null, after: out.record, relations: out.relations, extra: req.idempotent(reply) };
    });
    return reply!;
  };
}

/**
 * The writable values of a stored title as a PATCH starts from them: without the references to
 * records deleted since (their removal by the consumer may still be under way).
 */
function currentValues<R extends BaseRecord>(resource: TitleResource<R>, before: StoredTitle<R>, deleted: Deleted): Record<string, unknown> {
  const values = resource.writable(before.record, before.relations);
  const gone = (resource.references?.(values) ?? []).filter((r) => deleted.has(r.kind, r.id)).map((r) => r.path);
  return gone.length > 0 ? withoutPaths(values, gone) : values;
}

const same = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));

/** PUT and PATCH: 404, then If-Match (412), then the body (400), then the write (409). */
export function updateTitle<R extends BaseRecord>(resource: TitleResource<R>, mode: 'replace' | 'merge'): Operation {
  return async (req) => {
    let result: R | null = null;
    let deleted: Deleted | null = null;
    await writeTitle(resource, async () => {
      const before = await loadForChange(resource, idOf(req));
      deleted = await deletedNow();
      checkIfMatch(req.ifMatch, recordEtag(await detailOf(resource, withStats(resource.title, before.record, before.stats), deleted)));
      const input = req.body() as Record<string, unknown>;
      const current = currentValues(resource, before, deleted);
      const values = mode === 'replace' ? input : { ...current, ...input };
      if (same(current, values)) {
        result = withStats(resource.title, before.record, before.stats);
        return 'done';
      }
      const r = before.record;
      const out = await built(resource, values, { id: r.id, created_at: r.created_at, updated_at: now(), caller: req.caller }, before);
      result = withStats(resource.title, out.record, before.stats);
      return { before, after: out.record, relations: out.relations };
    });
    return { status: 200, body: await detailOf(resource, result!, deleted!) };
  };
}

export function deleteTitle<R extends BaseRecord>(resource: TitleResource<R>): Operation {
  return async (req) => {
    await writeTitle(resource, async () => {
      const before = await loadForChange(resource, idOf(req));
      checkIfMatch(req.ifMatch, recordEtag(await detailOf(resource, withStats(resource.title, before.record, before.stats), await deletedNow())));
      return { before, after: null, relations: {} };
    });
    return { status: 204 };
  };
}
