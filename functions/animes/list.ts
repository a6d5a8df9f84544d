import { listTitles } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { animes } from '../../shared/domain/animes.js';
import { crud } from './crud.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(crud.list, listTitles(animes), { tokens: tokenVerification });
