/** The operations on /api/demographics/ (API.md §4.0 catalogue CRUD pattern). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { demographics } from '../../shared/domain/taxonomy.js';

export const routes = crudRoutes(demographics);
