import { createHandler } from '../../shared/http/handler.js';
import { randomTitle } from '../../shared/http/titles.js';
import { animes } from '../../shared/domain/animes.js';
import { route } from './anime.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, randomTitle(animes), { tokens: tokenVerification });
