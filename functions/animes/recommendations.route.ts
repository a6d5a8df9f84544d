/** The declaration of `animes.recommendations` (its function: recommendations.ts). */
import { ANIME_RECOMMENDATIONS } from '../../shared/domain/anime-recommendations.js';
import { titleRecommendationsRoute } from '../../shared/http/recommendation-routes.js';

export const route = titleRecommendationsRoute(ANIME_RECOMMENDATIONS);
