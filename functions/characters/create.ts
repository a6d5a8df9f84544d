import { createTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { characters } from '../../shared/domain/characters.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.create, createTitle(characters));
