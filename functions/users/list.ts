/**
 * `GET /api/users/` (administrators, API.md §4.21.1): `q` (every term a word prefix of the
 * username, or the whole value a prefix of the e-mail), `role`, `is_active`; `count` is exact
 * without `q` and filters.
 */
import { userListing } from '../../shared/domain/users.js';
import { listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.list, listOperation(userListing));
