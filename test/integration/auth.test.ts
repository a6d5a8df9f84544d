/**
 * Tokens and the caller (shared/auth) against the real key material: the signing keys the global
 * setup created, served by the Secrets Manager endpoint, and users in DynamoDB Local. A token is
 * accepted only under every rule of API.md §2.1–§2.2.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { SECRET_NAMES } from '../../infra/api-config.js';
import { callerFromAuthorization } from '../../shared/auth/identity.js';
import type { PrivateKeySet } from '../../shared/auth/keys.js';
import { isStaff, type Role } from '../../shared/auth/roles.js';
import { InvalidToken, signToken, verifyToken } from '../../shared/auth/tokens.js';
import { createUser } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';

const dataDir = inject('dataDir');
const secretFile = (name: string) => join(dataDir, 'secrets', `${name}.json`);

let privateSet: PrivateKeySet;
let activeJwk: JWK & { kid: string };

async function newUser(opts: { role?: Role; active?: boolean; tokenVersion?: number } = {}) {
  const id = newId();
  const role = opts.role ?? 'member';
  const username = `u_${id.slice(0, 10).replace(/[^A-Za-z0-9]/g, 'x')}`;
  const now = new Date().toISOString();
  await createUser(
    { id, username, email: `${username.toLowerCase()}@example.org`, role, is_active: opts.active ?? true, is_staff: isStaff(role), last_login: null, created_at: now, updated_at: now },
    { token_version: opts.tokenVersion ?? 0, password_hash: null, activated_at: now },
  );
  return { id, username, role };
}

/** Signs arbitrary claims and header with the real active key (or another key). */
async function forge(
  claims: Record<string, unknown>,
  opts: { header?: Record<string, unknown>; key?: CryptoKey | Uint8Array; alg?: string } = {},
): Promise<string> {
  const alg = opts.alg ?? 'EdDSA';
  const key = opts.key ?? (await importJWK(activeJwk, 'EdDSA'));
  return new SignJWT(claims).setProtectedHeader({ alg, kid: activeJwk.kid, typ: 'JWT', ...opts.header } as never).sign(key);
}

function standardClaims(userId: string, over: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: process.env.PUBLIC_BASE_URL, sub: userId, user_id: userId, token_type: 'access', tv: 0, jti: newId(), iat: now, exp: now + 900, ...over };
}

async function refused(header: string): Promise<InvalidToken> {
  try {
    await callerFromAuthorization(header);
  } catch (err) {
    if (err instanceof InvalidToken) return err;
    throw err;
  }
  throw new Error(`accepted: ${header}`);
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

beforeAll(() => {
  privateSet = JSON.parse(readFileSync(secretFile(SECRET_NAMES.jwtPrivate), 'utf8')) as PrivateKeySet;
  activeJwk = privateSet.keys.find((k) => k.kid === privateSet.active)!;
});

describe('a valid access token', () => {
  it('identifies its user, with the role read from the user’s auth state', async () => {
    const user = await newUser({ role: 'contributor' });
    const { token, claims } = await signToken('access', { id: user.id, token_version: 0 });
    expect(await callerFromAuthorization(`Bearer ${token}`)).toEqual({ user_id: user.id, username: user.username, role: 'contributor' });
    // The claims of §2.2.
    expect(claims).toMatchObject({ sub: user.id, user_id: user.id, token_type: 'access' });
    expect(claims.exp - claims.iat).toBe(15 * 60);
    const [header] = token.split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toMatchObject({ alg: 'EdDSA', kid: privateSet.active });
    const verified = await verifyToken(token, 'access');
    expect(verified).toMatchObject({ iss: process.env.PUBLIC_BASE_URL, jti: expect.any(String) });
  });

  it('the scheme is Bearer or JWT, in any case, followed by one or more spaces', async () => {
    const user = await newUser();
    const { token } = await signToken('access', { id: user.id, token_version: 0 });
    for (const h of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `JWT ${token}`, `jwt ${token}`, `Jwt ${token}`, `Bearer    ${token}`, ` Bearer ${token} `]) {
      expect((await callerFromAuthorization(h)).user_id, h.slice(0, 12)).toBe(user.id);
    }
  });
});

