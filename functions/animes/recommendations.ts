import { ANIME_RECOMMENDATIONS } from '../../shared/domain/anime-recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleRecommendations } from '../../shared/http/recommendations.js';
import { route } from './recommendations.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, titleRecommendations(ANIME_RECOMMENDATIONS), { tokens: tokenVerification });
