import { authoredList } from '../../shared/http/authored.js';
import { createHandler } from '../../shared/http/handler.js';
import { linkedTitles } from '../../shared/http/linked-titles.js';
import { route } from './mangas.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, linkedTitles(authoredList), { tokens: tokenVerification });
