import { personTitle } from '../../shared/db/persons.js';
import { picturesOf } from '../../shared/domain/media.js';
import { createHandler } from '../../shared/http/handler.js';
import { relationList } from '../../shared/http/relations.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.pictures, relationList(picturesOf(personTitle, 'person')));
