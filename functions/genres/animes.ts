import { genreAnimes } from '../../shared/domain/linked-animes.js';
import { createHandler } from '../../shared/http/handler.js';
import { linkedTitles } from '../../shared/http/linked-titles.js';
import { route } from './animes.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, linkedTitles(genreAnimes), { tokens: tokenVerification });
