/**
 * Token signing keys (API.md §2.2): Ed25519 key pairs identified by `kid`.
 * - The public JWK Set lives in the secret named by JWT_PUBLIC_SECRET_ID; every function that
 *   verifies tokens reads only this one.
 * - The private keys live in the secret named by JWT_PRIVATE_SECRET_ID, readable only by the
 *   functions that mint tokens. `active` names the key that signs.
 * Locally both secrets are files in the data dir served by the Secrets Manager emulator.
 */
import { createLocalJWKSet, importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import { secretFromEnv } from '../secrets.js';

export const TOKEN_ALG = 'EdDSA';

export interface PrivateKeySet {
  active: string;
  keys: (JWK & { kid: string })[];
}

let jwks: { raw: string; set: ReturnType<typeof createLocalJWKSet> } | undefined;

/** Public keys for verification (refreshed from the secret every 5 minutes). */
export async function verificationKeys(): Promise<ReturnType<typeof createLocalJWKSet>> {
  const raw = await secretFromEnv('JWT_PUBLIC_SECRET_ID');
  if (jwks?.raw !== raw) jwks = { raw, set: createLocalJWKSet(JSON.parse(raw) as JSONWebKeySet) };
  return jwks.set;
}

/**
 * The members a published JWK may have (API.md §4.22: `kty`, `crv`, `x`, `y` for EC keys,
 * `kid`, `alg`, `use`). An allow-list rather than "all but `d`": a private JWK may carry other
 * private or irrelevant members (RSA's `p`, `q`, `dp`, …, WebCrypto's `ext` and `key_ops`), and
 * none of them may be published whatever key is given.
 */
export const PUBLIC_JWK_MEMBERS = ['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'] as const;

/**
 * The public JWK Set of keys, public or private: each key reduced to PUBLIC_JWK_MEMBERS. Used
 * wherever a public set is written (key generation, locally and on AWS) and where it is served.
 */
export function publicKeySet(keys: readonly JWK[]): JSONWebKeySet {
  return {
    keys: keys.map((key) => Object.fromEntries(PUBLIC_JWK_MEMBERS.filter((m) => key[m] !== undefined).map((m) => [m, key[m]])) as JWK),
  };
}

/** The public JWK Set as published at /.well-known/jwks.json (public members only, whatever the secret holds). */
export async function publicJwks(): Promise<JSONWebKeySet> {
  return publicKeySet((JSON.parse(await secretFromEnv('JWT_PUBLIC_SECRET_ID')) as JSONWebKeySet).keys);
}

/** The active signing key and its kid. */
export async function signingKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
  const set = JSON.parse(await secretFromEnv('JWT_PRIVATE_SECRET_ID')) as PrivateKeySet;
  const jwk = set.keys.find((k) => k.kid === set.active);
  if (!jwk) throw new Error('the active signing key is missing');
  return { kid: jwk.kid, key: await importJWK(jwk, TOKEN_ALG) };
}
