import { profileResource } from '../../shared/domain/profiles.js';
import { listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.list, listOperation(profileResource));
