/**
 * Pictures and videos written as arrays on their record (API.md §3.2, §3.10): the `pictures`
 * field of a write shape, how a written array keeps the ids of the stored entries by `url`, and
 * how their sub-resource lists show them (§4.1.2, §4.7, §4.9: read shapes, the `position` and
 * `created_at` orderings, the videos' `kind` filter). Shared by every record that has them
 * (animes' videos and pictures, mangas' and persons' pictures).
 */
import * as z from 'zod/mini';
import type { BaseRecord } from '../db/records.js';
import type { TitleDef } from '../db/titles.js';
import type { RelationListing } from './listings.js';
import { enumParam } from './params.js';
import { newId } from '../ids.js';
import { VideoKind } from './enums.js';
import { distinctList, line, optional, url } from './fields.js';

export interface Picture {
  id: string;
  name: string;
  url: string;
  width: number | null;
  height: number | null;
  created_at: string;
  updated_at: string;
  /**
   * The object-storage key of an uploaded file (`create-picture`, API.md §4.9); absent for a
   * picture given by URL. Never shown (pictureRead). Kept while the picture keeps its `url`; a
   * picture written by URL never gets one, so a client that writes another person's file URL
   * cannot make a deletion remove that file.
   */
  file?: string;
}

/**
 * The URL of a file the server stored (create-picture), written back in `pictures` (§3.6). On
 * AWS it is https like any other; locally it is the S3 emulator's plain-http URL (decision 71),
 * accepted here so that a client can write back what it was given.
 */
function isStoredFileUrl(v: string): boolean {
  const base = process.env.PICTURES_BASE_URL?.replace(/\/+$/, '');
  return base !== undefined && base !== '' && v.startsWith(`${base}/`);
}

const pictureWrite = z.strictObject({
  url: url({ accept: isStoredFileUrl }),
  name: z.pipe(z.optional(z.nullable(line({ max: 100 }))), z.transform((v) => v ?? '')),
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

/**
 * The stored files of uploaded pictures that a write drops (`after` null: the record is deleted):
 * they are queued for removal in the write's transaction (shared/db/files.ts goneFilesPlan).
 */
export function droppedFiles(before: readonly Picture[], after: readonly Picture[] | null): string[] {
  const kept = new Set((after ?? []).map((p) => p.file).filter((f) => f !== undefined));
  return before.flatMap((p) => (p.file !== undefined && !kept.has(p.file) ? [p.file] : []));
}

/** Stored pictures as a write would give them (what a PATCH starts from). */
export const writtenPictures = (stored: readonly Picture[]) => stored.map((p) => ({ url: p.url, name: p.name }));

const times = { created_at: z.string().check(z.meta({ format: 'date-time' })), updated_at: z.string().check(z.meta({ format: 'date-time' })) };

export const pictureRead = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().check(z.meta({ format: 'uri' })),
  width: z.nullable(z.int()),
  height: z.nullable(z.int()),
  ...times,
});
export const videoRead = z.object({ id: z.string(), title: z.string(), url: z.string().check(z.meta({ format: 'uri' })), kind: z.enum(VideoKind), ...times });

type Entry = { id: string; created_at: string; kind?: string };

const byPosition = {
  position: { value: (_: Entry, position: number) => position, type: 'count' as const },
  created_at: { value: (e: Entry) => e.created_at, type: 'plain' as const },
};

/** The query of a media list: `ordering` (`position`, default), and `kind` for videos. */
export const mediaOrderings = ['position', 'created_at'] as const;
export const videoFilters = { kind: enumParam(VideoKind) };

const shaped = (shape: z.ZodMiniObject) => (e: Entry) => Object.fromEntries(Object.keys(shape.shape).map((k) => [k, (e as Record<string, unknown>)[k]]));

export function picturesOf<R extends BaseRecord>(title: TitleDef<R>, noun: string): RelationListing<Entry> {
  return { title: title as unknown as TitleDef<BaseRecord>, relation: 'pictures', noun, orderings: byPosition, project: shaped(pictureRead) };
}

export function videosOf<R extends BaseRecord>(title: TitleDef<R>, noun: string): RelationListing<Entry> {
  return { title: title as unknown as TitleDef<BaseRecord>, relation: 'videos', noun, orderings: byPosition, filters: { kind: (e) => e.kind ?? '' }, project: shaped(videoRead) };
}
