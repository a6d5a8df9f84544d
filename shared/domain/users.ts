/**
 * Accounts (API.md §3.12, §4.19, §4.21): read shapes, write shapes of every account operation,
 * the password rules (the username rules are in username-rules.ts). Cross-field rules (re-typed
 * passwords, password similarity) are part of the schemas, so every field error comes back in
 * one 400.
 */
import * as z from 'zod/mini';
import { passwordProblems } from '../auth/passwords.js';
import { ROLES } from '../auth/roles.js';
import { Gender } from './enums.js';
import { emailKey, users, type UserRecord } from '../db/users.js';
import { fieldErrors } from '../problem.js';
import { booleanParam, enumParam } from './params.js';
import { email, MSG } from './fields.js';
import type { Listing } from './resource.js';
import { USERNAME_PATTERN, username } from './username-rules.js';

/** A password as sent (its rules are checked with the other fields, see withPasswordRules). */
const password = () => z.string().check(z.minLength(1, MSG.blank));
const anyString = () => z.string();

const timestamp = z.string().check(z.meta({ format: 'date-time' }));

export const userRead = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().check(z.meta({ format: 'email' })),
  role: z.enum(ROLES),
  is_active: z.boolean(),
  is_staff: z.boolean(),
  last_login: z.nullable(timestamp),
  created_at: timestamp,
  updated_at: timestamp,
});
export const USER_FIELDS = Object.keys(userRead.shape);

/**
 * The administrator's user list (§4.21.1): `q` matches when every term is a word prefix of the
 * username, or when the whole `q` (trimmed, lower case) is a prefix of the e-mail address.
 */
export const userListing: Listing<UserRecord> = {
  entity: users,
  read: userRead,
  list: {
    orderings: ['username', 'created_at', 'last_login'],
    defaultOrdering: '-created_at',
    search: true,
    filters: { role: enumParam(ROLES), is_active: booleanParam },
    alsoPrefixOf: { attribute: 'email', normalize: emailKey },
  },
};

/** The answer to a registration (§4.21.1), the same whether or not the e-mail already had an account. */
export const registrationRead = z.object({ id: z.string(), email: z.string().check(z.meta({ format: 'email' })), username: z.string() });

/** UserAbout (§3.12): the public view of an active user. */
export const userAboutRead = z.object({
  id: z.string(),
  username: z.string(),
  bio: z.string(),
  image: z.nullable(z.string()),
  cover: z.nullable(z.string()),
  location: z.string(),
  website: z.nullable(z.string()),
  gender: z.nullable(z.enum(Gender)),
  joined_at: timestamp,
  review_count: z.int(),
  anime_list: z.nullable(listCounts(['watching', 'completed', 'on_hold', 'dropped', 'plan_to_watch'])),
  manga_list: z.nullable(listCounts(['reading', 'completed', 'on_hold', 'dropped', 'plan_to_read'])),
});

function listCounts(statuses: readonly string[]) {
  return z.object(Object.fromEntries([...statuses, 'total'].map((k) => [k, z.int()])));
}

/** `{username}` of the public views: matched case-insensitively; anything that cannot be a username → 404. */
export const usernameParams = z.object({
  username: z.string().check(z.minLength(3), z.maxLength(30), z.regex(USERNAME_PATTERN), z.meta({ description: 'A username (case-insensitive).' })),
});

/** Adds the §3.12 password rules and the re-typed match to a body schema. */
function withPasswordRules<T extends z.ZodMiniObject>(
  schema: T,
  fields: { password: string; retype: string; username?: string; email?: string },
  context: (v: Record<string, unknown>) => { username?: string; email?: string } = (v) => ({
    username: fields.username ? stringOrUndefined(v[fields.username]) : undefined,
    email: fields.email ? stringOrUndefined(v[fields.email]) : undefined,
  }),
) {
  return schema.check(
    z.superRefine((raw, ctx) => {
      const v = raw as Record<string, unknown>;
      const pw = v[fields.password];
      if (typeof pw !== 'string') return;
      for (const message of passwordProblems(pw, context(v))) ctx.addIssue({ code: 'custom', message, path: [fields.password] });
      if (typeof v[fields.retype] === 'string' && v[fields.retype] !== pw) {
        ctx.addIssue({ code: 'custom', message: 'The two password fields didn’t match.', path: [fields.retype] });
      }
    }, ALWAYS),
  );
}

/** Cross-field rules run even when a field failed, so that every error is reported at once (§1.8). */
const ALWAYS = { when: () => true };
const stringOrUndefined = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** `re_<field>` must equal `<field>` (compared as e-mail addresses are: trimmed, lower case). */
function retypedEmail(field: string, retype: string) {
  return (raw: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
    const a = raw[field];
    const b = raw[retype];
    if (typeof a === 'string' && typeof b === 'string' && b.trim().toLowerCase() !== a.trim().toLowerCase()) {
      ctx.addIssue({ code: 'custom', message: 'The two e-mail fields didn’t match.', path: [retype] });
    }
  };
}

/** POST /api/users/ (registration). */
export const registrationBody = withPasswordRules(
  z.strictObject({ email: email(), username: username(), password: password(), re_password: anyString() }),
  { password: 'password', retype: 're_password', username: 'username', email: 'email' },
);

/** The caller's own account: `username` only. */
export const selfBody = z.strictObject({ username: username() });
export const selfPatchBody = z.partial(selfBody);

/** An administrator on another user. */
export const adminUserBody = z.strictObject({ username: username(), email: email(), role: z.enum(ROLES), is_active: z.boolean() });
export const adminUserPatchBody = z.partial(adminUserBody);

export const deleteSelfBody = z.strictObject({ current_password: anyString() });

/** `set_password`: the rules apply to the new password against the caller's username and e-mail (see the handler). */
export const setPasswordBody = z.strictObject({ current_password: anyString(), new_password: password(), re_new_password: anyString() });

export const setEmailBody = z.strictObject({ current_password: anyString(), new_email: email(), re_new_email: anyString() }).check(z.superRefine(retypedEmail('new_email', 're_new_email'), ALWAYS));

export const emailBody = z.strictObject({ email: email() });
export const uidTokenBody = z.strictObject({ uid: anyString(), token: anyString() });
export const resetPasswordConfirmBody = z.strictObject({ uid: anyString(), token: anyString(), new_password: password(), re_new_password: anyString() });
export const resetEmailBody = z.strictObject({ email: email(), password: anyString(), new_email: email(), re_new_email: anyString() }).check(z.superRefine(retypedEmail('new_email', 're_new_email'), ALWAYS));

/** POST /api/tokens/jwt/create/ etc.: only types are checked before credentials (§4.19). */
export const signInBody = z.strictObject({ email: anyString(), password: anyString() });
export const refreshBody = z.strictObject({ refresh: anyString() });
export const verifyBody = z.strictObject({ token: anyString() });

/** Password rule violations of a new password for an existing user, as field errors. */
export function newPasswordErrors(field: string, retypeField: string, v: { pw: string; retype: string }, user: { username: string; email: string }) {
  const errors = fieldErrors();
  const problems = passwordProblems(v.pw, user);
  if (problems.length > 0) errors[field] = problems;
  if (v.retype !== v.pw) errors[retypeField] = ['The two password fields didn’t match.'];
  return errors;
}
