/** The operations on /api/producers/ (API.md §4.0 catalogue CRUD pattern). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { producers } from '../../shared/domain/taxonomy.js';

export const routes = crudRoutes(producers);
