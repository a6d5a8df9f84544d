/** The six declarations of the catalogue CRUD pattern for /api/persons/ (shared/http/crud-routes.ts). */
import { FILE_KEYS } from '../../shared/db/files.js';
import { persons } from '../../shared/domain/persons.js';
import { TITLE_KEYS } from '../../shared/domain/title-resource.js';
import { crudRoutes } from '../../shared/http/crud-routes.js';

// Writes that drop uploaded pictures (PUT, PATCH, DELETE) queue their files (FILE#GONE); reads
// and the creation (which has none to drop) keep to the persons' items.
export const PERSON_WRITE_KEYS = [...TITLE_KEYS.person, FILE_KEYS];
const base = crudRoutes({ ...persons, keys: TITLE_KEYS.person });

export const crud = {
  ...base,
  put: { ...base.put, keys: PERSON_WRITE_KEYS },
  patch: { ...base.patch, keys: PERSON_WRITE_KEYS },
  delete: { ...base.delete, keys: PERSON_WRITE_KEYS },
};
