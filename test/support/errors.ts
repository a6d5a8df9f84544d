/** The HttpError a call throws (fails the test when it throws nothing or something else). */
import { HttpError } from '../../shared/problem.js';

export function thrown(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    if (err instanceof HttpError) return err;
    throw err;
  }
  throw new Error('expected an HttpError');
}
