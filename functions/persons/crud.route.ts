/** The six declarations of the catalogue CRUD pattern for /api/persons/ (shared/http/crud-routes.ts). */
import { FILE_KEYS } from '../../shared/db/files.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { persons } from '../../shared/domain/persons.js';
import { TITLE_OPERATIONS } from '../../shared/domain/title-resource.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';

// Writes that drop uploaded pictures (PUT, PATCH, DELETE) queue their files (FILE#GONE, PutItem);
// reads and the creation (which has none to drop) keep to the persons' items.
const operations = TITLE_OPERATIONS.person;
const dropsFiles = grant(FILE_KEYS, 'PutItem');
export const crud = crudRoutes({
  ...persons,
  keys: { ...operations, update: grants(operations.update, dropsFiles), delete: grants(operations.delete, dropsFiles) },
  listUses: ['index-read'],
});
