/** The operations on /api/genres/ (API.md §4.0 catalogue CRUD pattern, §4.4). */
import { animeTitle } from '../../shared/db/animes.js';
import { entityKeys } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { titleKeys } from '../../shared/db/titles.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { animeRead } from '../../shared/domain/animes.js';
import { genreAnimesQuery } from '../../shared/domain/linked-animes.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { defineRoute } from '../../shared/http/route.js';

export const routes = {
  ...crudRoutes(genres),
  animes: defineRoute({
    name: 'genres.animes', method: 'GET', path: '/api/genres/{id}/animes/', access: 'public',
    summary: 'List the animes of a genre', query: genreAnimesQuery,
    response: { status: 200, schema: animeRead, page: true, fields: Object.keys(animeRead.shape) }, errors: ['not-found'],
    keys: [entityKeys(genreEntity), titleKeys(animeTitle)],
  }),
};
