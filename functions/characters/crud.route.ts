/** The six declarations of the catalogue CRUD pattern for /api/characters/ (shared/http/crud-routes.ts). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { characters } from '../../shared/domain/characters.js';
import { TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';

export const crud = crudRoutes({ ...characters, keys: TITLE_OPERATIONS.character, listUses: ['index-read'] });
