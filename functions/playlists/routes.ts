/**
 * The caller's anime list and manga list and their items (API.md §3.11, §4.10): seven operations
 * per kind, declared from the kind's data (shared/domain/playlists.ts). Every operation acts on
 * the caller's own list only; GETs are `private, no-store`.
 */
import * as z from 'zod/mini';
import { playlistKeys, titleCounterKeys } from '../../shared/db/playlists.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { ANIME_LIST, ITEM_DEFAULT_ORDERING, ITEM_ORDERINGS, itemBodies, itemRead, listBody, listRead, MANGA_LIST, type PlaylistKind } from '../../shared/domain/playlists.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { enumParam, orderingParam } from '../../shared/http/schemas.js';

function kindRoutes<const S extends 'animelist' | 'mangalist'>(kind: PlaylistKind & { segment: S }) {
  const list = `/api/playlists/${kind.segment}/`;
  const items = `${list}${kind.items}/`;
  const item = `${items}{item_id}/`;
  const title = kind.titleKind.toLowerCase();
  const read = itemRead(kind);
  const itemParams = z.object({ item_id: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/)) });
  // The list and its items; creating, editing or deleting an item also changes the title's counters.
  const own = playlistKeys(kind);
  const edit = [...own, titleCounterKeys(kind), TOMBSTONE_KEYS];
  const reads = [...own, titleCounterKeys(kind), TOMBSTONE_KEYS];
  // The list's counts leave out titles deleted since (the tombstones; the vectors when one is listed).
  const listKeys = [...own, TOMBSTONE_KEYS];
  return {
    get: defineRoute({
      name: `playlists.${kind.segment}-get`, method: 'GET', path: list, access: 'member',
      summary: `Retrieve the ${title} list`, description: 'Created blank by this first use if the caller has none yet.',
      response: { status: 200, schema: listRead(kind) }, cache: 'private', writes: true,
      keys: listKeys,
    }),
    patch: defineRoute({
      name: `playlists.${kind.segment}-patch`, method: 'PATCH', path: list, access: 'member',
      summary: `Update the ${title} list`, body: listBody,
      response: { status: 200, schema: listRead(kind) }, errors: ['validation-error', 'precondition-failed'],
      keys: listKeys,
    }),
    items: defineRoute({
      name: `playlists.${kind.segment}-items`, method: 'GET', path: items, access: 'member',
      summary: `List items in the ${title} list`,
      query: z.object({ status: enumParam(kind.statuses as [string, ...string[]]), ordering: orderingParam(ITEM_ORDERINGS, ITEM_DEFAULT_ORDERING) }),
      response: { status: 200, schema: read, page: true, fields: Object.keys(read.shape) }, cache: 'private',
      keys: reads,
    }),
    add: defineRoute({
      name: `playlists.${kind.segment}-add`, method: 'POST', path: items, access: 'member',
      summary: `Add an ${title} to the list`, body: itemBodies(kind).create,
      response: { status: 201, schema: read }, errors: ['validation-error', 'conflict'],
      keys: edit,
    }),
    item: defineRoute({
      name: `playlists.${kind.segment}-item`, method: 'GET', path: item, access: 'member', params: itemParams,
      summary: 'Retrieve one item', response: { status: 200, schema: read, fields: Object.keys(read.shape) }, cache: 'private', errors: ['not-found'],
      keys: reads,
    }),
    'item-patch': defineRoute({
      name: `playlists.${kind.segment}-item-patch`, method: 'PATCH', path: item, access: 'member', params: itemParams,
      summary: 'Partially update one item', body: itemBodies(kind).patch,
      response: { status: 200, schema: read }, errors: ['not-found', 'validation-error', 'precondition-failed'],
      keys: edit,
    }),
    'item-delete': defineRoute({
      name: `playlists.${kind.segment}-item-delete`, method: 'DELETE', path: item, access: 'member', params: itemParams,
      summary: 'Delete one item', response: { status: 204 }, errors: ['not-found', 'precondition-failed'],
      keys: edit,
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
