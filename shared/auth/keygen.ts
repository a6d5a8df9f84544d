/** Creates a new Ed25519 signing key as a private key set and its public JWK Set. */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { publicKeySet, TOKEN_ALG, type PrivateKeySet } from './keys.js';

export async function generateSigningKeys(): Promise<{ privateSet: PrivateKeySet; publicSet: JSONWebKeySet }> {
  const { privateKey } = await generateKeyPair(TOKEN_ALG, { crv: 'Ed25519', extractable: true });
  const priv = await exportJWK(privateKey);
  // The thumbprint (RFC 7638) reads only the required public members (kty, crv, x).
  const kid = await calculateJwkThumbprint(priv);
  const privateSet: PrivateKeySet = { active: kid, keys: [{ ...priv, kid, alg: TOKEN_ALG, use: 'sig' }] };
  return { privateSet, publicSet: publicKeySet(privateSet.keys) };
}
