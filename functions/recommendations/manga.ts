import { MANGA_RECOMMENDATIONS } from '../../shared/domain/recommendations.js';
import { createHandler } from '../../shared/http/handler.js';
import { recommendedTitles } from '../../shared/http/recommendations.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.manga, recommendedTitles(MANGA_RECOMMENDATIONS), { tokens: tokenVerification });
