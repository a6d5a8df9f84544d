/** The operations on /api/characters/ (API.md §4.0 catalogue CRUD pattern, §4.2). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { characters } from '../../shared/domain/characters.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';

export const routes = crudRoutes({ ...characters, keys: TITLE_KEYS.character });
