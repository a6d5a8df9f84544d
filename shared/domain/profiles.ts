/** Profiles (API.md §3.12, §4.12): write fields, read shape, and the administrator's list options. */
import * as z from 'zod/mini';
import { profiles, type ProfileRecord } from '../db/profiles.js';
import { Gender } from './enums.js';
import { date, id, line, oneOf, optionalNullable, optionalText, required, text, url, writeSchemas } from './fields.js';
import type { Resource } from './resource.js';

export const profileFields = {
  first_name: optionalText(line({ max: 100 })),
  last_name: optionalText(line({ max: 100 })),
  birth_date: optionalNullable(date({ min: '1900-01-01', max: 'today' })),
  bio: optionalText(text({ max: 1000 })),
  image: optionalNullable(url()),
  cover: optionalNullable(url()),
  location: optionalText(line({ max: 100 })),
  gender: optionalNullable(oneOf(Gender)),
  website: optionalNullable(url({ allowHttp: true })),
};

/** PUT (all fields, defaults for omitted ones) and PATCH / update-profile (any subset). */
export const profileBodies = writeSchemas(profileFields);
/** The administrator's POST /api/profiles/: `user_id` + the profile fields. */
export const profileCreateBody = writeSchemas({ user_id: required(id()), ...profileFields }).full;

const timestamp = z.string().check(z.meta({ format: 'date-time' }));
export const profileRead = z.object({
  id: z.string(),
  user: z.object({ id: z.string(), username: z.string() }),
  first_name: z.string(),
  last_name: z.string(),
  birth_date: z.nullable(z.string().check(z.meta({ format: 'date' }))),
  bio: z.string(),
  image: z.nullable(z.string()),
  cover: z.nullable(z.string()),
  location: z.string(),
  gender: z.nullable(z.enum(Gender)),
  website: z.nullable(z.string()),
  created_at: timestamp,
  updated_at: timestamp,
});
export const PROFILE_FIELDS = Object.keys(profileRead.shape);

/** The writable values of a profile. */
export const profileValues = (p: ProfileRecord): Record<string, unknown> =>
  Object.fromEntries(Object.keys(profileFields).map((k) => [k, (p as unknown as Record<string, unknown>)[k]]));

/** Profiles as the administrator's CRUD operations see them (shared/http/crud.ts: list, get, PUT, PATCH, DELETE). */
export const profileResource: Resource<ProfileRecord> = {
  segment: 'profiles',
  noun: 'profile',
  entity: profiles,
  writer: 'administrator',
  fields: profileFields,
  read: profileRead,
  list: { orderings: ['created_at', 'username'], defaultOrdering: '-created_at', search: true },
  toRecord: (values, meta, prev) => profileRecord(prev!.user, values, meta),
};

/** A profile record from its writable values, keys in shape order (`user_id` is not a profile field). */
export function profileRecord(
  user: { id: string; username: string },
  values: Record<string, unknown>,
  meta: { id: string; created_at: string; updated_at: string },
): ProfileRecord {
  const fields = Object.fromEntries(Object.keys(profileFields).map((k) => [k, values[k]]));
  return { id: meta.id, user, ...fields, created_at: meta.created_at, updated_at: meta.updated_at } as ProfileRecord;
}
