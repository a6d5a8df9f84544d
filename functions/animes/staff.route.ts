/** The declaration of `animes.staff` (its function: staff.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { staffItem, staffOrderings } from '../../shared/domain/casts.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/domain/params.js';
import * as z from 'zod/mini';

export const route = defineRoute({
  name: 'animes.staff', method: 'GET', path: '/api/animes/{id}/staff/', access: 'public',
  summary: "List an anime's staff",
  query: z.object({ ordering: orderingParam(staffOrderings, 'position') }),
  response: { status: 200, schema: staffItem, page: true, fields: Object.keys(staffItem.shape) }, errors: ['not-found'], 
  // The anime's staff relation (its chunks), the persons, the tombstones.
  keys: grants(grant(titleKeys(animeTitle), 'GetItem', 'Query'), grant('PERSON#*', 'BatchGetItem'), TOMBSTONE_READS),
});
