/** The declaration of `producers.animes` (its function: animes.ts). */
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { animeTitle } from '../../shared/db/animes.js';
import { entityKeys } from '../../shared/db/records.js';
import { producerEntity } from '../../shared/db/taxonomy.js';
import { titleKeys } from '../../shared/db/titles.js';
import { producerAnimeRead, producerAnimesQuery } from '../../shared/domain/linked-animes.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { defineRoute } from '../../shared/http/route.js';

export const route = defineRoute({
  name: 'producers.animes', method: 'GET', path: '/api/producers/{id}/animes/', access: 'public',
  summary: 'List the animes crediting a producer', query: producerAnimesQuery,
  response: { status: 200, schema: producerAnimeRead, page: true, fields: Object.keys(producerAnimeRead.shape) }, errors: ['not-found'],
  // The producer (404), the anime index (pointer, deltas, snapshot), the page's animes, the tombstones.
  keys: grants(grant(entityKeys(producerEntity), 'BatchGetItem'), grant(titleKeys(animeTitle), 'BatchGetItem'), indexReads('ANIME'), TOMBSTONE_READS),
  uses: ['index-read'],
});
