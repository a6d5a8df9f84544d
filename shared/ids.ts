import { randomBytes } from 'node:crypto';

/** Length of every id the service generates (fixed: ordering index keys rely on it). */
export const ID_LENGTH = 22;

/** A new opaque id (§1.3): 128 random bits in base64url, 22 characters of [A-Za-z0-9_-]. */
export function newId(): string {
  return randomBytes(16).toString('base64url');
}
