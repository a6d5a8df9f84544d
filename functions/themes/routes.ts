/** The operations on /api/themes/ (API.md §4.0 catalogue CRUD pattern). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { themes } from '../../shared/domain/taxonomy.js';

export const routes = crudRoutes(themes);
