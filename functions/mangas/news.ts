import { mangaNews } from '../../shared/domain/news.js';
import { createHandler } from '../../shared/http/handler.js';
import { listLinkedTitles } from '../../shared/http/linked-titles.js';
import { route } from './news.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, listLinkedTitles(mangaNews), { tokens: tokenVerification });
