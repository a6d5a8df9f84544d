/**
 * Data the benchmarks need: valid request bodies for the catalogue CRUD routes, and genres
 * stored the way the create operation stores them (the resource's own record builder and
 * `createRecord`), without going through HTTP.
 */
import { createRecord } from '../../shared/db/records.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { newId } from '../../shared/ids.js';

/** Extra required fields of a resource's write body, beyond a unique `name`. */
const REQUIRED_EXTRAS: Record<string, Record<string, unknown>> = {
  producers: { type: 'studio' },
};

/** A valid create (and PUT) body for the collection `segment` (`/api/<segment>/`). */
export function writeBody(segment: string, name: string): Record<string, unknown> {
  return { name, ...REQUIRED_EXTRAS[segment] };
}

/** A valid PATCH body: a new name. */
export function patchBody(name: string): Record<string, unknown> {
  return { name };
}

/** Stores a genre as `POST /api/genres/` would; returns its id. */
export async function insertGenre(name: string, description = ''): Promise<string> {
  const at = new Date().toISOString();
  const record = genres.toRecord({ name, description }, { id: newId(), created_at: at, updated_at: at }, null);
  await createRecord(genres.entity, record);
  return record.id;
}
