/** `DELETE /api/profiles/{id}/` (administrators): the profile only; the account remains (API.md §4.12). */
import { profileResource } from '../../shared/domain/profiles.js';
import { deleteOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.delete, deleteOperation(profileResource));
