/**
 * The operations on /api/animes/ (API.md §4.0 catalogue CRUD pattern, §4.1.1, §4.1.2).
 *
 * Each function imports the module of its own declaration (`<operation>.route.ts`; the six of the
 * CRUD pattern share `crud.route.ts`), so that its package holds no other route's schemas.
 */
import { crud } from './crud.route.js';
import { route as characters } from './characters.route.js';
import { route as staff } from './staff.route.js';
import { route as videos } from './videos.route.js';
import { route as pictures } from './pictures.route.js';
import { route as news } from './news.route.js';
import { route as stats } from './stats.route.js';
import { route as recommendations } from './recommendations.route.js';

export const routes = { ...crud, characters, staff, videos, pictures, news, stats, recommendations };
