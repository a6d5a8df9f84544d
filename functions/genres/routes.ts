/** The operations on /api/genres/ (API.md §4.0 catalogue CRUD pattern). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { genres } from '../../shared/domain/taxonomy.js';

export const routes = crudRoutes(genres);
