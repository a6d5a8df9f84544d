import { listTitles } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { characters } from '../../shared/domain/characters.js';
import { crud } from './crud.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(crud.list, listTitles(characters), { tokens: tokenVerification });
