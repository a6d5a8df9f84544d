/**
 * References in request bodies (API.md §1.2 "References"): every id must name an existing,
 * non-deleted record of the stated kind (and, where stated, type). All of a body's references
 * are read in one batch (one call per 100 distinct records); each wrong one is an error at its
 * path. Also: how linking and unlinking records changes their counts (§3.7).
 */
import { getItems, type Item } from '../db/batch.js';
import { recordKeyOfKind, type Meaning } from '../db/records.js';
import type { LinkCount } from '../db/titles.js';
import { addError, fieldErrors, type FieldErrors } from '../problem.js';

export interface Reference {
  /** Where the id is in the body (`genre_ids.1`). */
  path: string;
  /** The record kind (`GENRE`, `PRODUCER`, …). */
  kind: string;
  id: string;
  /** Named in messages. */
  noun: string;
  /** The producer `type` the record must have. */
  type?: string;
}

/** Checks references; returns the errors and the names of the records found (`KIND#id` → name). */
export async function checkReferences(refs: readonly Reference[]): Promise<{ errors: FieldErrors; names: Map<string, string> }> {
  return referencesFound(refs, await getItems(refs.map((r) => recordKeyOfKind(r.kind, r.id))));
}

/** How a write's references are checked: checkReferences, or a lookup in records already in memory (the bulk loader). */
export type ReferenceCheck = typeof checkReferences;

/** What checkReferences concludes from the record items at the references' keys (`null`: none), in order. */
export function referencesFound(refs: readonly Reference[], items: readonly (Item | null | undefined)[]): { errors: FieldErrors; names: Map<string, string> } {
  const errors = fieldErrors();
  const names = new Map<string, string>();
  refs.forEach((ref, i) => {
    const rec = items[i]?.rec as { name?: string; type?: string } | undefined;
    if (!rec) addError(errors, ref.path, `Unknown ${ref.noun}.`);
    else if (ref.type && rec.type !== ref.type) addError(errors, ref.path, `This producer is not of type ${ref.type}.`);
    else names.set(`${ref.kind}#${ref.id}`, rec.name ?? '');
  });
  return { errors, names };
}

/** A linked record that is gone: its count no longer matters (the write skips it and retries). */
export class GoneLink extends Error {
  readonly key: string;
  constructor(key: string) {
    super(`linked record ${key} is gone`);
    this.name = 'GoneLink';
    this.key = key;
  }
}

/** A linked record that changed so that the link is no longer valid (re-checked by a retry). */
export class ChangedLink extends Error {
  constructor(key: string) {
    super(`linked record ${key} changed`);
    this.name = 'ChangedLink';
  }
}

/**
 * The count changes between the records `before` and `after` link (`KIND#id` → counted
 * attribute → 1). A record that gains a credit whose attribute is in `types` must still have
 * that type (a producer credited as studio must be a studio, §3.3).
 */
export function linkCounts(
  before: Map<string, Record<string, number>>,
  after: Map<string, Record<string, number>>,
  types: Record<string, string> = {},
): LinkCount[] {
  const links: LinkCount[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(key) ?? {};
    const now = after.get(key) ?? {};
    const add: Record<string, number> = {};
    for (const attr of new Set([...Object.keys(old), ...Object.keys(now)])) {
      const d = (now[attr] ?? 0) - (old[attr] ?? 0);
      if (d !== 0) add[attr] = d;
    }
    if (Object.keys(add).length === 0) continue;
    const require: Record<string, string> = {};
    for (const [attr, d] of Object.entries(add)) {
      const type = Object.entries(types).find(([t]) => attr.endsWith(`${t}_credits`))?.[1];
      if (d > 0 && type) require['rec.type'] = type;
    }
    const [kind, id] = [key.slice(0, key.indexOf('#')), key.slice(key.indexOf('#') + 1)];
    const gains = Object.values(add).some((d) => d > 0);
    // A record that gains a link must exist (a concurrent deletion makes the write re-check its
    // references); one that only loses links may be gone already (the write skips it).
    const meaning: Meaning = { what: 'error', error: () => (gains ? new ChangedLink(key) : new GoneLink(key)) };
    links.push({ key: recordKeyOfKind(kind, id), add, ...(Object.keys(require).length > 0 ? { require } : {}), meaning });
  }
  return links;
}
