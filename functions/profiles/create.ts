import { createHandler } from '../../shared/http/handler.js';
import { createProfileOperation } from '../../shared/http/profiles.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.create, createProfileOperation);
