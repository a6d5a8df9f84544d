/** The operations on /api/animes/ (API.md §4.0 catalogue CRUD pattern, §4.1.1, §4.1.2). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { crudRoutes, linkedListRoute } from '../../shared/http/crud-routes.js';
import { animes } from '../../shared/domain/animes.js';
import { newsTitle } from '../../shared/db/news.js';
import { animeNews } from '../../shared/domain/news.js';
import { mediaOrderings, pictureRead, videoFilters, videoRead } from '../../shared/domain/media.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { castFilters, castItem, castOrderings, staffItem, staffOrderings } from '../../shared/domain/casts.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { defineRoute } from '../../shared/http/route.js';
import { ANIME_RECOMMENDATIONS } from '../../shared/domain/recommendations.js';
import { titleRecommendationsRoute } from '../../shared/http/recommendation-routes.js';
import { ANIME_LIST, statsRead } from '../../shared/domain/playlists.js';
import { orderingParam } from '../../shared/http/schemas.js';
import * as z from 'zod/mini';

const OWN = [titleKeys(animeTitle)];
const CAST = [titleKeys(animeTitle), 'CHARACTER#*', 'PERSON#*', TOMBSTONE_KEYS];

export const routes = {
  ...crudRoutes({ ...animes, keys: TITLE_KEYS.anime }),
  characters: defineRoute({
    name: 'animes.characters', method: 'GET', path: '/api/animes/{id}/characters/', access: 'public',
    summary: "List an anime's characters and their voice actors",
    query: z.object({ ordering: orderingParam(castOrderings, 'position'), ...castFilters }),
    response: { status: 200, schema: castItem, page: true, fields: Object.keys(castItem.shape) }, errors: ['not-found'], keys: CAST,
  }),
  staff: defineRoute({
    name: 'animes.staff', method: 'GET', path: '/api/animes/{id}/staff/', access: 'public',
    summary: "List an anime's staff",
    query: z.object({ ordering: orderingParam(staffOrderings, 'position') }),
    response: { status: 200, schema: staffItem, page: true, fields: Object.keys(staffItem.shape) }, errors: ['not-found'], keys: CAST,
  }),
  videos: defineRoute({
    name: 'animes.videos', method: 'GET', path: '/api/animes/{id}/videos/', access: 'public',
    summary: "List an anime's videos",
    query: z.object({ ordering: orderingParam(mediaOrderings, 'position'), ...videoFilters }),
    response: { status: 200, schema: videoRead, page: true, fields: Object.keys(videoRead.shape) }, errors: ['not-found'], keys: OWN,
  }),
  pictures: defineRoute({
    name: 'animes.pictures', method: 'GET', path: '/api/animes/{id}/pictures/', access: 'public',
    summary: "List an anime's pictures",
    query: z.object({ ordering: orderingParam(mediaOrderings, 'position') }),
    response: { status: 200, schema: pictureRead, page: true, fields: Object.keys(pictureRead.shape) }, errors: ['not-found'], keys: OWN,
  }),
  news: linkedListRoute(animeNews, { name: 'animes.news', path: '/api/animes/{id}/news/', summary: 'List the news of an anime', keys: [...OWN, titleKeys(newsTitle), TOMBSTONE_KEYS] }),
  stats: defineRoute({
    name: 'animes.stats', method: 'GET', path: '/api/animes/{id}/stats/', access: 'public',
    summary: 'Retrieve its statistics', description: 'Counts of list items per status and score (§3.13, §5.1), exact after every list change.',
    response: { status: 200, schema: statsRead(ANIME_LIST) }, errors: ['not-found'], keys: [titleKeys(animeTitle), TOMBSTONE_KEYS],
  }),
  recommendations: titleRecommendationsRoute(ANIME_RECOMMENDATIONS),
};
