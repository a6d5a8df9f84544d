/** The operations on /api/mangas/ (API.md §4.0 catalogue CRUD pattern, §4.7). */
import * as z from 'zod/mini';
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { mangas } from '../../shared/domain/mangas.js';
import { castFilters, castOrderings, mangaCastItem } from '../../shared/domain/casts.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { mediaOrderings, pictureRead } from '../../shared/domain/media.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { crudRoutes, linkedListRoute } from '../../shared/http/crud-routes.js';
import { newsTitle } from '../../shared/db/news.js';
import { mangaNews } from '../../shared/domain/news.js';
import { defineRoute } from '../../shared/http/route.js';
import { MANGA_RECOMMENDATIONS } from '../../shared/domain/recommendations.js';
import { titleRecommendationsRoute } from '../../shared/http/recommendation-routes.js';
import { MANGA_LIST, statsRead } from '../../shared/domain/playlists.js';
import { orderingParam } from '../../shared/http/schemas.js';

export const routes = {
  ...crudRoutes({ ...mangas, keys: TITLE_KEYS.manga }),
  characters: defineRoute({
    name: 'mangas.characters', method: 'GET', path: '/api/mangas/{id}/characters/', access: 'public',
    summary: "List a manga's characters",
    query: z.object({ ordering: orderingParam(castOrderings, 'position'), ...castFilters }),
    response: { status: 200, schema: mangaCastItem, page: true, fields: Object.keys(mangaCastItem.shape) }, errors: ['not-found'],
    keys: [titleKeys(mangaTitle), 'CHARACTER#*', TOMBSTONE_KEYS],
  }),
  news: linkedListRoute(mangaNews, { name: 'mangas.news', path: '/api/mangas/{id}/news/', summary: 'List the news of a manga', keys: [titleKeys(mangaTitle), titleKeys(newsTitle), TOMBSTONE_KEYS] }),
  pictures: defineRoute({
    name: 'mangas.pictures', method: 'GET', path: '/api/mangas/{id}/pictures/', access: 'public',
    summary: "List a manga's pictures",
    query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
    response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], keys: [titleKeys(mangaTitle)],
  }),
  stats: defineRoute({
    name: 'mangas.stats', method: 'GET', path: '/api/mangas/{id}/stats/', access: 'public',
    summary: 'Retrieve its statistics', description: 'Counts of list items per status and score (§3.13, §5.1), exact after every list change.',
    response: { status: 200, schema: statsRead(MANGA_LIST) }, errors: ['not-found'], keys: [titleKeys(mangaTitle), TOMBSTONE_KEYS],
  }),
  recommendations: titleRecommendationsRoute(MANGA_RECOMMENDATIONS),
};
