/**
 * Pictures and videos written as arrays on their record (API.md §3.2, §3.10): the `pictures`
 * field of a write shape, and how a written array keeps the ids of the stored entries by `url`.
 * Shared by every record that has them (animes' videos and pictures, persons' pictures).
 */
import * as z from 'zod';
import { newId } from '../ids.js';
import { distinctList, line, optional, url } from './fields.js';

export interface Picture {
  id: string;
  name: string;
  url: string;
  width: number | null;
  height: number | null;
  created_at: string;
  updated_at: string;
}

const pictureWrite = z.strictObject({
  url: url(),
  name: line({ max: 100 })
    .nullable()
    .optional()
    .transform((v) => v ?? ''),
});

/** `pictures`: PictureWrite[] (≤ 100; distinct `url`), default `[]`. */
export const picturesField = optional(distinctList(pictureWrite, { max: 100, key: (p) => p.url, field: 'url', message: 'Duplicate URL.' }), () => []);

/**
 * §3.2: entries whose `url` matches a stored entry keep its `id` and `created_at` (and
 * `updated_at` unless a field changed); the others are new records.
 */
export function keepByUrl<T extends { id: string; url: string; created_at: string; updated_at: string }>(
  written: readonly Record<string, unknown>[],
  stored: readonly T[],
  at: string,
  fresh: (w: Record<string, unknown>) => Omit<T, 'id' | 'created_at' | 'updated_at'>,
): T[] {
  const byUrl = new Map(stored.map((s) => [s.url, s]));
  return written.map((w) => {
    const values = fresh(w);
    const old = byUrl.get(w.url as string);
    if (!old) return { id: newId(), ...values, created_at: at, updated_at: at } as unknown as T;
    const same = Object.entries(values).every(([k, v]) => JSON.stringify((old as Record<string, unknown>)[k]) === JSON.stringify(v));
    return { ...old, ...values, updated_at: same ? old.updated_at : at } as T;
  });
}

/** The pictures of a write, kept by `url`; a kept picture keeps its size too (known for uploads, §3.10). */
export function keepPictures(written: readonly Record<string, unknown>[], stored: readonly Picture[], at: string): Picture[] {
  const byUrl = new Map(stored.map((p) => [p.url, p]));
  return keepByUrl<Picture>(written, stored, at, (w) => {
    const old = byUrl.get(w.url as string);
    return { name: w.name as string, url: w.url as string, width: old?.width ?? null, height: old?.height ?? null };
  });
}

/** Stored pictures as a write would give them (what a PATCH starts from). */
export const writtenPictures = (stored: readonly Picture[]) => stored.map((p) => ({ url: p.url, name: p.name }));
