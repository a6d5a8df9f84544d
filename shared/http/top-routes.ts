/**
 * What the declarations of the lists the rankings job makes share (API.md §4.20, §4.2
 * `characters/members/`; answered by shared/http/top.ts): the response — the resource's list
 * items, `count` null, `refreshed_at` — and the items such a list reads.
 */
import * as z from 'zod/mini';
import { grant, grants, type KeyGrants, type KeyPattern } from '../db/key-patterns.js';
import { TOP_READS } from '../db/rankings.js';
import type { BaseRecord } from '../db/records.js';
import { TOMBSTONE_READS } from '../db/tombstones.js';
import type { TitleResource } from '../domain/title-resource.js';

/** The `filter` values of `top/animes/` and `top/mangas/` (§4.20). */
export const TITLE_FILTERS = {
  anime: ['airing', 'upcoming', 'bypopularity', 'favorite'],
  manga: ['publishing', 'upcoming', 'bypopularity', 'favorite'],
} as const;

/** A job-made list's response: the resource's list items, `count` null, `refreshed_at` (null before the first run). */
export function rankedResponse<R extends BaseRecord>(resource: TitleResource<R>) {
  const item = resource.listRead ?? resource.read;
  return {
    status: 200,
    schema: item,
    page: true,
    fields: Object.keys(item.shape),
    envelope: { refreshed_at: z.nullable(z.string().check(z.meta({ format: 'date-time' }))) },
  } as const;
}

/**
 * What a job-made list reads: `refreshed_at` (with the records and the tombstones: BatchGetItem),
 * its entries (Query), the records (`kind`: their key pattern), the tombstones.
 */
export const rankedKeys = (kind: KeyPattern): KeyGrants => grants(TOP_READS, grant(kind, 'BatchGetItem'), TOMBSTONE_READS);
