/**
 * Usernames made from something else (API.md §4.17: social sign-in derives one from the
 * provider's preferred username or the e-mail's local part; the first administrator's default
 * is the e-mail's local part): made valid under the rules of username-rules.ts, then unique.
 */
import { randomInt } from 'node:crypto';
import { RESERVED_USERNAMES, username } from './username-rules.js';

const MAX = 30;

/** A valid username as close to `seed` as the rules allow (accents dropped, other characters → `_`). */
export function usernameFrom(seed: string): string {
  let s = seed
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX)
    .replace(/[_.-]+$/, '');
  if (s.length < 3) s = s === '' ? 'user' : `${s}_user`;
  if (RESERVED_USERNAMES.has(s.toLowerCase())) s = `${s}_user`;
  return s;
}

/** `base` with a random numeric suffix, still at most 30 characters. */
function suffixed(base: string): string {
  const suffix = `_${randomInt(1000, 100000)}`;
  return `${base.slice(0, MAX - suffix.length).replace(/[_.-]+$/, '')}${suffix}`;
}

export const isValidUsername = (value: string) => username().safeParse(value).success;

/**
 * The first candidate not taken: each seed made valid, then the first with random suffixes.
 * `taken` says whether a username is in use (compared as usernames are, case-insensitively).
 */
export async function availableUsername(seeds: readonly (string | undefined)[], taken: (username: string) => Promise<boolean>): Promise<string> {
  const bases = [...new Set(seeds.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map(usernameFrom))];
  if (bases.length === 0) bases.push('user');
  const candidates = [...bases, ...Array.from({ length: 8 }, () => suffixed(bases[0]!))];
  for (const candidate of candidates) {
    if (isValidUsername(candidate) && !(await taken(candidate))) return candidate;
  }
  throw new Error('no free username found');
}
