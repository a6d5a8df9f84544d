import { animes } from '../../shared/domain/animes.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleChoice, topOperation } from '../../shared/http/top.js';
import { route } from './animes.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, topOperation(animes, titleChoice('ANIME')), { tokens: tokenVerification });
