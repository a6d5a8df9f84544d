import { getSelf } from '../../shared/http/accounts.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.me_get, getSelf);
