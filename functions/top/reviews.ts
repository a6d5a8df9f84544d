import { createHandler } from '../../shared/http/handler.js';
import { topReviewsOperation } from '../../shared/http/reviews.js';
import { route } from './reviews.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, topReviewsOperation, { tokens: tokenVerification });
