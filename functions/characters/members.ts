import { characters } from '../../shared/domain/characters.js';
import { createHandler } from '../../shared/http/handler.js';
import { topOperation } from '../../shared/http/top.js';
import { route } from './members.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(route, topOperation(characters, () => ({ list: 'CHARACTER#members', equals: {} })), { tokens: tokenVerification });
