import { createHandler } from '../../shared/http/handler.js';
import { randomTitle } from '../../shared/http/titles.js';
import { characters } from '../../shared/domain/characters.js';
import { route } from './character.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, randomTitle(characters), { tokens: tokenVerification });
