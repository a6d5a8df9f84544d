/** Representations: strong ETags from the body (§1.7), sparse fieldsets (§1.6), Cache-Control. */
import { createHash } from 'node:crypto';
import type { CachePolicy } from './route.js';
import { preconditionFailed } from '../problem.js';
import type { EntityTags } from './request.js';

/** The strong ETag of a representation: its JSON text, or the bytes of a body that is not JSON. */
export function etagOf(representation: string | Buffer): string {
  return `"${createHash('sha256').update(representation).digest('base64url').slice(0, 27)}"`;
}

/** The ETag of a record's representation (what its GET without `fields` would send). */
export function recordEtag(representation: unknown): string {
  return etagOf(JSON.stringify(representation));
}

/** If-None-Match uses the weak comparison. */
export function noneMatch(tags: EntityTags, etag: string): boolean {
  if (tags === '*') return true;
  const value = etag.slice(1, -1);
  return tags.some((t) => t.tag === value);
}

/** If-Match uses the strong comparison; `*` matches any existing record. Throws 412. */
export function checkIfMatch(tags: EntityTags | null, currentEtag: string): void {
  if (tags === null || tags === '*') return;
  const value = currentEtag.slice(1, -1);
  if (!tags.some((t) => !t.weak && t.tag === value)) throw preconditionFailed();
}

/** The record with its keys in the order of its read shape (stored maps do not keep key order). */
export function inShapeOrder<T>(record: T, keys: readonly string[]): T {
  const src = record as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in src).map((k) => [k, src[k]])) as T;
}

/** Keeps only `fields` (plus `id` where the shape has one) of a record. */
export function projectFields(record: unknown, fields: readonly string[]): unknown {
  if (typeof record !== 'object' || record === null) return record;
  const src = record as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (Object.hasOwn(src, 'id')) out.id = src.id;
  for (const f of fields) if (Object.hasOwn(src, f)) out[f] = src[f];
  return out;
}

export function cacheControl(policy: CachePolicy, personalised: boolean): string {
  switch (policy) {
    case 'public':
      return 'public, max-age=60';
    case 'public-vary':
      return personalised ? 'private, no-store' : 'public, max-age=60';
    case 'static':
      return 'public, max-age=3600';
    case 'feed':
      return 'public, max-age=300';
    case 'private':
    case 'no-store':
      return policy === 'private' ? 'private, no-store' : 'no-store';
  }
}

/**
 * Whether an Accept-Encoding value accepts gzip: named with a non-zero weight, or not named and
 * `*` accepted (RFC 9110 §12.5.3).
 */
export function acceptsGzip(header: string | undefined): boolean {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!coding) continue;
    const q = params.find((p) => p.startsWith('q='));
    weights.set(coding, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}
