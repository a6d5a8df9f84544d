import { ANIME_RECOMMENDATIONS } from '../../shared/domain/recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleRecommendations } from '../../shared/http/recommendations.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.recommendations, titleRecommendations(ANIME_RECOMMENDATIONS));
