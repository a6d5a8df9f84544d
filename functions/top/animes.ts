import { animes } from '../../shared/domain/animes.js';
import { createHandler } from '../../shared/http/handler.js';
import { titleChoice, topOperation } from '../../shared/http/top.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.animes, topOperation(animes, titleChoice('ANIME')), { tokens: tokenVerification });
