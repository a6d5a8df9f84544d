/** The operations on /api/users/ (API.md §4.21). */
import * as z from 'zod/mini';
import { ReviewKind } from '../../shared/domain/enums.js';
import { PLAYLISTS } from '../../shared/domain/playlists.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, REVIEW_DEFAULT_ORDERING, REVIEW_FIELDS, REVIEW_ORDERINGS, reviewRead } from '../../shared/domain/reviews.js';
import { REVIEW_COUNT_KEYS, REVIEW_KEYS } from '../../shared/db/reviews.js';
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
import { listPartitionKeys } from '../../shared/db/playlists.js';
import { PROFILE_BY_USER_KEYS, PROFILE_KEYS } from '../../shared/db/profiles.js';
import { AUTHOR_POSTING_KEYS } from '../../shared/db/news.js';
import { SOCIAL_LINK_KEYS } from '../../shared/db/social.js';
import { TOMBSTONE_KEYS } from '../../shared/db/tombstones.js';
import { AUTH_KEYS, USER_KEYS, USER_LIST_KEYS, USERNAME_CLAIM_KEYS } from '../../shared/db/users.js';
import { listQuery } from '../../shared/http/crud-routes.js';
import { defineRoute, type RouteDecl } from '../../shared/http/route.js';
import { booleanParam, enumParam, orderingParam } from '../../shared/http/schemas.js';

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

/** An account's items: the user's (record, claims, ordering entries, counter, pending entry) and its auth state. */
const ACCOUNT = [USER_KEYS, AUTH_KEYS];
/** An account with what goes with it: a rename rewrites the profile; a deletion removes the profile and the social links. */
const ACCOUNT_AND_PROFILE = [...ACCOUNT, PROFILE_KEYS];
/** Account deletion: also the posting list of the articles it wrote, its review count and the tombstones (accountDeletionPlans). */
const WHOLE_ACCOUNT = [...ACCOUNT_AND_PROFILE, ...SOCIAL_LINK_KEYS, AUTHOR_POSTING_KEYS, TOMBSTONE_KEYS, REVIEW_COUNT_KEYS];

const ownShape = 'The own id takes the body of `/api/users/me/` (`username`); an administrator on another user takes `username`, `email`, `role`, `is_active`.';

