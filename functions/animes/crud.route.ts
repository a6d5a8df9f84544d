/** The six declarations of the catalogue CRUD pattern for /api/animes/ (shared/http/crud-routes.ts). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { animes } from '../../shared/domain/animes.js';
import { TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';

export const crud = crudRoutes({ ...animes, keys: TITLE_OPERATIONS.anime, listUses: ['index-read'] });
