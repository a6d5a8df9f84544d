/**
 * The username rules (API.md §3.12), apart from the account schemas of users.ts so that what only
 * makes usernames (usernames.ts: social sign-in, the first administrator) does not carry them.
 */
import * as z from 'zod/mini';
import { line } from './fields.js';

export const RESERVED_USERNAMES = new Set([
  'me',
  'activation',
  'resend_activation',
  'set_password',
  'reset_password',
  'reset_password_confirm',
  'set_email',
  'reset_email',
  'reset_email_confirm',
  'admin',
]);

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** `username`: 3–30 characters of the pattern, not a reserved word (case-insensitive). */
export const username = () =>
  line({ min: 3, max: 30 }).check(
    z.refine((v) => v.length < 3 || USERNAME_PATTERN.test(v), 'Usernames start with a letter or digit and contain only letters, digits, _ . and -.'),
    z.refine((v) => !RESERVED_USERNAMES.has(v.toLowerCase()), 'This username is reserved.'),
  );
