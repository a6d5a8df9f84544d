/** The operations on /api/magazines/ (API.md §4.0 catalogue CRUD pattern). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { magazines } from '../../shared/domain/taxonomy.js';

export const routes = crudRoutes(magazines);
