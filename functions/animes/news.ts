import { animeNews } from '../../shared/domain/news.js';
import { createHandler } from '../../shared/http/handler.js';
import { listLinkedTitles } from '../../shared/http/linked-titles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.news, listLinkedTitles(animeNews));
