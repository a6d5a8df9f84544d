/**
 * Data the benchmarks need: valid request bodies for the catalogue CRUD routes, genres stored
 * the way the create operation stores them (the resource's own record builder and
 * `createRecord`), and accounts stored with the plans registration commits (`newAccount`), all
 * without going through HTTP.
 */
import { issueEmailToken } from '../../shared/auth/email-tokens.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { commit, createRecord } from '../../shared/db/records.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { newId } from '../../shared/ids.js';

/** The catalogue collections whose routes are the generic CRUD of shared/http/crud-routes.ts. */
export const CATALOGUE_SEGMENTS: ReadonlySet<string> = new Set(['genres', 'themes', 'demographics', 'magazines', 'producers', 'animes', 'mangas', 'characters', 'persons', 'news']);

/** Extra required fields of a resource's write body, beyond a unique `name`. */
const REQUIRED_EXTRAS: Record<string, Record<string, unknown>> = {
  producers: { type: 'studio' },
  news: { content: 'A bench article.' },
};

/** A valid create (and PUT) body for the collection `segment` (`/api/<segment>/`). */
export function writeBody(segment: string, name: string): Record<string, unknown> {
  return { name, ...REQUIRED_EXTRAS[segment] };
}

/** A valid PATCH body: a new name. */
export function patchBody(name: string): Record<string, unknown> {
  return { name };
}

/** Stores a genre as `POST /api/genres/` would; returns its id. */
export async function insertGenre(name: string, description = ''): Promise<string> {
  const at = new Date().toISOString();
  const record = genres.toRecord({ name, description }, { id: newId(), created_at: at, updated_at: at }, null);
  await createRecord(genres.entity, record);
  return record.id;
}

/** The password of every bench account (valid under the password rules). */
export const BENCH_PASSWORD = 'Kumquat-Lantern-42';

let passwordHash: Promise<string> | undefined;
let accounts = 0;

/** A username (3–30 characters) and address unique in this process. */
export function uniqueAccountName(prefix: string): { username: string; email: string } {
  accounts += 1;
  const username = `${prefix}_${process.pid.toString(36)}_${accounts}`;
  return { username, email: `${username}@example.org` };
}

export interface BenchAccount {
  id: string;
  username: string;
  email: string;
  profileId: string;
  /** The activation token of a pending account (as E1 carries it). */
  activationToken?: string;
}

/**
 * An account and its profile, stored as registration stores them; its password is
 * BENCH_PASSWORD (hashed once per process). `active: false`: a registration waiting for
 * activation, with a genuine activation token.
 */
export async function insertAccount(opts: { active: boolean; prefix?: string }): Promise<BenchAccount> {
  passwordHash ??= hashPassword(BENCH_PASSWORD);
  const { username, email } = uniqueAccountName(opts.prefix ?? 'bench');
  const id = newId();
  const issued = opts.active ? null : await issueEmailToken(id, 'activation');
  const account = newAccount({ id, email, username, passwordHash: await passwordHash, active: opts.active, ...(issued ? { nonces: { activation: issued.nonce } } : {}) });
  await commit(...account.plans);
  return { id, username, email, profileId: account.profile.id, ...(issued ? { activationToken: issued.token } : {}) };
}
