/**
 * The operations on /api/characters/ (API.md §4.0 catalogue CRUD pattern, §4.2).
 *
 * Each function imports the module of its own declaration (`<operation>.route.ts`; the six of the
 * CRUD pattern share `crud.route.ts`), so that its package holds no other route's schemas.
 */
import { crud } from './crud.route.js';
import { route as members } from './members.route.js';

export const routes = { ...crud, members };
