/** The declaration of `genres.animes` (its function: animes.ts). */
import { entityKeys } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { titleKeys } from '../../shared/db/titles.js';
import { animeTitle } from '../../shared/db/animes.js';
import { animeRead } from '../../shared/domain/animes.js';
import { genreAnimesQuery } from '../../shared/domain/linked-animes.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { defineRoute } from '../../shared/http/route.js';

export const route = defineRoute({
  name: 'genres.animes', method: 'GET', path: '/api/genres/{id}/animes/', access: 'public',
  summary: 'List the animes of a genre', query: genreAnimesQuery,
  response: { status: 200, schema: animeRead, page: true, fields: Object.keys(animeRead.shape) }, errors: ['not-found'],
  // The genre (404), the anime index (pointer, deltas, snapshot), the page's animes, the tombstones.
  keys: grants(grant(entityKeys(genreEntity), 'BatchGetItem'), grant(titleKeys(animeTitle), 'BatchGetItem'), indexReads('ANIME'), TOMBSTONE_READS),
  uses: ['index-read'],
});
