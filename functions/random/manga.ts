import { createHandler } from '../../shared/http/handler.js';
import { randomTitle } from '../../shared/http/titles.js';
import { mangas } from '../../shared/domain/mangas.js';
import { route } from './manga.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, randomTitle(mangas), { tokens: tokenVerification });
