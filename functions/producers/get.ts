import { getOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { producers } from '../../shared/domain/taxonomy.js';
import { crud } from './crud.route.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(crud.get, getOperation(producers), { tokens: tokenVerification });
