/**
 * Profile operations that the CRUD pattern does not cover (API.md §4.12): the administrator's
 * create (with `user_id`), and the caller's own profile (`my-profile`, `update-profile`), which is
 * created blank when it is absent (it was removed by an administrator). The administrator's list,
 * get, PUT, PATCH and DELETE are the CRUD operations of shared/http/crud.ts on `profileResource`.
 *
 * A profile copies its user's username, so every profile creation is conditioned on the user
 * being unchanged since it was read (and still there): a concurrent rename or deletion makes it
 * fail, and the operation starts again from the read. The user is read from its auth state
 * (id, username, revision), so profile functions never read user records and their private
 * attributes (docs/decisions.md).
 */
import {
  blankProfile,
  createProfilePlan,
  getProfileOfUser,
  replaceProfilePlan,
  type ProfileRecord,
} from '../db/profiles.js';
import { commit, StaleRecord, type Stored } from '../db/records.js';
import { getAuthState, userUnchangedPlan, type AuthState } from '../db/users.js';
import { ID_PATTERN } from '../domain/fields.js';
import { PROFILE_FIELDS, profileBodies, profileCreateBody, profileRecord, profileValues } from '../domain/profiles.js';
import { newId } from '../ids.js';
import { checkBody, now, retrying, validBody } from './changes.js';
import type { ApiRequest, Operation } from './handler.js';
import { addError, HttpError, validationError } from '../problem.js';
import { checkIfMatch, inShapeOrder, recordEtag } from './represent.js';

export const profileView = (p: ProfileRecord): ProfileRecord => inShapeOrder(p, PROFILE_FIELDS);

/**
 * Commits a new profile of `user`, conditioned on the user being as read. When the user's
 * profile was created meanwhile (a concurrent first use), the attempt is stale: it starts again
 * from the read and finds that profile.
 */
async function createProfile(user: AuthState, profile: ProfileRecord): Promise<void> {
  try {
    await commit(createProfilePlan(profile), userUnchangedPlan(user));
  } catch (err) {
    if (err instanceof HttpError && err.type === 'conflict') throw new StaleRecord('PROFILE');
    throw err;
  }
}

/** The caller's auth state. Its token was checked by this request; an account gone since is a revoked token (401). */
async function caller(req: ApiRequest): Promise<AuthState> {
  const auth = await getAuthState(req.caller!.user_id);
  if (!auth) throw new HttpError('invalid-token', 'The token is invalid, expired or revoked.');
  return auth;
}

/**
 * `GET /api/profiles/my-profile/`: the caller's profile, created blank first if absent (a GET
 * that writes, see docs/decisions.md). Of two concurrent first reads, one creates it and the
 * other reads it.
 */
export const myProfile: Operation = (req) =>
  retrying(async () => {
    const stored = await getProfileOfUser(req.caller!.user_id);
    if (stored) return { status: 200, body: profileView(stored.record) };
    const user = await caller(req);
    const blank = blankProfile(newId(), { id: user.user_id, username: user.username }, now());
    await createProfile(user, blank);
    return { status: 200, body: profileView(blank) };
  });

/**
 * `PATCH /api/profiles/update-profile/`: any subset of the profile fields. `If-Match` is compared
 * with the `my-profile` ETag. Without a profile, the new one is the blank profile with the
 * changes (only `If-Match: *` can match it: its ETag cannot be known before it exists).
 */
export const updateMyProfile: Operation = (req) =>
  retrying(async () => {
    const stored: Stored<ProfileRecord> | null = await getProfileOfUser(req.caller!.user_id);
    if (stored) {
      const before = profileView(stored.record);
      checkIfMatch(req.ifMatch, recordEtag(before));
      const input = validBody(profileBodies.partial, req.rawBody) as Record<string, unknown>;
      const current = profileValues(before);
      const values = { ...current, ...input };
      if (Object.keys(current).every((k) => JSON.stringify(current[k]) === JSON.stringify(values[k]))) return { status: 200, body: before };
      const after = profileRecord(before.user, values, { id: before.id, created_at: before.created_at, updated_at: now() });
      await commit(replaceProfilePlan(stored, after));
      return { status: 200, body: after };
    }
    const user = await caller(req);
    const at = now();
    const blank = blankProfile(newId(), { id: user.user_id, username: user.username }, at);
    checkIfMatch(req.ifMatch, recordEtag(profileView(blank)));
    const input = validBody(profileBodies.partial, req.rawBody) as Record<string, unknown>;
    const created = profileRecord(blank.user, { ...profileValues(blank), ...input }, blank);
    await createProfile(user, created);
    return { status: 200, body: created };
  });

/**
 * `POST /api/profiles/` (administrators): `user_id` + the profile fields. An unknown `user_id` is
 * a field error, reported with the others (400); a user who has a profile → 409 with its id.
 */
export const createProfileOperation: Operation = (req) =>
  retrying(async () => {
    const { errors, value } = checkBody(profileCreateBody, req.rawBody);
    const userId = req.rawBody.user_id;
    let user: AuthState | null = null;
    if (typeof userId === 'string' && ID_PATTERN.test(userId)) {
      user = await getAuthState(userId);
      if (!user) addError(errors, 'user_id', 'Unknown user.');
    }
    if (!value || !user) throw validationError(errors);
    const at = now();
    const profile = profileRecord({ id: user.user_id, username: user.username }, value as Record<string, unknown>, { id: newId(), created_at: at, updated_at: at });
    const reply = { status: 201, body: profile, headers: { location: `${req.baseUrl}/api/profiles/${profile.id}/` } };
    // A user who has a profile already: 409 with that profile's id (the claim's owner).
    await commit(createProfilePlan(profile), userUnchangedPlan(user), req.idempotent(reply));
    return reply;
  });
