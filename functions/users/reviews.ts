/** `GET /api/users/{username}/reviews/` (anyone, API.md §4.21.4): the reviews of an active user (shared/http/reviews.ts). */
import { createHandler } from '../../shared/http/handler.js';
import { userReviewsOperation } from '../../shared/http/reviews.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.reviews, userReviewsOperation, { tokens: tokenVerification });
