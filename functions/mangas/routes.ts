/** The operations on /api/mangas/ (API.md §4.0 catalogue CRUD pattern, §4.7). */
import * as z from 'zod';
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mangas } from '../../shared/domain/mangas.js';
import { mediaOrderings, pictureRead } from '../../shared/domain/media.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { defineRoute } from '../../shared/http/route.js';
import { orderingParam } from '../../shared/http/schemas.js';

export const routes = {
  ...crudRoutes({ ...mangas, keys: TITLE_KEYS.manga }),
  pictures: defineRoute({
    name: 'mangas.pictures', method: 'GET', path: '/api/mangas/{id}/pictures/', access: 'public',
    summary: "List a manga's pictures",
    query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
    response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], keys: [titleKeys(mangaTitle)],
  }),
};
