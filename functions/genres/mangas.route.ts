/** The declaration of `genres.mangas` (its function: mangas.ts). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { entityKeys } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mangas } from '../../shared/domain/mangas.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam, sfwParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'genres.mangas', method: 'GET', path: '/api/genres/{id}/mangas/', access: 'public',
  summary: 'List the mangas of a genre',
  query: z.object({ ordering: orderingParam(mangas.list.orderings, 'name'), sfw: sfwParam }),
  response: { status: 200, schema: mangas.read, page: true, fields: Object.keys(mangas.read.shape) }, errors: ['not-found'],
  // The genre (404), the posting list of its mangas and their records, the tombstones.
  keys: grants(grant(entityKeys(genreEntity), 'BatchGetItem'), grant(titleKeys(mangaTitle), 'BatchGetItem'), indexReads('MANGA'), TOMBSTONE_READS),
  uses: ['index-read'],
});
