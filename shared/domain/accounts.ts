/**
 * What happens to an account as a whole (API.md §3.12, §4.21): creating one with its profile,
 * renaming one (its profile copies the username), revoking all its tokens, deleting one with
 * everything that goes with it. Each returns plans
 * (shared/db/records.ts) that the operation commits in one transaction with whatever else the
 * change needs (an e-mail to send, a token to record).
 */
import { isStaff, type Role } from '../auth/roles.js';
import type { Purpose } from '../auth/email-tokens.js';
import { grant, grants, type KeyGrants } from '../db/key-patterns.js';
import { blankProfile, createProfilePlan, deleteProfilePlan, getProfileOfUser, PROFILE_WRITES, replaceProfilePlan, type ProfileRecord } from '../db/profiles.js';
import type { WritePlan } from '../db/records.js';
import { SOCIAL_UNLINKS, socialLinksOfUser, unlinkPlans } from '../db/social.js';
import { indexIds, indexReads } from './index-reader.js';
import { newsIndex } from '../db/news.js';
import { TOMBSTONE_KEYS, tombstonePlan } from '../db/tombstones.js';
import { getItems } from '../db/batch.js';
import { REVIEW_COUNT_KEYS, reviewCountKey, reviewCountOf } from '../db/review-counts.js';
import { ACCOUNT_READS, createUserPlan, deleteUserPlan, replaceUserPlan, USER_WRITES, type StoredUser, type UserPrivate, type UserRecord } from '../db/users.js';
import { newId } from '../ids.js';

export interface NewAccount {
  /** The account's id when it must be known beforehand (e.g. to issue its activation token); default: a new one. */
  id?: string;
  email: string;
  username: string;
  /** `null`: no usable password (social sign-in). */
  passwordHash: string | null;
  /** Active at once (social sign-in, administrator bootstrap), or waiting for activation. */
  active: boolean;
  role?: Role;
  /** Profile fields known at creation (social sign-in: names, picture). */
  profile?: Partial<Pick<ProfileRecord, 'first_name' | 'last_name' | 'image'>>;
  /** Nonces of e-mailed tokens issued with the account (registration: the activation token). */
  nonces?: UserPrivate['nonces'];
  /** Signed in by its creation (social sign-in): the time. */
  lastLogin?: string;
}

/** Accounts never activated are deleted this many days after their registration (API.md §7.1, by the cleanup job). */
export const UNACTIVATED_ACCOUNT_DAYS = 30;

/**
 * A new account and its profile. An inactive one is a registration waiting for activation: its
 * plans include its pending-registration entry (shared/db/users.ts), which the cleanup job reads.
 */
export function newAccount(input: NewAccount, now = new Date().toISOString()) {
  const role = input.role ?? 'member';
  const user: UserRecord = {
    id: input.id ?? newId(),
    username: input.username,
    email: input.email,
    role,
    is_active: input.active,
    is_staff: isStaff(role),
    last_login: input.lastLogin ?? null,
    created_at: now,
    updated_at: now,
  };
  const priv: UserPrivate = {
    token_version: 0,
    password_hash: input.passwordHash,
    activated_at: input.active ? now : null,
    ...(input.nonces ? { nonces: input.nonces } : {}),
  };
  const profile = { ...blankProfile(newId(), { id: user.id, username: user.username }, now), ...input.profile };
  return { user, priv, profile, plans: [createUserPlan(user, priv), createProfilePlan(profile)] as WritePlan[] };
}

/**
 * Replaces a user; when the username changes, the profile (which copies it) changes with it.
 * Reads the profile: one GetItem, only on a rename.
 */
export async function userChangePlans(before: StoredUser, after: UserRecord, priv: UserPrivate = before.priv): Promise<WritePlan[]> {
  const plans = [replaceUserPlan(before, after, priv)];
  if (after.username !== before.record.username) {
    const profile = await getProfileOfUser(before.record.id);
    if (profile) plans.push(replaceProfilePlan(profile, { ...profile.record, user: { id: after.id, username: after.username } }));
  }
  return plans;
}

/** Private attributes after an event that revokes every token of the user (§2.2). */
export const revokingAllTokens = (priv: UserPrivate): UserPrivate => ({ ...priv, token_version: priv.token_version + 1 });

/** Private attributes with `purpose`'s current e-mailed token forgotten: every token of that purpose is stale. */
export function withoutNonce(priv: UserPrivate, ...purposes: Purpose[]): UserPrivate {
  const nonces = { ...priv.nonces };
  for (const p of purposes) delete nonces[p];
  return { ...priv, nonces };
}

/** Private attributes with a new current token of `purpose` (older ones become stale). */
export const withNonce = (priv: UserPrivate, purpose: Purpose, nonce: string): UserPrivate => ({ ...priv, nonces: { ...priv.nonces, [purpose]: nonce } });

/**
 * After an event that must end what was started with the old secrets (a password change, an
 * e-mail change, a deactivation): every token revoked (§2.2), the e-mailed tokens of `purposes`
 * stale, no pending e-mail change, and e-mail change requests made until `at` void — so an
 * attacker who knew the old password cannot finish, or later start from a queued request, an
 * e-mail change that the owner's password reset should have ended.
 */
function ending(priv: UserPrivate, at: string, purposes: Purpose[]): UserPrivate {
  const { pending_email: _dropped, ...rest } = withoutNonce(revokingAllTokens(priv), ...purposes);
  return { ...rest, email_changes_void_until: at };
}

/** After a password change (set, reset): reset and e-mail change tokens stale (§6, and docs/decisions.md). */
export const afterPasswordChange = (priv: UserPrivate, at: string): UserPrivate => ending(priv, at, ['password_reset', 'email_change']);

