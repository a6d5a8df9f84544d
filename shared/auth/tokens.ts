/**
 * JWTs of API.md §2.2, signed and verified with jose. Only asymmetric EdDSA tokens whose `kid`
 * is a published key are accepted (no `alg: none`, no HMAC with a public key as secret).
 */
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { InvalidToken, type TokenClaims, type TokenType } from './claims.js';
import { newId } from '../ids.js';
import { TOKEN_ALG, signingKey, verificationKeys } from './keys.js';

export { InvalidToken, type TokenClaims, type TokenType } from './claims.js';


export const LIFETIME_SECONDS: Record<TokenType, number> = { access: 15 * 60, refresh: 30 * 24 * 3600 };


/** `{base}`: the issuer of every token, the deployment's public base URL. */
export function issuer(): string {
  const iss = process.env.PUBLIC_BASE_URL;
  if (!iss) throw new Error('PUBLIC_BASE_URL is not set');
  return iss;
}

export async function signToken(
  type: TokenType,
  user: { id: string; token_version: number },
  extra: { fam?: string } = {},
): Promise<{ token: string; claims: TokenClaims }> {
  const { kid, key } = await signingKey();
  const now = Math.floor(Date.now() / 1000);
  const claims: TokenClaims = {
    sub: user.id,
    user_id: user.id,
    token_type: type,
    tv: user.token_version,
    jti: newId(),
    iat: now,
    exp: now + LIFETIME_SECONDS[type],
    ...(extra.fam ? { fam: extra.fam } : {}),
  };
  const token = await new SignJWT({ ...claims })
    .setProtectedHeader({ alg: TOKEN_ALG, kid, typ: 'JWT' })
    .setIssuer(issuer())
    .sign(key);
  return { token, claims };
}


/** Verifies signature, algorithm, issuer, expiry and shape; the user checks come after. */
export async function verifyToken(token: string, expected?: TokenType): Promise<TokenClaims> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, await verificationKeys(), {
      algorithms: [TOKEN_ALG],
      issuer: issuer(),
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
    }));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) throw new InvalidToken(err.code);
    throw err;
  }
  const { sub, user_id, token_type, tv } = payload;
  if (typeof sub !== 'string' || user_id !== sub || typeof tv !== 'number') throw new InvalidToken('bad claims');
  if (token_type !== 'access' && token_type !== 'refresh') throw new InvalidToken('bad token_type');
  if (expected && token_type !== expected) throw new InvalidToken('wrong token type');
  return payload as unknown as TokenClaims;
}
