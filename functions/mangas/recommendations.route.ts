/** The declaration of `mangas.recommendations` (its function: recommendations.ts). */
import { MANGA_RECOMMENDATIONS } from '../../shared/domain/manga-recommendations.js';
import { titleRecommendationsRoute } from '../../shared/http/recommendation-routes.js';

export const route = titleRecommendationsRoute(MANGA_RECOMMENDATIONS);
