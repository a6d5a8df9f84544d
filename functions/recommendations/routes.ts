/**
 * The recommendations of a caller (API.md §4.14, §5.4): personalised with a valid token, else popular.
 *
 * Each function imports the module of its own declaration (`<operation>.route.ts`), so that its
 * package holds nothing of the other kind.
 */
import { route as anime } from './anime.route.js';
import { route as manga } from './manga.route.js';

export const routes = { anime, manga };
