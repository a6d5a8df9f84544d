/**
 * The top lists (API.md §4.20). `top/reviews/` is computed from current data (no `refreshed_at`):
 * the top partition of shared/db/reviews.ts, kept in order by every review change and vote. The
 * others are the lists the rankings job made at its last run (shared/db/rankings.ts, selection,
 * filters and order of that run), shown as the records are now (shared/http/top.ts), with the
 * run's `refreshed_at`.
 *
 * Each function imports the module of its own declaration (`<operation>.route.ts`), so that its
 * package holds no other route's schemas.
 */
import { route as animes } from './animes.route.js';
import { route as mangas } from './mangas.route.js';
import { route as characters } from './characters.route.js';
import { route as artists } from './artists.route.js';
import { route as reviews } from './reviews.route.js';

export const routes = { animes, mangas, characters, artists, reviews };
