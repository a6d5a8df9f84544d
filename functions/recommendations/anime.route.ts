/** The declaration of `recommendations.anime` (its function: anime.ts). */
import { ANIME_RECOMMENDATIONS } from '../../shared/domain/anime-recommendations.js';
import { recommendedRoute } from '../../shared/http/recommendation-routes.js';

export const route = recommendedRoute(ANIME_RECOMMENDATIONS);
