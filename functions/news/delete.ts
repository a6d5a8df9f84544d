import { deleteTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { news } from '../../shared/domain/news.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.delete, deleteTitle(news), { rateLimits: requestLimits });
