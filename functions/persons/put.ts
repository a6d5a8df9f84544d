import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { persons } from '../../shared/domain/persons.js';
import { crud } from './crud.route.js';

export const handler = createHandler(crud.put, updateTitle(persons, 'replace'));
