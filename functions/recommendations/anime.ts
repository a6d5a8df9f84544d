import { ANIME_RECOMMENDATIONS } from '../../shared/domain/anime-recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { recommendedTitles } from '../../shared/http/recommendations.js';
import { route } from './anime.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, recommendedTitles(ANIME_RECOMMENDATIONS), { tokens: tokenVerification });
