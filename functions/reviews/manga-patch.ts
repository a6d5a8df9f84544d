import { MANGA_REVIEWS } from '../../shared/domain/reviews.js';
import { createHandler } from '../../shared/http/handler.js';
import { patchReviewOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['manga-patch'], patchReviewOperation(MANGA_REVIEWS));