/**
 * After the e-mail address changed (confirmed change, or set by an administrator): e-mail change
 * tokens stale (§6), and reset tokens too — they were sent to the old address.
 */
export const afterEmailChange = (priv: UserPrivate, at: string): UserPrivate => ending(priv, at, ['email_change', 'password_reset']);

/** After an administrator's deactivation: every e-mailed token stale. */
export const afterDeactivation = (priv: UserPrivate, at: string): UserPrivate => ending(priv, at, ['activation', 'password_reset', 'email_change']);

/**
 * After a social identity was linked to the account (API.md §4.17 step 5): the provider proved
 * control of the address, which whoever knows the password may not have (they may have
 * registered the address and let its owner activate it). So: no usable password — password
 * sign-in is refused until one is set through `reset_password` — and, as after any password
 * change, every token revoked, reset and e-mail change tokens stale, no pending e-mail change,
 * e-mail change requests made until `at` void (docs/decisions.md H1).
 */
export const afterSocialLink = (priv: UserPrivate, at: string): UserPrivate => ({ ...afterPasswordChange(priv, at), password_hash: null });

/**
 * The owner of an address replaces a registration with that address that was never activated
 * (docs/decisions.md, "pre-hijacking"): the owner proved control of the address (a verified
 * e-mail from a social provider, or a password-reset link sent to it), the registrant did not.
 * A new active account takes the registration's place in one transaction: a new id, the given
 * username and password (`null`: none, social sign-in), a blank profile (with `profile`
 * fields). The e-mail claim passes to the new account; the registration's profile item is
 * reused, blanked. Nothing the registrant chose survives: not the id (the registration's answer
 * showed it, and it is public in reviews), not the username (unless `username` happens to be
 * the same), the password, or any e-mailed token (they name the old id). A pending registration
 * never has social links or sessions (it never signed in), so there are none to move.
 * Reads the registration's profile (one GetItem).
 */
export async function replaceRegistration(
  pending: StoredUser,
  input: Pick<NewAccount, 'username' | 'passwordHash' | 'profile' | 'lastLogin'>,
  now = new Date().toISOString(),
): Promise<{ user: UserRecord; priv: UserPrivate; plans: WritePlan[] }> {
  const user: UserRecord = {
    id: newId(),
    username: input.username,
    email: pending.record.email,
    role: 'member',
    is_active: true,
    is_staff: false,
    last_login: input.lastLogin ?? null,
    created_at: now,
    updated_at: now,
  };
  const priv: UserPrivate = { token_version: 0, password_hash: input.passwordHash, activated_at: now };
  const old = await getProfileOfUser(pending.record.id);
  const blank = (id: string): ProfileRecord => ({ ...blankProfile(id, { id: user.id, username: user.username }, now), ...input.profile });
  const profile = old ? replaceProfilePlan(old, blank(old.record.id)) : createProfilePlan(blank(newId()));
  return { user, priv, plans: [replaceUserPlan(pending, user, priv), profile] };
}

/**
 * Everything that goes with an account (API.md §4.21.2 "Account deletion"): the user record (its
 * username and e-mail claims, so both are free at once; its private attributes, so its pending
 * e-mail change and e-mailed tokens; a never-activated account's pending-registration entry),
 * its profile, and its social identity links. Without the user, its tokens stop working (§2.1).
 * Reads the profile and the links (one GetItem, one Query). The user's deletion is conditioned
 * on the revision read, so a change meanwhile fails the transaction (StaleRecord).
 *
 * News articles it wrote lose their author (below). Its lists, reviews and helpful votes are
 * removed by the relations consumer (playlist-effects.ts, review-effects.ts); its reviews are
 * hidden at once by the tombstone.
 */
export async function accountDeletionPlans(user: StoredUser): Promise<WritePlan[]> {
  const id = user.record.id;
  const [profile, links, wroteNews, [reviews]] = await Promise.all([getProfileOfUser(id), socialLinkDeletionPlans(id), indexIds(newsIndex, { author: id }).then((ids) => ids.length > 0), getItems([reviewCountKey(id)])]);
  // The articles it wrote show `author: null` at once and its reviews leave every view at once
  // (the tombstone, read with them); the relations consumer then stores the one, removes the
  // others and clears the tombstone (decision 101, docs/data-model.md "Reviews").
  const tombstone = wroteNews || reviewCountOf(reviews) > 0;
  return [deleteUserPlan(user), ...(profile ? [deleteProfilePlan(profile)] : []), ...links, ...(tombstone ? [tombstonePlan('USER', id)] : [])];
}

/**
 * What an account's deletion does to the table (accountDeletionPlans, after reading the user):
 * the user's items and auth state deleted, its profile read and deleted, its social links
 * listed and deleted, whether it wrote news (one posting, Query) and its review count (read
 * with BatchGetItem), and its tombstone written (UpdateItem).
 */
export const ACCOUNT_DELETION: KeyGrants = grants(
  ACCOUNT_READS,
  USER_WRITES.delete,
  PROFILE_WRITES.delete,
  SOCIAL_UNLINKS,
  indexReads('NEWS'),
  grant(REVIEW_COUNT_KEYS, 'BatchGetItem'),
  grant(TOMBSTONE_KEYS, 'UpdateItem'),
);

/** The deletions of a user's social identity links (both items of each link). */
async function socialLinkDeletionPlans(userId: string): Promise<WritePlan[]> {
  return (await socialLinksOfUser(userId)).flatMap(unlinkPlans);
}
