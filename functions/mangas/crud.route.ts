/** The six declarations of the catalogue CRUD pattern for /api/mangas/ (shared/http/crud-routes.ts). */
import { mangas } from '../../shared/domain/mangas.js';
import { TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';

export const crud = crudRoutes({ ...mangas, keys: TITLE_OPERATIONS.manga, listUses: ['index-read'] });
