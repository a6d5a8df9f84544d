/** The declaration of `mangas.characters` (its function: characters.ts). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { castFilters, castOrderings, mangaCastItem } from '../../shared/domain/casts.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'mangas.characters', method: 'GET', path: '/api/mangas/{id}/characters/', access: 'public',
  summary: "List a manga's characters",
  query: z.object({ ordering: orderingParam(castOrderings, 'position'), ...castFilters }),
  response: { status: 200, schema: mangaCastItem, page: true, fields: Object.keys(mangaCastItem.shape) }, errors: ['not-found'],
  // The manga's characters relation (its chunks), the characters, the tombstones.
  keys: grants(grant(titleKeys(mangaTitle), 'GetItem', 'Query'), grant('CHARACTER#*', 'BatchGetItem'), TOMBSTONE_READS),
});
