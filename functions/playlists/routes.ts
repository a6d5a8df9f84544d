/**
 * The caller's anime list and manga list and their items (API.md §3.11, §4.10): seven operations
 * per kind, declared from the kind's data (shared/domain/playlists.ts). Every operation acts on
 * the caller's own list only; GETs are `private, no-store`.
 */
import * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { listedKeys, listPartitionKeys, titleCounterKeys } from '../../shared/db/playlists.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { ANIME_LIST, ITEM_DEFAULT_ORDERING, ITEM_ORDERINGS, itemBodies, itemRead, listBody, listRead, MANGA_LIST, type PlaylistKind } from '../../shared/domain/playlists.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { enumParam, orderingParam } from '../../shared/domain/params.js';

function kindRoutes<const S extends 'animelist' | 'mangalist'>(kind: PlaylistKind & { segment: S }) {
  const list = `/api/playlists/${kind.segment}/`;
  const items = `${list}${kind.items}/`;
  const item = `${items}{item_id}/`;
  const title = kind.titleKind.toLowerCase();
  const read = itemRead(kind);
  const itemParams = z.object({ item_id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)) });
  // The caller's list: its record (read, and created or changed by an UpdateItem of its counts),
  // its items, claims and vectors. An item's read shows its title (the record, with the
  // tombstones); an item's creation, change or deletion is one transaction (shared/db/playlists.ts
  // itemPlan) that also updates the title's counters (UpdateItem of its record, never a put or a
  // deletion) and puts or deletes the title's posting of who lists it.
  const lists = listPartitionKeys(kind);
  const titles = titleCounterKeys(kind);
  const listed = listedKeys(kind);
  const shown = grants(grant(titles, 'BatchGetItem'), TOMBSTONE_READS);
  const counted = grants(shown, grant(titles, 'UpdateItem'));
  const keys = {
    // The list's counts leave out titles deleted since (a tombstone shard read with the list; the
    // list's claims of those titles, then its vectors, when one is listed).
    list: grants(grant(lists, 'GetItem', 'BatchGetItem', 'Query', 'UpdateItem'), TOMBSTONE_READS),
    items: grants(grant(lists, 'Query', 'BatchGetItem'), shown),
    add: grants(grant(lists, 'PutItem', 'UpdateItem'), grant(listed, 'PutItem'), counted),
    item: grants(grant(lists, 'BatchGetItem'), shown),
    change: grants(grant(lists, 'BatchGetItem', 'PutItem', 'UpdateItem'), grant(listed, 'PutItem'), counted),
    remove: grants(grant(lists, 'BatchGetItem', 'DeleteItem', 'UpdateItem'), grant(listed, 'DeleteItem'), counted),
  };
  return {
    get: defineRoute({
      name: `playlists.${kind.segment}-get`, method: 'GET', path: list, access: 'member',
      summary: `Retrieve the ${title} list`, description: 'Created blank by this first use if the caller has none yet.',
      response: { status: 200, schema: listRead(kind) }, cache: 'private',
      keys: keys.list,
    }),
    patch: defineRoute({
      name: `playlists.${kind.segment}-patch`, method: 'PATCH', path: list, access: 'member',
      summary: `Update the ${title} list`, body: listBody,
      response: { status: 200, schema: listRead(kind) }, errors: ['validation-error', 'precondition-failed'],
      keys: keys.list,
    }),
    items: defineRoute({
      name: `playlists.${kind.segment}-items`, method: 'GET', path: items, access: 'member',
      summary: `List items in the ${title} list`,
      query: z.object({ status: enumParam(kind.statuses as [string, ...string[]]), ordering: orderingParam(ITEM_ORDERINGS, ITEM_DEFAULT_ORDERING) }),
      response: { status: 200, schema: read, page: true, fields: Object.keys(read.shape) }, cache: 'private',
      keys: keys.items,
    }),
    add: defineRoute({
      name: `playlists.${kind.segment}-add`, method: 'POST', path: items, access: 'member',
      summary: `Add an ${title} to the list`, body: itemBodies(kind).create,
      response: { status: 201, schema: read }, errors: ['validation-error', 'conflict'],
      keys: keys.add,
    }),
    item: defineRoute({
      name: `playlists.${kind.segment}-item`, method: 'GET', path: item, access: 'member', params: itemParams,
      summary: 'Retrieve one item', response: { status: 200, schema: read, fields: Object.keys(read.shape) }, cache: 'private', errors: ['not-found'],
      keys: keys.item,
    }),
    'item-patch': defineRoute({
      name: `playlists.${kind.segment}-item-patch`, method: 'PATCH', path: item, access: 'member', params: itemParams,
      summary: 'Partially update one item', body: itemBodies(kind).patch,
      response: { status: 200, schema: read }, errors: ['not-found', 'validation-error', 'precondition-failed'],
      keys: keys.change,
    }),
    'item-delete': defineRoute({
      name: `playlists.${kind.segment}-item-delete`, method: 'DELETE', path: item, access: 'member', params: itemParams,
      summary: 'Delete one item', response: { status: 204 }, errors: ['not-found', 'precondition-failed'],
      keys: keys.remove,
    }),
  };
}

const anime = kindRoutes(ANIME_LIST as PlaylistKind & { segment: 'animelist' });
const manga = kindRoutes(MANGA_LIST as PlaylistKind & { segment: 'mangalist' });

export const routes = {
  'animelist-get': anime.get,
  'animelist-patch': anime.patch,
  'animelist-items': anime.items,
  'animelist-add': anime.add,
  'animelist-item': anime.item,
  'animelist-item-patch': anime['item-patch'],
  'animelist-item-delete': anime['item-delete'],
  'mangalist-get': manga.get,
  'mangalist-patch': manga.patch,
  'mangalist-items': manga.items,
  'mangalist-add': manga.add,
  'mangalist-item': manga.item,
  'mangalist-item-patch': manga['item-patch'],
  'mangalist-item-delete': manga['item-delete'],
} satisfies Record<string, RouteDecl>;
