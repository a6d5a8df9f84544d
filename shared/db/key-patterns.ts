/**
 * Partition-key patterns: which items of the table a function may touch. Each entity module of
 * this folder exports the patterns of its own keys, beside the code that builds those keys;
 * route, job and stream declarations list the ones they use, and infra/aws/access.ts turns them
 * into the `dynamodb:LeadingKeys` condition of the function's role (docs/decisions.md).
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
