import { mangas } from '../../shared/domain/mangas.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleChoice, topOperation } from '../../shared/http/top.js';
import { route } from './mangas.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, topOperation(mangas, titleChoice('MANGA')), { tokens: tokenVerification });
