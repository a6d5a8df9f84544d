/** The recommendations of a caller (API.md §4.14, §5.4): personalised with a valid token, else popular. */
import { ANIME_RECOMMENDATIONS, MANGA_RECOMMENDATIONS } from '../../shared/domain/recommendations.js';
import { recommendedRoute } from '../../shared/http/recommendation-routes.js';

export const routes = {
  anime: recommendedRoute(ANIME_RECOMMENDATIONS),
  manga: recommendedRoute(MANGA_RECOMMENDATIONS),
};
