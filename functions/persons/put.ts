import { updateTitle } from '../../shared/http/titles.js';
import { createHandler } from '../../shared/http/handler.js';
import { persons } from '../../shared/domain/persons.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.put, updateTitle(persons, 'replace'));
