/**
 * `GET /api/random/anime|manga|character|person/` (API.md §4.13): one record drawn uniformly
 * among the kind's records (shared/db/slots.ts), in its detail shape; `fields` only; no ETag,
 * never cached.
 *
 * Each function imports the module of its own declaration (`<kind>.route.ts`), so that its
 * package holds no other kind's shapes.
 */
import { route as anime } from './anime.route.js';
import { route as manga } from './manga.route.js';
import { route as character } from './character.route.js';
import { route as person } from './person.route.js';

export const routes = { anime, manga, character, person };
