/**
 * The operations on the caller's anime and manga lists (API.md §4.10), for either kind
 * (shared/domain/playlists.ts). Only the caller's own list is ever read or written: an item of
 * another user's list is indistinguishable from none (404), for every caller.
 *
 * Items of a title deleted since are hidden at once (tombstones) and removed with their counts
 * by the relations consumer.
 */
import { getItems, type Item } from '../db/batch.js';
import { countsWithoutDeleted, ensureList, itemKey, itemPlan, listKey, listUpdatePlan, listVectors, storedItem, storedList, titleWithItem, type StoredItem, type StoredList } from '../db/playlists.js';
import { commit, commitContended, recordKeyOfKind, StaleRecord } from '../db/records.js';
import { statsOf, titleRecordOf } from '../db/titles.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { vectorPage, type Vector } from '../db/catalogue-index.js';
import { blankList, itemBodies, itemErrors, itemIndex, itemShape, listBody, listCounts, titleStats, type ItemRecord, type ListRecord, type PlaylistKind } from '../domain/playlists.js';
import { newId } from '../ids.js';
import { checkBody, now, retrying, validBody } from './changes.js';
import type { ApiRequest, Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { addError, notFound, validationError } from '../problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';

const userOf = (req: ApiRequest) => req.caller!.user_id;
const itemIdOf = (req: ApiRequest) => (req.params as { item_id: string }).item_id;
const noSuchItem = () => notFound('No item with this id on your list.');

// ---- The list

function listView(kind: PlaylistKind, req: ApiRequest, stored: StoredList) {
  const r = stored.record;
  return {
    id: r.id,
    owner: { id: req.caller!.user_id, username: req.caller!.username },
    name: r.name,
    is_public: r.is_public,
    banner: r.banner,
    counts: listCounts(kind, stored.counts),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * The caller's list (null: none yet), read with a tombstone shard: its counts leave out the items
 * of titles deleted since, whose cascade has not removed them yet (§5.1).
 */
async function readList(kind: PlaylistKind, req: ApiRequest): Promise<StoredList | null> {
  const [item, tomb] = await getItems([listKey(kind, userOf(req)), tombstoneKey(req.requestId)]);
  const stored = storedList(kind, item);
  return stored && { ...stored, counts: await countsWithoutDeleted(kind, userOf(req), stored.counts, new Deleted(tomb)) };
}

/** The caller's list; created blank by this first use if it does not exist (§3.11). */
async function listOfCaller(kind: PlaylistKind, req: ApiRequest): Promise<StoredList> {
  return (await readList(kind, req)) ?? ensureList(kind, userOf(req), blankList(newId(), now()));
}

export const getListOperation =
  (kind: PlaylistKind): Operation =>
  async (req) => ({ status: 200, body: listView(kind, req, await listOfCaller(kind, req)) });

/**
 * `PATCH`: any subset of `name`, `is_public`, `banner`; `updated_at` changes when a value does.
 * A list that does not exist yet is created by the PATCH — with its values — only when the PATCH
 * is accepted: a refused one (412, 400) leaves no list behind (a list shows in the owner's
 * public `about` view).
 */
export const patchListOperation =
  (kind: PlaylistKind): Operation =>
  (req) =>
    retrying(async () => {
      const existing = await readList(kind, req);
      const stored = existing ?? { record: blankList(newId(), now()), rev: 0, counts: {} };
      checkIfMatch(req.ifMatch, recordEtag(listView(kind, req, stored)));
      const input = validBody(listBody, req.rawBody) as Partial<ListRecord>;
      const before = stored.record;
      const after: ListRecord = { ...before, ...input };
      if (!existing) {
        const created = await ensureList(kind, userOf(req), after);
        // Created meanwhile by another request: change that one.
        if (created.record.id !== after.id) throw new StaleRecord(kind.store);
        return { status: 200, body: listView(kind, req, created) };
      }
      if ((['name', 'is_public', 'banner'] as const).every((k) => after[k] === before[k])) return { status: 200, body: listView(kind, req, stored) };
      after.updated_at = now();
      await commit(listUpdatePlan(kind, userOf(req), stored, after));
      return { status: 200, body: listView(kind, req, { ...stored, record: after, rev: stored.rev + 1 }) };
    });

// ---- The items

/** An item with its title's card (the title's current values and counters). */
function itemView(kind: PlaylistKind, item: ItemRecord, title: Item) {
  const card = inShapeOrder(titleRecordOf(kind.title, title), Object.keys(kind.card.shape));
  return inShapeOrder({ ...item, [kind.cardField]: card }, itemShape(kind));
}

/** The caller's item and its title (404 when either is gone or the title is deleted): two reads. */
async function readItem(kind: PlaylistKind, req: ApiRequest): Promise<{ stored: StoredItem; title: Item }> {
  const [item, tomb] = await getItems([itemKey(kind, userOf(req), itemIdOf(req)), tombstoneKey(req.requestId)]);
  const stored = storedItem(item);
  if (!stored) throw noSuchItem();
  const titleId = stored.record[kind.idField] as string;
  if (new Deleted(tomb).has(kind.titleKind, titleId)) throw noSuchItem();
  const [title] = await getItems([recordKeyOfKind(kind.titleKind, titleId)]);
  if (!title) throw noSuchItem();
  return { stored, title };
}

/** The title's record again after an edit, for the card (its counters include the edit). */
async function titleNow(kind: PlaylistKind, titleId: string, fallback: Item): Promise<Item> {
  const [title] = await getItems([recordKeyOfKind(kind.titleKind, titleId)]);
  return title ?? fallback;
}

export const getItemOperation =
  (kind: PlaylistKind): Operation =>
  async (req) => {
    const { stored, title } = await readItem(kind, req);
    return { status: 200, body: itemView(kind, stored.record, title) };
  };

/**
 * `POST`: the item write shape with the title's id. The title must exist (400 on the id field);
 * a title on the list already → 409 with the existing item's id; progress fields are bounded
 * by the title's counts when known.
 */
export const createItemOperation =
  (kind: PlaylistKind): Operation =>
  async (req) => {
    const { errors, value } = checkBody(itemBodies(kind).create, req.rawBody);
    const titleId = req.rawBody[kind.idField];
    let title: Item | null = null;
    if (typeof titleId === 'string' && !errors[kind.idField]) {
      const [found, tomb] = await getItems([recordKeyOfKind(kind.titleKind, titleId), tombstoneKey(req.requestId)]);
      title = found && !new Deleted(tomb).has(kind.titleKind, titleId) ? found : null;
      if (!title) addError(errors, kind.idField, `No such ${kind.titleKind.toLowerCase()}.`);
    }
    if (!value || !title) throw validationError(errors);
    const at = now();
    const rec = title.rec as Record<string, unknown>;
    const item = { id: newId(), ...(value as Record<string, unknown>), title_name: rec.name, created_at: at, updated_at: at } as ItemRecord;
    const more = itemErrors(kind, item, value as Record<string, unknown>, rec);
    if (Object.keys(more).length > 0) throw validationError(more);
    const userId = userOf(req);
    // The card's counters as this item leaves them: the answer is known before the transaction, which stores it (§8.7).
    const reply = {
      status: 201,
      body: itemView(kind, item, titleWithItem(kind, title, item)),
      headers: { location: `${req.baseUrl}/api/playlists/${kind.segment}/${kind.items}/${item.id}/` },
    };
    await commitContended(
      itemPlan({ kind, userId, before: null, after: item, blank: blankList(newId(), at), titleGone: { what: 'error', error: () => validationError({ [kind.idField]: [`No such ${kind.titleKind.toLowerCase()}.`] }) } }),
      req.idempotent(reply),
    );
    return reply;
  };

/**
 * `PATCH`: any subset of the write shape but the title's id (→ 400); `{}` changes nothing. The
 * rules are checked before the no-op shortcut: a progress field is checked whenever it is sent
 * (§3.11), also at its stored value (the title's count may have shrunk since).
 */
export const patchItemOperation =
  (kind: PlaylistKind): Operation =>
  (req) =>
    retrying(async () => {
      const { stored, title } = await readItem(kind, req);
      checkIfMatch(req.ifMatch, recordEtag(itemView(kind, stored.record, title)));
      if (kind.idField in req.rawBody) throw validationError({ [kind.idField]: [`The ${kind.titleKind.toLowerCase()} of an item cannot be changed.`] });
      const input = validBody(itemBodies(kind).patch, req.rawBody) as Record<string, unknown>;
      const before = stored.record;
      const rec = title.rec as Record<string, unknown>;
      const errors = itemErrors(kind, { ...before, ...input }, input, rec);
      if (Object.keys(errors).length > 0) throw validationError(errors);
      const changed = Object.keys(input).filter((k) => JSON.stringify(input[k]) !== JSON.stringify(before[k]));
      if (changed.length === 0) return { status: 200, body: itemView(kind, before, title) };
      const after = { ...before, ...input, title_name: rec.name, updated_at: now() } as ItemRecord;
      await commitContended(itemPlan({ kind, userId: userOf(req), before: stored, after, blank: blankList(newId(), now()), titleGone: { what: 'error', error: noSuchItem } }));
      return { status: 200, body: itemView(kind, after, await titleNow(kind, before[kind.idField] as string, title)) };
    });

export const deleteItemOperation =
  (kind: PlaylistKind): Operation =>
  (req) =>
    retrying(async () => {
      const { stored, title } = await readItem(kind, req);
      checkIfMatch(req.ifMatch, recordEtag(itemView(kind, stored.record, title)));
      await commitContended(itemPlan({ kind, userId: userOf(req), before: stored, after: null, blank: blankList(newId(), now()), titleGone: { what: 'error', error: noSuchItem } }));
      return { status: 204 };
    });

/**
 * `GET …/animes/`: the caller's items, `status` filtered, ordered (§4.10) and paged in memory
 * from the list's vectors (read whole, with the tombstones); then the page's items and titles.
 * `count` exact: the items matching, titles deleted since left out.
 */
export const listItemsOperation =
  (kind: PlaylistKind): Operation =>
  async (req) => {
    const q = req.query as unknown as { status?: string; ordering: { key: string; descending: boolean } };
    const userId = userOf(req);
    const [vectors, [tomb]] = await Promise.all([listVectors(kind, userId), getItems([tombstoneKey(req.requestId)])]);
    const deleted = new Deleted(tomb);
    const titleOf = (v: Vector) => v.f.title?.[0] ?? '';
    const live = vectors.filter((v) => !deleted.has(kind.titleKind, titleOf(v)));
    const page = vectorPage(itemIndex(kind), live, {
      ordering: q.ordering.key,
      descending: q.ordering.descending,
      limit: pageLimit(req),
      cursor: req.query.cursor ?? null,
      terms: [],
      equals: q.status === undefined ? {} : { status: q.status },
    });
    const titles = new Map(live.map((v) => [v.id, titleOf(v)]));
    const ids = page.entries.map((e) => e.id);
    const found = await getItems([...ids.map((id) => itemKey(kind, userId, id)), ...[...new Set(ids.map((id) => titles.get(id)!))].map((t) => recordKeyOfKind(kind.titleKind, t))]);
    const byKey = new Map(found.filter((f): f is Item => f !== null).map((f) => [`${String(f.pk)} ${String(f.sk)}`, f]));
    const items = ids.flatMap((id) => {
      const item = byKey.get(`${itemKey(kind, userId, id).pk} ${itemKey(kind, userId, id).sk}`);
      const title = byKey.get(`${kind.titleKind}#${titles.get(id)} R`);
      return item && title ? [itemView(kind, item.rec as ItemRecord, title)] : [];
    });
    return pageReply(req, { items, next: page.next, previous: page.previous }, page.matched);
  };


/** `GET /api/animes/{id}/stats/` (and mangas'): the title's counters (§3.13), exact after every list edit. One read. */
export const statsOperation =
  (kind: PlaylistKind): Operation =>
  async (req) => {
    const id = (req.params as { id: string }).id;
    const [title, tomb] = await getItems([recordKeyOfKind(kind.titleKind, id), tombstoneKey(req.requestId)]);
    if (!title || new Deleted(tomb).has(kind.titleKind, id)) throw notFound(`No ${kind.titleKind.toLowerCase()} with this id.`);
    return { status: 200, body: titleStats(kind, id, statsOf(title)) };
  };
