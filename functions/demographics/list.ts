import { listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { demographics } from '../../shared/domain/taxonomy.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.list, listOperation(demographics), { tokens: tokenVerification });
