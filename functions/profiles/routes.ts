/** The operations on /api/profiles/ (API.md §4.12). */
import { PROFILE_KEYS } from '../../shared/db/profiles.js';
import { AUTH_KEYS } from '../../shared/db/users.js';
import { PROFILE_FIELDS, profileBodies, profileCreateBody, profileRead, profileResource } from '../../shared/domain/profiles.js';
import { listQuery } from '../../shared/http/crud-routes.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';

const PROFILES = '/api/profiles/';
const PROFILE = '/api/profiles/{id}/';
const profile = { status: 200, schema: profileRead } as const;
const writeErrors = ['not-found', 'precondition-failed', 'validation-error'] as const;
/** A profile copies its user's username: creating one reads the user's auth state (id, username, revision), never its record. */
const WITH_USER = [PROFILE_KEYS, AUTH_KEYS];

/** Every operation on /api/profiles/ and /api/profiles/{id}/ is for administrators, even on one's own profile. */
export const routes = {
  list: defineRoute({
    name: 'profiles.list', method: 'GET', path: PROFILES, access: 'administrator',
    summary: 'List profiles',
    query: listQuery(profileResource),
    response: { status: 200, schema: profileRead, page: true, fields: PROFILE_FIELDS },
    keys: [PROFILE_KEYS],
  }),
  create: defineRoute({
    name: 'profiles.create', method: 'POST', path: PROFILES, access: 'administrator',
    summary: 'Create a profile', description: 'For a user who has none (after an administrator removed it): `user_id` and the profile fields.',
    body: profileCreateBody,
    response: { status: 201, schema: profileRead }, errors: ['validation-error', 'conflict'],
    keys: WITH_USER,
  }),
  get: defineRoute({
    name: 'profiles.get', method: 'GET', path: PROFILE, access: 'administrator',
    summary: 'Retrieve one', response: { ...profile, fields: PROFILE_FIELDS }, errors: ['not-found'],
    keys: [PROFILE_KEYS],
  }),
  put: defineRoute({
    name: 'profiles.put', method: 'PUT', path: PROFILE, access: 'administrator',
    summary: 'Update', body: profileBodies.full, response: profile, errors: writeErrors,
    keys: [PROFILE_KEYS],
  }),
  patch: defineRoute({
    name: 'profiles.patch', method: 'PATCH', path: PROFILE, access: 'administrator',
    summary: 'Partially update', body: profileBodies.partial, response: profile, errors: writeErrors,
    keys: [PROFILE_KEYS],
  }),
  delete: defineRoute({
    name: 'profiles.delete', method: 'DELETE', path: PROFILE, access: 'administrator',
    summary: 'Delete', description: 'The account remains; its next `my-profile` or `update-profile` call creates a new blank profile.',
    response: { status: 204 }, errors: ['not-found', 'precondition-failed'],
    keys: [PROFILE_KEYS],
  }),
  'my-profile': defineRoute({
    name: 'profiles.my-profile', method: 'GET', path: '/api/profiles/my-profile/', access: 'member',
    summary: "Retrieve the authenticated user's profile", description: 'Created blank first if the profile was removed.',
    response: { ...profile, fields: PROFILE_FIELDS },
    writes: true,
    keys: WITH_USER,
  }),
  'update-profile': defineRoute({
    name: 'profiles.update-profile', method: 'PATCH', path: '/api/profiles/update-profile/', access: 'member',
    summary: "Update the authenticated user's profile", description: '`If-Match` compares with the ETag of `my-profile`.',
    body: profileBodies.partial, response: profile, errors: ['precondition-failed', 'validation-error'],
    keys: WITH_USER,
  }),
} satisfies Record<string, RouteDecl>;
