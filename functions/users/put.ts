import { updateUserOperation } from '../../shared/http/accounts.js';
import { createHandler } from '../../shared/http/handler.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.put, updateUserOperation('replace'));
