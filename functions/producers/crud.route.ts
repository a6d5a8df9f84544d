/** The six declarations of the catalogue CRUD pattern for /api/producers/ (shared/http/crud-routes.ts). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { producers } from '../../shared/domain/taxonomy.js';

export const crud = crudRoutes(producers);
