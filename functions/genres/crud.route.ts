/** The six declarations of the catalogue CRUD pattern for /api/genres/ (shared/http/crud-routes.ts). */
import { genres } from '../../shared/domain/taxonomy.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';

export const crud = crudRoutes(genres);
