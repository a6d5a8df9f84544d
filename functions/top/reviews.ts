import { createHandler } from '../../shared/http/handler.js';
import { topReviewsOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.reviews, topReviewsOperation, { tokens: tokenVerification });
