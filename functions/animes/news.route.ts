/** The declaration of `animes.news` (its function: news.ts). */
import { animeTitle } from '../../shared/db/animes.js';
import { titleKeys } from '../../shared/db/titles.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { linkedListRoute } from '../../shared/http/crud-routes.js';
import { newsTitle } from '../../shared/db/news.js';
import { animeNews } from '../../shared/domain/news.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';

export const route = linkedListRoute(animeNews, { name: 'animes.news', path: '/api/animes/{id}/news/', summary: 'List the news of an anime', keys: grants(grant(titleKeys(animeTitle), 'BatchGetItem'), grant(titleKeys(newsTitle), 'BatchGetItem'), indexReads('NEWS'), TOMBSTONE_READS) });
