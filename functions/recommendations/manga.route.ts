/** The declaration of `recommendations.manga` (its function: manga.ts). */
import { MANGA_RECOMMENDATIONS } from '../../shared/domain/manga-recommendations.js';
import { recommendedRoute } from '../../shared/http/recommendation-routes.js';

export const route = recommendedRoute(MANGA_RECOMMENDATIONS);
