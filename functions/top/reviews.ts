import { createHandler } from '../../shared/http/handler.js';
import { topReviewsOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.reviews, topReviewsOperation);
