/**
 * Sort keys of ordering index items (API.md §1.6 "Ordering"): records ordered by one key, then
 * by id ascending, `null` last in both directions, text compared as N(value) by code point.
 *
 * DynamoDB orders string sort keys by their UTF-8 bytes, which is code point order. Each
 * ordering has two index partitions, one per direction:
 *   ascending:  "1" + value + SEP + id          (null: "2" + SEP + id), read forwards;
 *   descending: "1" + value + SEP + invert(id)  (null: "0" + SEP + invert(id)), read backwards.
 * Ids are fixed-length (shared/ids.ts), which invert() needs.
 * Reading the descending partition backwards yields values descending, ties by id ascending
 * (because invert() reverses the order of fixed-length ids), and nulls last.
 */
import { ID_LENGTH } from '../ids.js';
import { searchNormalize } from '../text.js';

/** Lower than every character a value can contain (values never hold control characters). */
const SEP = '\u0001';
/**
 * Sort keys are limited to 1,024 bytes: "1" + value + SEP + id leaves 1,000 bytes for the value.
 * Longer normalised texts are cut there (at a code point); see docs/decisions.md.
 */
const MAX_VALUE_BYTES = 1024 - 2 - ID_LENGTH;

export type OrderValue = string | number | null;
export type OrderType = 'text' | 'count' | 'plain';

const ID_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

/** Maps each id character to its mirror in byte order, so invert(a) < invert(b) ⇔ a > b. */
export function invertId(id: string): string {
  let out = '';
  for (const ch of id) out += ID_ALPHABET[ID_ALPHABET.length - 1 - ID_ALPHABET.indexOf(ch)];
  return out;
}

function cutUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s) <= maxBytes) return s;
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    const b = Buffer.byteLength(ch);
    if (bytes + b > maxBytes) break;
    out += ch;
    bytes += b;
  }
  return out;
}

function encodeValue(value: Exclude<OrderValue, null>, type: OrderType, maxBytes: number): string {
  switch (type) {
    case 'text':
      return cutUtf8(searchNormalize(String(value)), maxBytes);
    case 'count': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`count sort value must be a non-negative integer: ${value}`);
      return String(n).padStart(15, '0');
    }
    case 'plain':
      // Fixed-width strings that already sort correctly (timestamps, dates).
      return String(value);
  }
}

/**
 * Part of a composite sort key (the top lists of shared/db/rankings.ts): a text as the `text`
 * orderings compare it — N(value), by code point — cut so that `reserved` bytes of other parts
 * still fit, and followed by SEP (a shorter text sorts before its continuations).
 */
export function textPart(value: string, reserved: number): string {
  return `${cutUtf8(searchNormalize(value), MAX_VALUE_BYTES - reserved)}${SEP}`;
}

/**
 * `id` may be several fixed-length ids in a row (an entry without an id of its own is ordered by
 * the ids of the records it shows); a text value then gives up the bytes they take beyond one id,
 * and `reserved` bytes of a prefix the caller puts before the key.
 */
export function sortKey(value: OrderValue, type: OrderType, id: string, direction: 'asc' | 'desc', reserved = 0): string {
  const maxBytes = MAX_VALUE_BYTES - Math.max(0, Buffer.byteLength(id) - ID_LENGTH) - reserved;
  if (direction === 'asc') return value === null ? `2${SEP}${id}` : `1${encodeValue(value, type, maxBytes)}${SEP}${id}`;
  return value === null ? `0${SEP}${invertId(id)}` : `1${encodeValue(value, type, maxBytes)}${SEP}${invertId(id)}`;
}

/** Whether a sort key is that of a value, not of `null` (either direction). */
export const keyHasValue = (sk: string): boolean => sk.startsWith('1');

/** Compares two strings by code point (DynamoDB's order of string keys), not by UTF-16 unit. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/**
 * A position in an ordering (API.md §1.5): what a pagination cursor holds, signed and bound to its
 * request by shared/http/cursor.ts.
 */
export interface Cursor {
  /** `n`: records after `k` (towards the end of the list); `p`: records before `k`. */
  d: 'n' | 'p';
  /** Boundary: the index sort key of a record. */
  k: string;
  /** Whether the record at `k` itself is included. */
  i?: true;
}
