/** The declaration of `animes.pictures` (its function: pictures.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { grant } from '../../shared/db/key-patterns.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mediaOrderings, pictureRead } from '../../shared/domain/media.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';
import * as z from 'zod/mini';

export const route = defineRoute({
  name: 'animes.pictures', method: 'GET', path: '/api/animes/{id}/pictures/', access: 'public',
  summary: "List an anime's pictures",
  query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
  response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], 
  // The record's existence (GetItem) and the relation's chunks (Query), shared/db/titles.ts readRelation.
  keys: grant(titleKeys(animeTitle), 'GetItem', 'Query'),
});
