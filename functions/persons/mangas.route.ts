/** The declaration of `persons.mangas` (its function: mangas.ts). */
import * as z from 'zod/mini';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { authoredFilters, authoredItem, authoredOrderings } from '../../shared/domain/authored.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam, sfwParam } from '../../shared/domain/params.js';

export const route = defineRoute({
  name: 'persons.mangas', method: 'GET', path: '/api/persons/{id}/mangas/', access: 'public',
  summary: 'List the mangas a person is credited as author of',
  query: z.object({ ordering: orderingParam(authoredOrderings, '-published_from'), ...authoredFilters, sfw: sfwParam }),
  response: { status: 200, schema: authoredItem, page: true, fields: Object.keys(authoredItem.shape) }, errors: ['not-found'],
  // The person (404), the posting list of the mangas crediting them and their records, the tombstones.
  keys: grants(grant('PERSON#*', 'BatchGetItem'), grant('MANGA#*', 'BatchGetItem'), indexReads('MANGA'), TOMBSTONE_READS),
  uses: ['index-read'],
});
