import { characters } from '../../shared/domain/characters.js';
import { createHandler } from '../../shared/http/handler.js';
import { topOperation } from '../../shared/http/top.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.members, topOperation(characters, () => ({ list: 'CHARACTER#members', equals: {} })));