export const routes = {
  list: defineRoute({
    name: 'users.list', method: 'GET', path: USERS, access: 'administrator',
    summary: 'List users',
    query: listQuery(userListing),
    response: { status: 200, schema: userRead, page: true, fields: USER_FIELDS },
    keys: USER_LIST_KEYS,
  }),
  create: defineRoute({
    name: 'users.create', method: 'POST', path: USERS, access: 'credentials',
    summary: 'Create a user',
    description: 'Registration: an inactive member account and its profile; the activation e-mail goes to the address. An address that already has an account gets the same answer (with an id that names nothing) and a reminder e-mail instead.',
    body: registrationBody,
    response: { status: 201, schema: registrationRead, etag: false },
    errors: ['validation-error', 'conflict'],
    rateLimit: { policy: 'registration' },
    keys: ACCOUNT_AND_PROFILE, sendsMail: true,
  }),
  get: defineRoute({
    name: 'users.get', method: 'GET', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Retrieve one user', response: userDetail, errors: ['not-found'],
    keys: [USER_KEYS],
  }),
  put: defineRoute({
    name: 'users.put', method: 'PUT', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Update a user', description: ownShape,
    body: z.union([selfBody, adminUserBody]),
    response: user, errors: [...idErrors, 'validation-error', 'conflict'],
    keys: ACCOUNT_AND_PROFILE, sendsMail: true,
  }),
  patch: defineRoute({
    name: 'users.patch', method: 'PATCH', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Partially update a user', description: ownShape,
    body: z.union([selfPatchBody, adminUserPatchBody]),
    response: user, errors: [...idErrors, 'validation-error', 'conflict'],
    keys: ACCOUNT_AND_PROFILE, sendsMail: true,
  }),
  delete: defineRoute({
    name: 'users.delete', method: 'DELETE', path: USER, access: 'member', guard: ownOrAdministrator,
    summary: 'Delete a user',
    description: 'The own id takes `{current_password}` as `DELETE /api/users/me/`; an administrator deleting another user needs no body (any is ignored).',
    body: deleteSelfBody,
    response: { status: 204 }, errors: [...idErrors, 'validation-error'],
    rateLimit: { policy: 'account', when: own },
    keys: WHOLE_ACCOUNT, sendsMail: true,
  }),
  about: defineRoute({
    name: 'users.about', method: 'GET', path: '/api/users/{username}/about/', access: 'public',
    summary: 'Information about a user', params: usernameParams,
    response: { status: 200, schema: userAboutRead }, errors: ['not-found'],
    // The username claim carries the user without its private attributes; the lists' records their
    // counts (less the titles deleted since: the tombstones, then the lists' claims or vectors).
    keys: [USERNAME_CLAIM_KEYS, PROFILE_BY_USER_KEYS, REVIEW_COUNT_KEYS, ...PLAYLISTS.map(listPartitionKeys), TOMBSTONE_KEYS],
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
    // The user's review vectors, the reviews, their titles (entry) and the tombstones.
    keys: [USERNAME_CLAIM_KEYS, ...REVIEW_KEYS, titleKeys(ANIME_REVIEWS.title), titleKeys(MANGA_REVIEWS.title), TOMBSTONE_KEYS],
  }),
  activation: defineRoute({
    name: 'users.activation', method: 'POST', path: '/api/users/activation/', access: 'credentials',
    summary: 'Activate a user account', body: uidTokenBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    keys: ACCOUNT, sendsMail: true,
  }),
  me_get: defineRoute({
    name: 'users.me_get', method: 'GET', path: ME, access: 'member',
    summary: 'Retrieve the authenticated user', response: userDetail,
    keys: [USER_KEYS],
  }),
  me_put: defineRoute({
    name: 'users.me_put', method: 'PUT', path: ME, access: 'member',
    summary: 'Update the authenticated user', body: selfBody,
    response: user, errors: ['precondition-failed', 'validation-error', 'conflict'],
    keys: ACCOUNT_AND_PROFILE,
  }),
  me_patch: defineRoute({
    name: 'users.me_patch', method: 'PATCH', path: ME, access: 'member',
    summary: 'Partially update the authenticated user', body: selfPatchBody,
    response: user, errors: ['precondition-failed', 'validation-error', 'conflict'],
    keys: ACCOUNT_AND_PROFILE,
  }),
  me_delete: defineRoute({
    name: 'users.me_delete', method: 'DELETE', path: ME, access: 'member',
    summary: "Delete the authenticated user's account", body: deleteSelfBody,
    response: { status: 204 }, errors: ['precondition-failed', 'validation-error'],
    rateLimit: { policy: 'account' },
    keys: WHOLE_ACCOUNT, sendsMail: true,
  }),
  resend_activation: defineRoute({
    name: 'users.resend_activation', method: 'POST', path: '/api/users/resend_activation/', access: 'credentials',
    summary: 'Resend the activation email', body: emailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'mail-request' },
    keys: ACCOUNT, sendsMail: true,
  }),
  reset_email: defineRoute({
    name: 'users.reset_email', method: 'POST', path: '/api/users/reset_email/', access: 'credentials',
    summary: 'Start an email reset', body: resetEmailBody,
    response: { status: 204 }, errors: ['validation-error', 'invalid-credentials', 'account-inactive'],
    rateLimit: { policy: 'sign-in' },
    keys: ACCOUNT, sendsMail: true,
  }),
  reset_email_confirm: defineRoute({
    name: 'users.reset_email_confirm', method: 'POST', path: '/api/users/reset_email_confirm/', access: 'credentials',
    summary: 'Confirm an email reset', body: uidTokenBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token', 'conflict'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    keys: ACCOUNT, sendsMail: true,
  }),
  reset_password: defineRoute({
    name: 'users.reset_password', method: 'POST', path: '/api/users/reset_password/', access: 'credentials',
    summary: 'Start a password reset', body: emailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'mail-request' },
    keys: ACCOUNT, sendsMail: true,
  }),
  reset_password_confirm: defineRoute({
    name: 'users.reset_password_confirm', method: 'POST', path: '/api/users/reset_password_confirm/', access: 'credentials',
    summary: 'Confirm a password reset', body: resetPasswordConfirmBody,
    response: { status: 204 }, errors: ['validation-error', 'stale-token'],
    rateLimit: { policy: 'confirm' },
    uses: ['email-tokens'],
    keys: ACCOUNT_AND_PROFILE, sendsMail: true,
  }),
  set_email: defineRoute({
    name: 'users.set_email', method: 'POST', path: '/api/users/set_email/', access: 'member',
    summary: "Set the user's email", body: setEmailBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'account' },
    keys: ACCOUNT, sendsMail: true,
  }),
  set_password: defineRoute({
    name: 'users.set_password', method: 'POST', path: '/api/users/set_password/', access: 'member',
    summary: "Set the user's password", body: setPasswordBody,
    response: { status: 204 }, errors: ['validation-error'],
    rateLimit: { policy: 'account' },
    keys: ACCOUNT, sendsMail: true,
  }),
} satisfies Record<string, RouteDecl>;
