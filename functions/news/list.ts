import { listTitles } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { news } from '../../shared/domain/news.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.list, listTitles(news), { tokens: tokenVerification });
