/** The declaration of `mangas.news` (its function: news.ts). */
import { mangaTitle } from '../../shared/db/mangas.js';
import { titleKeys } from '../../shared/db/titles.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { indexReads } from '../../shared/domain/index-reader.js';
import { linkedListRoute } from '../../shared/http/crud-routes.js';
import { newsTitle } from '../../shared/db/news.js';
import { mangaNews } from '../../shared/domain/news.js';

export const route = linkedListRoute(mangaNews, { name: 'mangas.news', path: '/api/mangas/{id}/news/', summary: 'List the news of a manga', keys: grants(grant(titleKeys(mangaTitle), 'BatchGetItem'), grant(titleKeys(newsTitle), 'BatchGetItem'), indexReads('NEWS'), TOMBSTONE_READS) });
