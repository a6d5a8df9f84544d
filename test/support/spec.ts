/**
 * The contract's operations as the tests enumerate them: docs/spec/operations.tsv (the 151 of
 * API.md §2.5, copied from the handbook's spec) and docs/spec/extensions.tsv (the 2 of §8).
 */
import { readFileSync } from 'node:fs';

export interface SpecOperation {
  method: string;
  path: string;
  summary: string;
  /** `METHOD path`. */
  key: string;
}

/** The operations of one of the lists in docs/spec/, in its order. */
export function specFile(file: 'operations.tsv' | 'extensions.tsv'): SpecOperation[] {
  return readFileSync(new URL(`../../docs/spec/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [method, path, summary] = l.split('\t') as [string, string, string];
      return { method, path, summary, key: `${method} ${path}` };
    });
}

/** The operations this code declares: the 151, then the 2 extensions. */
export const SPEC_OPERATIONS: readonly SpecOperation[] = [...specFile('operations.tsv'), ...specFile('extensions.tsv')];
