/**
 * The catalogue consumer: keeps derived catalogue items in step with the items they derive from
 * (shared/db/catalogue-stream.ts says which).
 */
import { applyCatalogueChange } from '../../shared/db/catalogue-stream.js';
import { inOrder } from './in-order.js';

export const handler = inOrder('catalogue change', applyCatalogueChange);
