/** The declaration of `animes.videos` (its function: videos.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { grant } from '../../shared/db/key-patterns.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mediaOrderings, videoFilters, videoRead } from '../../shared/domain/media.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';
import * as z from 'zod/mini';

export const route = defineRoute({
  name: 'animes.videos', method: 'GET', path: '/api/animes/{id}/videos/', access: 'public',
  summary: "List an anime's videos",
  query: z.object({ ordering: orderingParam(mediaOrderings, 'position'), ...videoFilters }),
  response: { status: 200, schema: videoRead, page: true, fields: Object.keys(videoRead.shape) }, errors: ['not-found'], 
  // The record's existence (GetItem) and the relation's chunks (Query), shared/db/titles.ts readRelation.
  keys: grant(titleKeys(animeTitle), 'GetItem', 'Query'),
});
