/**
 * One page of an ordering index partition (see sort-keys.ts) with cursor semantics of API.md
 * §1.5, strongly consistent. Without a filter, one Query of `limit + 1` items. With a filter
 * expression each Query evaluates a bounded number of items (`budget`), so a page may take
 * several: it reads on until it holds `limit + 1` matches, the partition ends or `maxReads`
 * Queries are made (default 1: the page may then be short, even empty, while `next` is set).
 * Backward pages with a filter read on until they find a record (see MAX_BACKWARD_READS).
 */
import type { Cursor } from './sort-keys.js';
import { send, tableName } from './client.js';
import { compareCodePoints } from './sort-keys.js';

/** Items evaluated per filtered page: ten per requested record, between 100 and 400. */
export function readBudget(limit: number): number {
  return Math.min(400, Math.max(100, (limit + 1) * 10));
}

export interface IndexFilter {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export interface IndexPageRequest {
  pk: string;
  /** True when the list order is the partition's ascending order. */
  forward: boolean;
  limit: number;
  cursor: Cursor | null;
  filter?: IndexFilter;
  /** Items evaluated by the first filtered Query (default readBudget(limit)). */
  budget?: number;
  /**
   * Queries a filtered page may make to fill itself (default 1); those after the first evaluate
   * what the matches so far say should complete the page, at most `maxBudget` items.
   */
  maxReads?: number;
  maxBudget?: number;
  /** Only keys in this range (e.g. a range filter on the ordering's own value). */
  bounds?: KeyBounds;
}

/** Inclusive bounds of sort keys. */
export interface KeyBounds {
  lo?: string;
  hi?: string;
}

export interface IndexPage<T> {
  items: { sk: string; value: T }[];
  next: Cursor | null;
  previous: Cursor | null;
  /** Queries made. */
  reads: number;
}

/**
 * A backward page (following `previous`) is empty only when no record precedes (§1.5), so with a
 * filter it keeps reading past budgets that matched nothing, up to this many Queries.
 */
const MAX_BACKWARD_READS = 25;

export async function queryIndexPage<T>(
  req: IndexPageRequest,
  project: (item: Record<string, unknown>) => T,
): Promise<IndexPage<T>> {
  const towardsEnd = req.cursor === null || req.cursor.d === 'n';
  // Reading towards the end of the list follows the partition's list order.
  const scanForward = towardsEnd === req.forward;
  const query = async (from: { k: string; inclusive: boolean } | null, budget: number) => {
    const names: Record<string, string> = { '#pk': 'pk', ...req.filter?.names };
    const values: Record<string, unknown> = { ':pk': req.pk, ...req.filter?.values };
    let keyCondition = '#pk = :pk';
    let start: Record<string, string> | undefined;
    if (req.bounds) {
      const range = boundedFrom(req.bounds, from, scanForward);
      if (range === null) return { Items: [], LastEvaluatedKey: undefined, ScannedCount: 0 };
      if (range.start !== undefined) start = { pk: req.pk, sk: range.start };
      const { lo, hi } = range;
      if (lo !== undefined || hi !== undefined) names['#sk'] = 'sk';
      if (lo !== undefined) values[':lo'] = lo;
      if (hi !== undefined) values[':hi'] = hi;
      if (lo !== undefined && hi !== undefined) keyCondition += ' AND #sk BETWEEN :lo AND :hi';
      else if (lo !== undefined) keyCondition += ' AND #sk >= :lo';
      else if (hi !== undefined) keyCondition += ' AND #sk <= :hi';
    } else if (from) {
      names['#sk'] = 'sk';
      // Not `:k`: a filter's own values use short names (a review list's `kind` is `:k`).
      values[':cursorKey'] = from.k;
      const op = scanForward ? (from.inclusive ? '>=' : '>') : from.inclusive ? '<=' : '<';
      keyCondition += ` AND #sk ${op} :cursorKey`;
    }
    return send((c) =>
      new c.QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: keyCondition,
        ExclusiveStartKey: start,
        FilterExpression: req.filter?.expression,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: scanForward,
        ConsistentRead: true,
        Limit: req.filter ? budget : req.limit + 1,
      }),
    );
  };
  const evaluated: Record<string, unknown>[] = [];
  let lastEvaluated: string | undefined;
  let from = req.cursor ? { k: req.cursor.k, inclusive: req.cursor.i === true } : null;
  const first = req.budget ?? readBudget(req.limit);
  const maxReads = req.maxReads ?? 1;
  let budget = first;
  let scanned = 0;
  let reads = 1;
  for (; ; reads++) {
    const out = await query(from, budget);
    evaluated.push(...(out.Items ?? []));
    scanned += out.ScannedCount ?? 0;
    lastEvaluated = out.LastEvaluatedKey?.sk as string | undefined;
    if (lastEvaluated === undefined || evaluated.length > req.limit) break;
    // Reading on: towards the end while the page is not full; backwards also until a record is found.
    const more = reads < maxReads || (!towardsEnd && evaluated.length === 0 && reads < MAX_BACKWARD_READS);
    if (!more) break;
    from = { k: lastEvaluated, inclusive: false };
    // The matches so far give the share of the items that match: read what should complete the page.
    const wanted = evaluated.length === 0 ? Infinity : ((req.limit + 1 - evaluated.length) * scanned * 1.25) / evaluated.length;
    budget = Math.ceil(Math.min(req.maxBudget ?? first, Math.max(req.limit + 1, wanted)));
  }
  const read = evaluated.map((item) => ({ sk: String(item.sk), value: project(item) }));
  const truncated = read.length > req.limit;
  const kept = read.slice(0, req.limit);
  // Where reading stopped, in scan order: the last kept item when the page was cut, otherwise
  // the last evaluated key (items between the two were read and filtered out).
  const boundary = truncated ? kept.at(-1)!.sk : (lastEvaluated ?? kept.at(-1)?.sk);
  const more = truncated || lastEvaluated !== undefined;

  if (towardsEnd) {
    const next: Cursor | null = more && boundary !== undefined ? { d: 'n', k: boundary } : null;
    let previous: Cursor | null = null;
    if (req.cursor) previous = kept[0] ? { d: 'p', k: kept[0].sk } : flip(req.cursor, 'p');
    return { items: kept, next, previous, reads };
  }
  // Read backwards from the cursor: put the page back into list order.
  const items = kept.reverse();
  const cursor = req.cursor!;
  const previous: Cursor =
    more && boundary !== undefined ? { d: 'p', k: boundary } : items[0] ? { d: 'p', k: items[0].sk } : { ...cursor };
  const last = items.at(-1);
  const next: Cursor = last ? { d: 'n', k: last.sk } : flip(cursor, 'n');
  return { items, next, previous, reads };
}

