/** The operations on /api/persons/ (API.md §4.0 catalogue CRUD pattern, §4.9). */
import { crudRoutes } from '../../shared/http/crud-routes.js';
import { persons } from '../../shared/domain/persons.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';

export const routes = crudRoutes({ ...persons, keys: TITLE_KEYS.person });
