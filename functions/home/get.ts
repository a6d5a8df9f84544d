import { createHandler } from '../../shared/http/handler.js';
import { homeOperation } from '../../shared/http/home.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.get, homeOperation);
