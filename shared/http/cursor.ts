/**
 * Opaque, tamper-evident pagination cursors (API.md §1.5). A cursor holds a position in an
 * ordering index (the boundary sort key and which side of it to read) and a hash of the path and
 * of every query parameter except `limit` and `cursor`; it is signed with HMAC-SHA256 under the
 * key in the secret named by CURSOR_SECRET_ID. A cursor that was altered, or that is replayed on
 * another path or with other parameters, is refused.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { secretFromEnv } from '../secrets.js';
import { invalidQuery } from '../problem.js';
import type { Cursor } from '../db/sort-keys.js';


const SIG_LENGTH = 32;

export function queryBinding(path: string, params: readonly [string, string][]): string {
  const bound = params
    .filter(([k]) => k !== 'limit' && k !== 'cursor')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .sort()
    .join('&');
  return createHash('sha256').update(`${path}?${bound}`).digest('base64url').slice(0, 22);
}

async function sign(payload: string): Promise<string> {
  const key = await secretFromEnv('CURSOR_SECRET_ID', 60 * 60_000);
  return createHmac('sha256', key).update(payload).digest('base64url').slice(0, SIG_LENGTH);
}

export async function encodeCursor(cursor: Cursor, binding: string): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ ...cursor, b: binding })).toString('base64url');
  return `${payload}.${await sign(payload)}`;
}

const bad = () => invalidQuery({ cursor: ['Invalid cursor.'] }, 'The cursor is invalid or belongs to another query.');

export async function decodeCursor(raw: string, binding: string): Promise<Cursor> {
  const dot = raw.indexOf('.');
  if (dot <= 0 || raw.length > 4096) throw bad();
  const payload = raw.slice(0, dot);
  const sig = Buffer.from(raw.slice(dot + 1));
  const expected = Buffer.from(await sign(payload));
  if (sig.length !== expected.length || !timingSafeEqual(sig, expected)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const c = parsed as { d?: unknown; k?: unknown; i?: unknown; b?: unknown };
  if ((c.d !== 'n' && c.d !== 'p') || typeof c.k !== 'string' || c.b !== binding) throw bad();
  return c.i === true ? { d: c.d, k: c.k, i: true } : { d: c.d, k: c.k };
}
