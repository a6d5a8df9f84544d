import { listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.list, listOperation(genres));
