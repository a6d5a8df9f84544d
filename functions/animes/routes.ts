/** The operations on /api/animes/ (API.md §4.0 catalogue CRUD pattern, §4.1.1). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { animes } from '../../shared/domain/animes.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';

export const routes = crudRoutes({ ...animes, keys: TITLE_KEYS.anime });
