/** Creates a new Ed25519 signing key as a private key set and its public JWK Set. */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { TOKEN_ALG, type PrivateKeySet } from './keys.js';

export async function generateSigningKeys(): Promise<{ privateSet: PrivateKeySet; publicSet: JSONWebKeySet }> {
  const { publicKey, privateKey } = await generateKeyPair(TOKEN_ALG, { crv: 'Ed25519', extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const priv = await exportJWK(privateKey);
  return {
    privateSet: { active: kid, keys: [{ ...priv, kid, alg: TOKEN_ALG, use: 'sig' }] },
    publicSet: { keys: [{ ...pub, kid, alg: TOKEN_ALG, use: 'sig' }] },
  };
}
