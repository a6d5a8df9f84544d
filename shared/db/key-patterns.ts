/**
 * Partition-key patterns: which items of the table a function may touch, and how. Each entity
 * module of this folder exports the patterns of its own keys, beside the code that builds those
 * keys; route, job and stream declarations grant actions on the ones they use (`KeyGrants`), and
 * infra/aws/access.ts turns them into the statements of the function's role, each with the
 * `dynamodb:LeadingKeys` condition of its patterns (docs/decisions.md).
 *
 * A pattern is an IAM `StringLike` value: `*` matches any run of characters (none included),
 * `?` any one character, everything else itself, case-sensitively. Keys are `<KIND>#…` with ids
 * of `[A-Za-z0-9_-]`, so a pattern ending in `#*` names exactly one family of keys: `USER#U#username#*`
 * is every username claim and nothing else, while `USER#*` is every item of every user.
 */
export type KeyPattern = string;

/** Whether `key` matches `pattern` as IAM's StringLike compares them. */
export function matchesKeyPattern(key: string, pattern: KeyPattern): boolean {
  const source = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 's').test(key);
}

/** Whether `key` matches one of `patterns` (IAM's `ForAllValues:StringLike`, for one key). */
export const allowedKey = (key: string, patterns: readonly KeyPattern[]): boolean => patterns.some((p) => matchesKeyPattern(key, p));

/**
 * The actions on items a role may be granted, as IAM names them (without `dynamodb:`): reads
 * (GetItem, BatchGetItem, Query, ConditionCheckItem) and writes (the others). DynamoDB
 * authorises a transaction per item: its Put, Update and Delete as PutItem, UpdateItem and
 * DeleteItem, its ConditionCheck as ConditionCheckItem, and TransactGetItems as GetItem. No Scan
 * (DESIGN.md §4), no table administration.
 */
export const TABLE_ACTIONS = ['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'] as const;
export type TableAction = (typeof TABLE_ACTIONS)[number];

/**
 * What a function may do to the items of the table: per partition-key pattern, the actions it
 * performs on those items and no other. Patterns may overlap (`ANIME#*` and `ANIME#*#L`): an
 * action on an item is allowed when one pattern that matches its key grants it, as IAM allows a
 * request that one statement of the role allows.
 */
export type KeyGrants = Readonly<Record<KeyPattern, readonly TableAction[]>>;

/** `actions` on the items of each of `patterns`. */
export function grant(patterns: KeyPattern | readonly KeyPattern[], ...actions: TableAction[]): KeyGrants {
  return Object.fromEntries(([] as KeyPattern[]).concat(patterns).map((p) => [p, ordered(actions)]));
}

/** Several grants as one: each pattern with every action any of them grants it. */
export function grants(...parts: readonly KeyGrants[]): KeyGrants {
  const out: Record<KeyPattern, TableAction[]> = {};
  for (const part of parts) for (const [pattern, actions] of Object.entries(part)) out[pattern] = ordered([...(out[pattern] ?? []), ...actions]);
  return out;
}

/**
 * What each operation of the catalogue CRUD pattern (API.md §4.0) does to the table: the list,
 * the detail, the creation, the replacement and partial update (`update`: PUT and PATCH), the
 * deletion. Written by the module that does it (records.ts for the taxonomies, the title
 * resources for the titles), declared by shared/http/crud-routes.ts.
 */
export interface CrudGrants {
  list: KeyGrants;
  get: KeyGrants;
  create: KeyGrants;
  update: KeyGrants;
  delete: KeyGrants;
}

/** Actions without repeats, in the order of TABLE_ACTIONS. */
const ordered = (actions: readonly TableAction[]): TableAction[] => TABLE_ACTIONS.filter((a) => actions.includes(a));
