/** The operations on /api/users/ (API.md §4.21). */
import * as z from 'zod/mini';
import { ReviewKind } from '../../shared/domain/enums.js';
import { PLAYLISTS } from '../../shared/domain/playlists.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, REVIEW_DEFAULT_ORDERING, REVIEW_FIELDS, REVIEW_ORDERINGS, reviewRead } from '../../shared/domain/reviews.js';
import { REVIEW_COUNT_KEYS, REVIEW_PAGE_READS } from '../../shared/db/reviews.js';
import { titleKeys } from '../../shared/db/titles.js';
import {
  USER_FIELDS,
  adminUserBody,
  adminUserPatchBody,
  deleteSelfBody,
  emailBody,
  registrationBody,
  registrationRead,
  resetEmailBody,
  resetPasswordConfirmBody,
  selfBody,
  selfPatchBody,
  setEmailBody,
  setPasswordBody,
  uidTokenBody,
  userAboutRead,
  userRead,
  usernameParams,
  userListing,
} from '../../shared/domain/users.js';
import type { Caller } from '../../shared/auth/roles.js';
import { grant, grants } from '../../shared/db/key-patterns.js';
import { listPartitionKeys } from '../../shared/db/playlists.js';
import { PROFILE_BY_USER_KEYS, PROFILE_WRITES } from '../../shared/db/profiles.js';
import { TOMBSTONE_READS } from '../../shared/db/tombstones.js';
import { ACCOUNT_READS, AUTH_KEYS, USER_KEYS, USER_LIST_READS, USER_WRITES, USERNAME_CLAIM_KEYS } from '../../shared/db/users.js';
import { ACCOUNT_DELETION } from '../../shared/domain/accounts.js';
import { listQuery } from '../../shared/http/crud-routes.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { booleanParam, enumParam, orderingParam } from '../../shared/domain/params.js';

const USERS = '/api/users/';
const USER = '/api/users/{id}/';
const ME = '/api/users/me/';

const own = ({ caller, params }: { caller: Caller | null; params: Readonly<Record<string, string | undefined>> }) =>
  caller !== null && params.id === caller.user_id;

/**
 * `/api/users/{id}/`: the caller's own id, or any id for administrators. Any other caller naming
 * another id gets 403 whether or not it exists — a role check, before 415, 400 and 404 (§4.21.1).
 */
const ownOrAdministrator = ({ caller, params }: { caller: Caller; params: Readonly<Record<string, string | undefined>> }) =>
  caller.role === 'administrator' || own({ caller, params });

const user = { status: 200, schema: userRead } as const;
const userDetail = { ...user, fields: USER_FIELDS } as const;
const idErrors = ['not-found', 'precondition-failed'] as const;

/**
 * What the account operations do to the table (the user's items: record, claims, ordering
 * entries, counter, pending entry; its auth state; its profile): read the account, and change it
 * (shared/db/users.ts USER_WRITES). A rename rewrites the profile, which copies the username.
 * Requests that the mailer decides (resend_activation, reset_password, set_email, reset_email:
 * shared/email/requests.ts) only queue their e-mail request after the checks.
 */
const CHANGE = grants(ACCOUNT_READS, USER_WRITES.replace);
const CHANGE_AND_RENAME = grants(CHANGE, PROFILE_WRITES.rename);

const ownShape = 'The own id takes the body of `/api/users/me/` (`username`); an administrator on another user takes `username`, `email`, `role`, `is_active`.';

