import { MANGA_RECOMMENDATIONS } from '../../shared/domain/manga-recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { recommendedTitles } from '../../shared/http/recommendations.js';
import { route } from './manga.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, recommendedTitles(MANGA_RECOMMENDATIONS), { tokens: tokenVerification });
