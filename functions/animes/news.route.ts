/** The declaration of `animes.news` (its function: news.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { linkedListRoute } from '../../shared/http/crud-routes.js';
import { newsTitle } from '../../shared/db/news.js';
import { animeNews } from '../../shared/domain/news.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';

export const route = linkedListRoute(animeNews, { name: 'animes.news', path: '/api/animes/{id}/news/', summary: 'List the news of an anime', keys: [titleKeys(animeTitle), titleKeys(newsTitle), TOMBSTONE_KEYS] });