export const routes = {
  list: defineRoute({
    name: 'users.list', method: 'GET', path: USERS, access: 'administrator',
    summary: 'List users',
    query: listQuery(userListing),
    response: { status: 200, schema: userRead, page: true, fields: USER_FIELDS },
    keys: USER_LIST_READS,
  }),
  create: defineRoute({
    name: 'users.create', method: 'POST', path: USERS, access: 'credentials',
    summary: 'Create a user',
    description: 'Registration: an inactive member account and its profile; the activation e-mail goes to the address. An address that already has an account gets the same answer (with an id that names nothing) and a reminder e-mail instead.',
    body: registrationBody,
    response: { status: 201, schema: registrationRead, etag: false },
    errors: ['validation-error', 'conflict'],
    rateLimit: { policy: 'registration' },
    // Whether the username or the address is taken, then the account and its profile.
    keys: grants(ACCOUNT_READS, USER_WRITES.create, PROFILE_WRITES.create), sendsMail: true,
  }),
  get: defineRoute({
    name: 'users.get', method: 'GET', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Retrieve one user', response: userDetail, errors: ['not-found'],
    keys: ACCOUNT_READS,
  }),
  put: defineRoute({
    name: 'users.put', method: 'PUT', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Update a user', description: ownShape,
    body: z.union([selfBody, adminUserBody]),
    response: user, errors: [...idErrors, 'validation-error', 'conflict'],
    keys: CHANGE_AND_RENAME, sendsMail: true,
  }),
  patch: defineRoute({
    name: 'users.patch', method: 'PATCH', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Partially update a user', description: ownShape,
    body: z.union([selfPatchBody, adminUserPatchBody]),
    response: user, errors: [...idErrors, 'validation-error', 'conflict'],
    keys: CHANGE_AND_RENAME, sendsMail: true,
  }),
  delete: defineRoute({
    name: 'users.delete', method: 'DELETE', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Delete a user',
    description: 'The own id takes `{current_password}` as `DELETE /api/users/me/`; an administrator deleting another user needs no body (any is ignored).',
    body: deleteSelfBody,
    response: { status: 204 }, errors: [...idErrors, 'validation-error'],
    rateLimit: { policy: 'account', when: own },
    keys: ACCOUNT_DELETION, sendsMail: true, uses: ['index-read'],
  }),
  about: defineRoute({
    name: 'users.about', method: 'GET', path: '/api/users/{username}/about/', access: 'public',
    summary: 'Information about a user', params: usernameParams,
    response: { status: 200, schema: userAboutRead }, errors: ['not-found'],
    // The username claim carries the user without its private attributes (GetItem; with a token,
    // BatchGetItem with the auth state); then the profile (by its user id), the review count and
    // the lists' records with their counts, less the titles deleted since (a tombstone shard; the
    // lists' claims of those titles, then their vectors, when one is listed: decision V1).
    keys: grants(
      grant(USERNAME_CLAIM_KEYS, 'GetItem', 'BatchGetItem'),
      grant(PROFILE_BY_USER_KEYS, 'GetItem'),
      grant(REVIEW_COUNT_KEYS, 'BatchGetItem'),
      grant(PLAYLISTS.map(listPartitionKeys), 'GetItem', 'BatchGetItem', 'Query'),
      TOMBSTONE_READS,
    ),
  }),
  reviews: defineRoute({
    name: 'users.reviews', method: 'GET', path: '/api/users/{username}/reviews/', access: 'public',
    summary: 'Reviews by a user', params: usernameParams,
    query: z.object({
      kind: enumParam(ReviewKind),
      spoilers: booleanParam,
      ordering: orderingParam(REVIEW_ORDERINGS, REVIEW_DEFAULT_ORDERING),
    }),
    response: { status: 200, schema: reviewRead, page: true, fields: REVIEW_FIELDS }, errors: ['not-found'],
    // The username claim, the user's review vectors, the reviews, their titles and the tombstones.
    keys: grants(
      grant(USERNAME_CLAIM_KEYS, 'GetItem', 'BatchGetItem'),
      REVIEW_PAGE_READS,
      grant([titleKeys(ANIME_REVIEWS.title), titleKeys(MANGA_REVIEWS.title)], 'BatchGetItem'),
      TOMBSTONE_READS,
    ),
  }),
  activation: defineRoute({
    name: 'users.activation', method: 'POST', path: '/api/users/activation/', access: 'credentials',
    summary: 'Activate a user account', body: uidTokenBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    keys: CHANGE, sendsMail: true,
  }),
  me_get: defineRoute({
    name: 'users.me_get', method: 'GET', path: ME, access: 'member',
    summary: 'Retrieve the authenticated user', response: userDetail,
    keys: ACCOUNT_READS,
  }),
  me_put: defineRoute({
    name: 'users.me_put', method: 'PUT', path: ME, access: 'member',
    summary: 'Update the authenticated user', body: selfBody,
    response: user, errors: ['precondition-failed', 'validation-error', 'conflict'],
    keys: CHANGE_AND_RENAME,
  }),
  me_patch: defineRoute({
    name: 'users.me_patch', method: 'PATCH', path: ME, access: 'member',
    summary: 'Partially update the authenticated user', body: selfPatchBody,
    response: user, errors: ['precondition-failed', 'validation-error', 'conflict'],
    keys: CHANGE_AND_RENAME,
  }),
  me_delete: defineRoute({
    name: 'users.me_delete', method: 'DELETE', path: ME, access: 'member',
    summary: "Delete the authenticated user's account", body: deleteSelfBody,
    response: { status: 204 }, errors: ['precondition-failed', 'validation-error'],
    rateLimit: { policy: 'account' },
    keys: ACCOUNT_DELETION, sendsMail: true, uses: ['index-read'],
  }),
  resend_activation: defineRoute({
    name: 'users.resend_activation', method: 'POST', path: '/api/users/resend_activation/', access: 'credentials',
    summary: 'Resend the activation email', body: emailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'mail-request' },
    keys: {}, sendsMail: true,
  }),
  reset_email: defineRoute({
    name: 'users.reset_email', method: 'POST', path: '/api/users/reset_email/', access: 'credentials',
    summary: 'Start an email reset', body: resetEmailBody,
    response: { status: 204 }, errors: ['validation-error', 'invalid-credentials', 'account-inactive'],
    rateLimit: { policy: 'sign-in' },
    keys: ACCOUNT_READS, sendsMail: true,
  }),
  reset_email_confirm: defineRoute({
    name: 'users.reset_email_confirm', method: 'POST', path: '/api/users/reset_email_confirm/', access: 'credentials',
    summary: 'Confirm an email reset', body: uidTokenBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token', 'conflict'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    keys: CHANGE, sendsMail: true,
  }),
  reset_password: defineRoute({
    name: 'users.reset_password', method: 'POST', path: '/api/users/reset_password/', access: 'credentials',
    summary: 'Start a password reset', body: emailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'mail-request' },
    keys: {}, sendsMail: true,
  }),
  reset_password_confirm: defineRoute({
    name: 'users.reset_password_confirm', method: 'POST', path: '/api/users/reset_password_confirm/', access: 'credentials',
    summary: 'Confirm a password reset', body: resetPasswordConfirmBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    // Also replaces a never-activated registration with a new account (accounts.ts replaceRegistration):
    // a new id, the old auth state deleted, the registration's profile blanked or a new one made.
    keys: grants(ACCOUNT_READS, USER_WRITES.recreate, PROFILE_WRITES.rename, PROFILE_WRITES.create), sendsMail: true,
  }),
  set_email: defineRoute({
    name: 'users.set_email', method: 'POST', path: '/api/users/set_email/', access: 'member',
    summary: "Set the user's email", body: setEmailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'account' },
    keys: ACCOUNT_READS, sendsMail: true,
  }),
  set_password: defineRoute({
    name: 'users.set_password', method: 'POST', path: '/api/users/set_password/', access: 'member',
    summary: "Set the user's password", body: setPasswordBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'account' },
    // A new password moves no key of the user's items: they are put again.
    keys: grants(ACCOUNT_READS, grant(USER_KEYS, 'PutItem'), grant(AUTH_KEYS, 'UpdateItem')), sendsMail: true,
  }),
} satisfies Record<string, RouteDecl>;
