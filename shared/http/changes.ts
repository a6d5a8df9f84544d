/**
 * What the operations that read, check and write a record share (accounts, lists, profiles,
 * reviews): the body checked against a schema with every field error, and the retry of a
 * read-check-write attempt that found the record changed.
 */
import type * as z from 'zod/mini';
import { StaleRecord } from '../db/records.js';
import { issuesToErrors } from '../domain/fields.js';
import { addError, fieldErrors, serviceUnavailable, validationError, type FieldErrors } from '../problem.js';

export const now = () => new Date().toISOString();

/**
 * Runs a read-check-write attempt again when its write finds the record changed (at most `times`
 * times, then 503). With `backoffMs`, retries wait a growing, jittered time (writes that many
 * requests race for, such as helpful votes on one review).
 */
export async function retrying<T>(attempt: () => Promise<T>, times = 3, backoffMs = 0): Promise<T> {
  for (let i = 0; i < times; i++) {
    if (i > 0 && backoffMs > 0) await new Promise((r) => setTimeout(r, Math.random() * backoffMs * 2 ** Math.min(i, 5)));
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
    }
  }
  throw serviceUnavailable(1);
}

/** The field errors of a body against a schema, and its value when there are none. */
export function checkBody<T extends z.ZodMiniType>(schema: T, raw: unknown): { errors: FieldErrors; value?: z.output<T> } {
  const out = schema.safeParse(raw, { reportInput: true });
  return out.success ? { errors: fieldErrors(), value: out.data } : { errors: issuesToErrors(out.error.issues) };
}

/** The body validated against `schema` (400 with every field error). */
export function validBody<T extends z.ZodMiniType>(schema: T, raw: unknown): z.output<T> {
  const { errors, value } = checkBody(schema, raw);
  if (value === undefined) throw validationError(errors);
  return value;
}

/** Adds every message of `more` to `errors`. */
export function addErrors(errors: FieldErrors, more: FieldErrors): void {
  for (const [field, messages] of Object.entries(more)) for (const m of messages) addError(errors, field, m);
}