describe('refused tokens → InvalidToken', () => {
  let user: { id: string };
  beforeAll(async () => {
    user = await newUser();
  });

  it('expired', async () => {
    const past = Math.floor(Date.now() / 1000) - 3600;
    const token = await forge(standardClaims(user.id, { iat: past, exp: past + 900 }));
    await refused(`Bearer ${token}`);
    // Expired by one second.
    const now = Math.floor(Date.now() / 1000);
    await refused(`Bearer ${await forge(standardClaims(user.id, { iat: now - 901, exp: now - 1 }))}`);
  });

  it('the same claims, freshly signed, are accepted (the forging helper is sound)', async () => {
    const token = await forge(standardClaims(user.id));
    expect((await callerFromAuthorization(`Bearer ${token}`)).user_id).toBe(user.id);
  });

  it('a tampered payload', async () => {
    const other = await newUser({ role: 'administrator' });
    const { token } = await signToken('access', { id: user.id, token_version: 0 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    await refused(`Bearer ${h}.${b64({ ...claims, sub: other.id, user_id: other.id })}.${s}`);
    await refused(`Bearer ${h}.${b64({ ...claims, exp: claims.exp + 86400 })}.${s}`);
    // A flipped signature bit.
    const sig = Buffer.from(s, 'base64url');
    sig[0] = sig[0]! ^ 1;
    await refused(`Bearer ${h}.${p}.${sig.toString('base64url')}`);
  });

  it('alg: none', async () => {
    const claims = standardClaims(user.id);
    await refused(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`);
    await refused(`Bearer ${b64({ alg: 'none', kid: activeJwk.kid })}.${b64(claims)}.`);
  });

  it('HS256 signed with the public key as the secret', async () => {
    const publicSet = JSON.parse(readFileSync(secretFile(SECRET_NAMES.jwtPublic), 'utf8')) as { keys: JWK[] };
    const pub = publicSet.keys[0]!;
    for (const secret of [Buffer.from(pub.x!, 'base64url'), Buffer.from(JSON.stringify(pub)), Buffer.from(pub.x!)]) {
      const token = await forge(standardClaims(user.id), { alg: 'HS256', key: new Uint8Array(secret) });
      await refused(`Bearer ${token}`);
    }
  });

  it('a key that is not in the published set', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    await refused(`Bearer ${await forge(standardClaims(user.id), { key: privateKey, header: { kid: 'not-published' } })}`);
    // …even when it claims the kid of the published key.
    await refused(`Bearer ${await forge(standardClaims(user.id), { key: privateKey })}`);
    // …or carries no kid at all.
    await refused(`Bearer ${await forge(standardClaims(user.id), { key: privateKey, header: { kid: undefined } })}`);
  });

  it('the wrong issuer, or none', async () => {
    await refused(`Bearer ${await forge(standardClaims(user.id, { iss: 'https://evil.example.org' }))}`);
    await refused(`Bearer ${await forge(standardClaims(user.id, { iss: undefined }))}`);
  });

  it('claims of the wrong shape', async () => {
    for (const over of [{ token_type: undefined }, { token_type: 'id' }, { user_id: 'someone-else' }, { tv: '0' }, { jti: undefined }, { sub: undefined }, { exp: undefined }]) {
      await refused(`Bearer ${await forge(standardClaims(user.id, over))}`);
    }
  });

  it('a refresh token used as an access token', async () => {
    const { token } = await signToken('refresh', { id: user.id, token_version: 0 }, { fam: newId() });
    const e = await refused(`Bearer ${token}`);
    expect(e.message).toBe('wrong token type');
    // It is a valid refresh token all the same.
    expect((await verifyToken(token, 'refresh')).token_type).toBe('refresh');
  });

  it('an inactive user', async () => {
    const inactive = await newUser({ active: false, role: 'administrator' });
    const { token } = await signToken('access', { id: inactive.id, token_version: 0 });
    expect((await refused(`Bearer ${token}`)).message).toBe('user inactive');
  });

  it('a token version that is not the user’s (tokens revoked)', async () => {
    const revoked = await newUser({ tokenVersion: 3 });
    for (const tv of [0, 2, 4]) {
      const { token } = await signToken('access', { id: revoked.id, token_version: tv });
      expect((await refused(`Bearer ${token}`)).message).toBe('token revoked');
    }
    const { token } = await signToken('access', { id: revoked.id, token_version: 3 });
    expect((await callerFromAuthorization(`Bearer ${token}`)).user_id).toBe(revoked.id);
  });

  it('an unknown user', async () => {
    const { token } = await signToken('access', { id: newId(), token_version: 0 });
    expect((await refused(`Bearer ${token}`)).message).toBe('user not found');
  });

  it('malformed Authorization headers', async () => {
    const { token } = await signToken('access', { id: user.id, token_version: 0 });
    for (const h of [
      token, // no scheme
      `Bearer ${token} ${token}`, // two tokens
      `Bearer ${token} extra`,
      `Basic ${Buffer.from('a@example.org:pw').toString('base64')}`,
      `Basic ${token}`,
      `Token ${token}`,
      `Bearer`,
      `Bearer `,
      `Bearer${token}`,
      `Bearer\t${token}`,
      `Bearer ${token},Bearer ${token}`,
      '',
      `JWT: ${token}`,
    ]) {
      expect((await refused(h)).name, h.slice(0, 20)).toBe('InvalidToken');
    }
  });
});
