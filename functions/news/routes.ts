/** The operations on /api/news/ (API.md §4.0 catalogue CRUD pattern, §4.8). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { news } from '../../shared/domain/news.js';
import { TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';

export const routes = crudRoutes({ ...news, keys: TITLE_OPERATIONS.news, listUses: ['index-read'] });
