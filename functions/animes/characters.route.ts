/** The declaration of `animes.characters` (its function: characters.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { castFilters, castItem, castOrderings } from '../../shared/domain/casts.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';
import * as z from 'zod/mini';

export const route = defineRoute({
  name: 'animes.characters', method: 'GET', path: '/api/animes/{id}/characters/', access: 'public',
  summary: "List an anime's characters and their voice actors",
  query: z.object({ ordering: orderingParam(castOrderings, 'position'), ...castFilters }),
  response: { status: 200, schema: castItem, page: true, fields: Object.keys(castItem.shape) }, errors: ['not-found'], 
  // The anime's characters relation (its chunks), the characters and their voice actors, the tombstones.
  keys: grants(grant(titleKeys(animeTitle), 'GetItem', 'Query'), grant(['CHARACTER#*', 'PERSON#*'], 'BatchGetItem'), TOMBSTONE_READS),
});
