import { MANGA_REVIEWS } from '../../shared/domain/reviews.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleReviewsOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes['manga-list'], titleReviewsOperation(MANGA_REVIEWS), { tokens: tokenVerification });
