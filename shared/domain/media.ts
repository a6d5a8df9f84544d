/**
 * Pictures and videos (API.md §3.10) as their sub-resource lists show them (§4.1.2, §4.7,
 * §4.9): read shapes, the `position` and `created_at` orderings and the videos' `kind` filter.
 */
import * as z from 'zod';
import type { BaseRecord } from '../db/records.js';
import type { TitleDef } from '../db/titles.js';
import type { RelationListing } from '../http/relations.js';
import { enumParam } from '../http/schemas.js';
import { VideoKind } from './enums.js';

const times = { created_at: z.string().meta({ format: 'date-time' }), updated_at: z.string().meta({ format: 'date-time' }) };

export const pictureRead = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string().meta({ format: 'uri' }),
  width: z.int().nullable(),
  height: z.int().nullable(),
  ...times,
});
export const videoRead = z.object({ id: z.string(), title: z.string(), url: z.string().meta({ format: 'uri' }), kind: z.enum(VideoKind), ...times });

type Entry = { id: string; created_at: string; kind?: string };

const byPosition = {
  position: { value: (_: Entry, position: number) => position, type: 'count' as const },
  created_at: { value: (e: Entry) => e.created_at, type: 'plain' as const },
};

/** The query of a media list: `ordering` (`position`, default), and `kind` for videos. */
export const mediaOrderings = ['position', 'created_at'] as const;
export const videoFilters = { kind: enumParam(VideoKind) };

const shaped = (shape: z.ZodObject) => (e: Entry) => Object.fromEntries(Object.keys(shape.shape).map((k) => [k, (e as Record<string, unknown>)[k]]));

export function picturesOf<R extends BaseRecord>(title: TitleDef<R>, noun: string): RelationListing<Entry> {
  return { title: title as unknown as TitleDef<BaseRecord>, relation: 'pictures', noun, orderings: byPosition, project: shaped(pictureRead) };
}

export function videosOf<R extends BaseRecord>(title: TitleDef<R>, noun: string): RelationListing<Entry> {
  return { title: title as unknown as TitleDef<BaseRecord>, relation: 'videos', noun, orderings: byPosition, filters: { kind: (e) => e.kind ?? '' }, project: shaped(videoRead) };
}
