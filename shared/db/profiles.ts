/**
 * Profiles (API.md §3.12, §4.12): one per user, records of kind PROFILE. The `user_id` claim
 * (unique: one profile per user) carries the record, so a user's profile is one GetItem away.
 * The user's username is copied into the profile (`user`, the `username` ordering and the
 * search text), so a username change rewrites the profile in the same transaction.
 */
import { grant, type KeyGrants, type KeyPattern } from './key-patterns.js';
import {
  claimKeys,
  createPlan,
  deletePlan,
  entityKeys,
  getByUnique,
  getRecord,
  replacePlan,
  type BaseRecord,
  type EntityDef,
  type Stored,
  type WritePlan,
} from './records.js';

export interface ProfileRecord extends BaseRecord {
  user: { id: string; username: string };
  first_name: string;
  last_name: string;
  birth_date: string | null;
  bio: string;
  image: string | null;
  cover: string | null;
  location: string;
  gender: string | null;
  website: string | null;
}

export const profiles: EntityDef<ProfileRecord> = {
  kind: 'PROFILE',
  orderings: {
    created_at: { value: (p) => p.created_at, type: 'plain' },
    username: { value: (p) => p.user.username, type: 'text' },
  },
  unique: [{ field: 'user_id', key: (p) => p.user.id, message: 'This user already has a profile.', carry: 'record' }],
  searchFields: (p) => [p.user.username, p.first_name, p.last_name],
};

/** Every item of every profile. */
export const PROFILE_KEYS: KeyPattern = entityKeys(profiles);
/** The profiles by user (claims carrying the record): what a public view of a user reads. */
export const PROFILE_BY_USER_KEYS: KeyPattern = claimKeys(profiles, 'user_id');

/**
 * What the account operations do to a user's profile: create it (its items put, the counter
 * counted); rename it with its user (read by the user's id, put again, the `username` ordering
 * entries moved); delete it (read, its items deleted, the counter counted down).
 */
export const PROFILE_WRITES = {
  create: grant(PROFILE_KEYS, 'PutItem', 'UpdateItem'),
  rename: grant(PROFILE_KEYS, 'GetItem', 'PutItem', 'DeleteItem'),
  delete: grant(PROFILE_KEYS, 'GetItem', 'DeleteItem', 'UpdateItem'),
} as const satisfies Record<string, KeyGrants>;

export const getProfile = (id: string): Promise<Stored<ProfileRecord> | null> => getRecord(profiles, id);
export const getProfileOfUser = (userId: string): Promise<Stored<ProfileRecord> | null> => getByUnique(profiles, 'user_id', userId);

export const createProfilePlan = (p: ProfileRecord): WritePlan => createPlan(profiles, p);
export const replaceProfilePlan = (before: Stored<ProfileRecord>, after: ProfileRecord): WritePlan => replacePlan(profiles, before, after);
export const deleteProfilePlan = (stored: Stored<ProfileRecord>): WritePlan => deletePlan(profiles, stored);

/** A blank profile of a user (created with the account, or on first use after a deletion). */
export function blankProfile(id: string, user: { id: string; username: string }, now: string): ProfileRecord {
  return {
    id,
    user,
    first_name: '',
    last_name: '',
    birth_date: null,
    bio: '',
    image: null,
    cover: null,
    location: '',
    gender: null,
    website: null,
    created_at: now,
    updated_at: now,
  };
}
