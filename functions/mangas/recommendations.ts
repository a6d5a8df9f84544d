import { MANGA_RECOMMENDATIONS } from '../../shared/domain/manga-recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleRecommendations } from '../../shared/http/recommendations.js';
import { route } from './recommendations.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, titleRecommendations(MANGA_RECOMMENDATIONS), { tokens: tokenVerification });
