/**
 * The relations consumer: keeps what derives from catalogue records in step with them — reverse
 * views, embedded names after a rename, references to deleted records (shared/domain/
 * catalogue-effects.ts), and the users' lists (playlist-effects.ts). Its filter passes record items
 * (`<KIND>#<id>` / `R`) and the items of cascades it left unfinished (`CASCADE#…` / `R`).
 */
import { cascadeOf } from '../../shared/db/cascades.js';
import { applyRecordEffects, continueCascade } from '../../shared/domain/catalogue-effects.js';
import { inOrder } from './in-order.js';

export const handler = inOrder('relation change', async (keys, before, after) => {
  const cascade = cascadeOf(String(keys.pk));
  // A cascade's item written (not removed): its work continues.
  if (cascade) {
    if (after) await continueCascade(cascade.work, cascade.id, after.cursor as string | undefined);
    return;
  }
  const [kind, id, ...rest] = String(keys.pk).split('#');
  if (kind && id && rest.length === 0) await applyRecordEffects(kind, id, before, after);
});
