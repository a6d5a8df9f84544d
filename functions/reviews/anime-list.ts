import { ANIME_REVIEWS } from '../../shared/domain/reviews.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleReviewsOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';

export const handler = createHandler(routes['anime-list'], titleReviewsOperation(ANIME_REVIEWS));
