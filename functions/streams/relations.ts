/**
 * The relations consumer: keeps what derives from catalogue records in step with them — reverse
 * views, embedded names after a rename, references to deleted records (shared/domain/
 * catalogue-effects.ts). Its filter passes record items (`<KIND>#<id>` / `R`) only.
 */
import { applyRecordEffects } from '../../shared/domain/catalogue-effects.js';
import { inOrder } from './in-order.js';

export const handler = inOrder('relation change', async (keys, before, after) => {
  const [kind, id, ...rest] = String(keys.pk).split('#');
  if (kind && id && rest.length === 0) await applyRecordEffects(kind, id, before, after);
});
