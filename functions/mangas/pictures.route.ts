/** The declaration of `mangas.pictures` (its function: pictures.ts). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { grant } from '../../shared/db/key-patterns.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mediaOrderings, pictureRead } from '../../shared/domain/media.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'mangas.pictures', method: 'GET', path: '/api/mangas/{id}/pictures/', access: 'public',
  summary: "List a manga's pictures",
  query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
  response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], 
  // The record's existence (GetItem) and the relation's chunks (Query), shared/db/titles.ts readRelation.
  keys: grant(titleKeys(mangaTitle), 'GetItem', 'Query'),
});
