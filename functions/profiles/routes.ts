/** The operations on /api/profiles/ (API.md §4.12). */
import { grant, grants } from '../../shared/db/key-patterns.js';
import { PROFILE_KEYS } from '../../shared/db/profiles.js';
import { AUTH_KEYS } from '../../shared/db/users.js';
import { PROFILE_FIELDS, profileBodies, profileCreateBody, profileRead, profileResource } from '../../shared/domain/profiles.js';
import { listQuery } from '../../shared/http/crud-routes.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';

const PROFILES = '/api/profiles/';
const PROFILE = '/api/profiles/{id}/';
const profile = { status: 200, schema: profileRead } as const;
const writeErrors = ['not-found', 'precondition-failed', 'validation-error'] as const;
/**
 * What the operations do to the profiles (records.ts: the record, its `user_id` claim, ordering
 * entries and counter). A profile copies its user's username: creating one reads the user's
 * auth state (id, username, revision; never its record) and checks in its transaction that it
 * has not changed (ConditionCheckItem).
 */
const KEYS = {
  list: grant(PROFILE_KEYS, 'GetItem', 'Query'),
  read: grant(PROFILE_KEYS, 'GetItem'),
  create: grants(grant(PROFILE_KEYS, 'PutItem', 'UpdateItem'), grant(AUTH_KEYS, 'GetItem', 'ConditionCheckItem')),
  // A change keeps the username, and so the ordering entries' keys: the items are put again.
  update: grant(PROFILE_KEYS, 'GetItem', 'PutItem'),
  delete: grant(PROFILE_KEYS, 'GetItem', 'DeleteItem', 'UpdateItem'),
  // The caller's own profile, read by its user id (the claim), created blank if it was removed.
  own: grants(grant(PROFILE_KEYS, 'GetItem', 'PutItem', 'UpdateItem'), grant(AUTH_KEYS, 'GetItem', 'ConditionCheckItem')),
};

/** Every operation on /api/profiles/ and /api/profiles/{id}/ is for administrators, even on one's own profile. */
export const routes = {
  list: defineRoute({
    name: 'profiles.list', method: 'GET', path: PROFILES, access: 'administrator',
    summary: 'List profiles',
    query: listQuery(profileResource),
    response: { status: 200, schema: profileRead, page: true, fields: PROFILE_FIELDS },
    keys: KEYS.list,
  }),
  create: defineRoute({
    name: 'profiles.create', method: 'POST', path: PROFILES, access: 'administrator',
    summary: 'Create a profile', description: 'For a user who has none (after an administrator removed it): `user_id` and the profile fields.',
    body: profileCreateBody,
    response: { status: 201, schema: profileRead }, errors: ['validation-error', 'conflict'],
    keys: KEYS.create,
  }),
  get: defineRoute({
    name: 'profiles.get', method: 'GET', path: PROFILE, access: 'administrator',
    summary: 'Retrieve one', response: { ...profile, fields: PROFILE_FIELDS }, errors: ['not-found'],
    keys: KEYS.read,
  }),
  put: defineRoute({
    name: 'profiles.put', method: 'PUT', path: PROFILE, access: 'administrator',
    summary: 'Update', body: profileBodies.full, response: profile, errors: writeErrors,
    keys: KEYS.update,
  }),
  patch: defineRoute({
    name: 'profiles.patch', method: 'PATCH', path: PROFILE, access: 'administrator',
    summary: 'Partially update', body: profileBodies.partial, response: profile, errors: writeErrors,
    keys: KEYS.update,
  }),
  delete: defineRoute({
    name: 'profiles.delete', method: 'DELETE', path: PROFILE, access: 'administrator',
    summary: 'Delete', description: 'The account remains; its next `my-profile` or `update-profile` call creates a new blank profile.',
    response: { status: 204 }, errors: ['not-found', 'precondition-failed'],
    keys: KEYS.delete,
  }),
  'my-profile': defineRoute({
    name: 'profiles.my-profile', method: 'GET', path: '/api/profiles/my-profile/', access: 'member',
    summary: "Retrieve the authenticated user's profile", description: 'Created blank first if the profile was removed.',
    response: { ...profile, fields: PROFILE_FIELDS },
    keys: KEYS.own,
  }),
  'update-profile': defineRoute({
    name: 'profiles.update-profile', method: 'PATCH', path: '/api/profiles/update-profile/', access: 'member',
    summary: "Update the authenticated user's profile", description: '`If-Match` compares with the ETag of `my-profile`.',
    body: profileBodies.partial, response: profile, errors: ['precondition-failed', 'validation-error'],
    keys: KEYS.own,
  }),
} satisfies Record<string, RouteDecl>;
