/**
 * The operations on /api/persons/ (API.md §4.0 catalogue CRUD pattern, §4.9).
 *
 * Each function imports the module of its own declaration (`<operation>.route.ts`; the six of the
 * CRUD pattern share `crud.route.ts`), so that its package holds no other route's schemas.
 */
import { crud } from './crud.route.js';
import { route as createPicture } from './create-picture.route.js';
import { route as pictures } from './pictures.route.js';
import { route as mangas } from './mangas.route.js';
import { route as voices } from './voices.route.js';

export const routes = { ...crud, createPicture, pictures, mangas, voices };
