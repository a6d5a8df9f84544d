import { deleteTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { characters } from '../../shared/domain/characters.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.delete, deleteTitle(characters));
