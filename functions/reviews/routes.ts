/**
 * Reviews of animes and mangas and their helpful votes (API.md §3.9, §4.1.2, §4.1.3): four
 * operations per kind, declared from the kind's data (shared/domain/reviews.ts). Reviews have no
 * GET of their own: write responses carry the ETag of the Review representation (§1.7).
 */
import { grant, grants } from '../../shared/db/key-patterns.js';
import { REVIEW_PAGE_READS, REVIEW_WRITES } from '../../shared/db/reviews.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { titleKeys } from '../../shared/db/titles.js';
import { AUTH_KEYS } from '../../shared/db/users.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, REVIEW_DEFAULT_ORDERING, REVIEW_FIELDS, REVIEW_ORDERINGS, reviewBodies, reviewPatchBody, reviewRead, type ReviewKindDef } from '../../shared/domain/reviews.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { idParams } from '../../shared/http/schemas.js';
import { booleanParam, orderingParam } from '../../shared/domain/params.js';
import * as z from 'zod/mini';

function kindRoutes(kind: ReviewKindDef) {
  const reviews = `/api/${kind.segment}/{id}/reviews/`;
  const review = `${reviews}{id}/`;
  // Every operation reads the title (its record, 404) with the tombstones; the list and the
  // writes also the authors' usernames (auth states; a creation's author is the caller). Titles
  // are only read: a creation checks in its transaction that the title still exists.
  const title = grants(grant(titleKeys(kind.title), 'BatchGetItem'), TOMBSTONE_READS);
  const authors = grant(AUTH_KEYS, 'BatchGetItem');
  const keys = {
    list: grants(title, REVIEW_PAGE_READS),
    create: grants(title, grant(titleKeys(kind.title), 'ConditionCheckItem'), REVIEW_WRITES.create),
    patch: grants(title, REVIEW_WRITES.patch, authors),
    delete: grants(title, REVIEW_WRITES.delete, authors),
  };
  return {
    list: defineRoute({
      name: `reviews.${kind.kind}-list`, method: 'GET', path: reviews, access: 'public', params: idParams(['id']),
      summary: 'List its reviews',
      query: z.object({ spoilers: booleanParam, ordering: orderingParam(REVIEW_ORDERINGS, REVIEW_DEFAULT_ORDERING) }),
      response: { status: 200, schema: reviewRead, page: true, fields: REVIEW_FIELDS }, errors: ['not-found'],
      keys: keys.list,
    }),
    create: defineRoute({
      name: `reviews.${kind.kind}-create`, method: 'POST', path: `${reviews}create/`, access: 'member', params: idParams(['id']),
      summary: `Create a review for the ${kind.kind}`, description: 'One review per user per title: a second one → 409 with `existing_id`.',
      body: reviewBodies.create,
      response: { status: 201, schema: reviewRead }, errors: ['not-found', 'validation-error', 'conflict'],
      keys: keys.create,
    }),
    patch: defineRoute({
      name: `reviews.${kind.kind}-patch`, method: 'PATCH', path: review, access: 'member', params: idParams(['id', 'id_2']),
      summary: 'Partially update a review',
      description: 'The author sends any subset of the write shape; anyone else exactly `{"helpful": true|false}` (a helpful vote, or its withdrawal; idempotent).',
      body: reviewPatchBody,
      response: { status: 200, schema: reviewRead }, errors: ['not-found', 'forbidden', 'precondition-failed', 'validation-error'],
      keys: keys.patch,
    }),
    delete: defineRoute({
      name: `reviews.${kind.kind}-delete`, method: 'DELETE', path: review, access: 'member', params: idParams(['id', 'id_2']),
      summary: 'Delete a review', description: 'The author, a moderator or an administrator. Its helpful votes go with it.',
      response: { status: 204 }, errors: ['not-found', 'forbidden', 'precondition-failed'],
      keys: keys.delete,
    }),
  };
}

const anime = kindRoutes(ANIME_REVIEWS);
const manga = kindRoutes(MANGA_REVIEWS);

export const routes = {
  'anime-list': anime.list,
  'anime-patch': anime.patch,
  'anime-delete': anime.delete,
  'anime-create': anime.create,
  'manga-list': manga.list,
  'manga-patch': manga.patch,
  'manga-delete': manga.delete,
  'manga-create': manga.create,
} satisfies Record<string, RouteDecl>;