/**
 * The key range of a bounded read from a cursor position (`null`: nothing left to read): an
 * inclusive cursor narrows the bounds; an exclusive one inside them becomes the start key (a key
 * condition holds one comparison of the sort key), outside them it is either before the range
 * (read all of it) or past it (nothing).
 */
function boundedFrom(bounds: KeyBounds, from: { k: string; inclusive: boolean } | null, forward: boolean): (KeyBounds & { start?: string }) | null {
  let { lo, hi } = bounds;
  let start: string | undefined;
  // cmp(k, b): where k is relative to bound b (0 when there is no bound).
  const cmp = (k: string, b: string | undefined) => (b === undefined ? 0 : compareCodePoints(k, b));
  if (from?.inclusive) {
    if (forward && cmp(from.k, lo) >= 0) lo = from.k;
    if (!forward && cmp(from.k, hi) <= 0) hi = from.k;
  } else if (from) {
    // Past the range in the reading direction: nothing; inside it: start after the cursor.
    if (forward ? hi !== undefined && cmp(from.k, hi) >= 0 : lo !== undefined && cmp(from.k, lo) <= 0) return null;
    if (forward ? cmp(from.k, lo) >= 0 : cmp(from.k, hi) <= 0) start = from.k;
  }
  if (lo !== undefined && hi !== undefined && compareCodePoints(lo, hi) > 0) return null;
  return { lo, hi, start };
}

/** The cursor for the records on the other side of the same boundary. */
function flip(c: Cursor, d: Cursor['d']): Cursor {
  return c.i ? { d, k: c.k } : { d, k: c.k, i: true };
}
