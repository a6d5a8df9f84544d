/** The operations on /api/genres/ (API.md §4.0 catalogue CRUD pattern, §4.4). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { entityKeys } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mangas } from '../../shared/domain/mangas.js';
import { animeTitle } from '../../shared/db/animes.js';
import { animeRead } from '../../shared/domain/animes.js';
import { genreAnimesQuery } from '../../shared/domain/linked-animes.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/http/schemas.js';

export const routes = {
  ...crudRoutes(genres),
  mangas: defineRoute({
    name: 'genres.mangas', method: 'GET', path: '/api/genres/{id}/mangas/', access: 'public',
    summary: 'List the mangas of a genre',
    query: z.object({ ordering: orderingParam(mangas.list.orderings, 'name') }),
    response: { status: 200, schema: mangas.read, page: true, fields: Object.keys(mangas.read.shape) }, errors: ['not-found'],
    keys: [titleKeys(mangaTitle), entityKeys(genreEntity), TOMBSTONE_KEYS],
  }),
  animes: defineRoute({
    name: 'genres.animes', method: 'GET', path: '/api/genres/{id}/animes/', access: 'public',
    summary: 'List the animes of a genre', query: genreAnimesQuery,
    response: { status: 200, schema: animeRead, page: true, fields: Object.keys(animeRead.shape) }, errors: ['not-found'],
    keys: [entityKeys(genreEntity), titleKeys(animeTitle), TOMBSTONE_KEYS],
  }),
};
