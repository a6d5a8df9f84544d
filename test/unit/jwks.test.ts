/**
 * The published signing keys (API.md §4.22): one allow-list of public members
 * (shared/auth/keys.ts publicKeySet) for the key generation, locally and on AWS, and for the
 * served `/.well-known/jwks.json`, whatever private members a key carries.
 */
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/support/jwks.js';
import { generateSigningKeys } from '../../shared/auth/keygen.js';
import { PUBLIC_JWK_MEMBERS, publicKeySet } from '../../shared/auth/keys.js';
import { apiEvent, invokeApi } from '../support/lambda.js';
import { useSecretsEndpoint } from '../support/secrets-endpoint.js';

const secrets = useSecretsEndpoint();

/** An Ed25519 private JWK as WebCrypto exports it, with the members of other key types added. */
const PRIVATE_OKP = {
  kty: 'OKP',
  crv: 'Ed25519',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  kid: 'k1',
  alg: 'EdDSA',
  use: 'sig',
  ext: true,
  key_ops: ['sign'],
  p: 'x',
  q: 'x',
  dp: 'x',
  dq: 'x',
  qi: 'x',
  oth: [],
  k: 'x',
  x5c: ['MIIB'],
};

describe('publicKeySet', () => {
  it('keeps only kty, crv, x, y, kid, alg and use', () => {
    expect(publicKeySet([PRIVATE_OKP])).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x: PRIVATE_OKP.x, kid: 'k1', alg: 'EdDSA', use: 'sig' }],
    });
    expect(PUBLIC_JWK_MEMBERS).toEqual(['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use']);
  });

  it('keeps `y` of an EC key, and adds no member a key does not have', () => {
    const ec = { kty: 'EC', crv: 'P-256', x: 'ex', y: 'why', d: 'secret', kid: 'k2', alg: 'ES256', use: 'sig' };
    expect(publicKeySet([ec]).keys).toEqual([{ kty: 'EC', crv: 'P-256', x: 'ex', y: 'why', kid: 'k2', alg: 'ES256', use: 'sig' }]);
    expect(Object.keys(publicKeySet([{ kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' }]).keys[0]!)).toEqual(['kty', 'crv', 'x']);
  });

  it('a generated key pair: the public set is the private set’s keys reduced to the allow-list', async () => {
    const { privateSet, publicSet } = await generateSigningKeys();
    expect(typeof privateSet.keys[0]!.d).toBe('string');
    expect(publicSet).toEqual(publicKeySet(privateSet.keys));
    expect(Object.keys(publicSet.keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(publicSet.keys[0]!.kid).toBe(privateSet.active);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('serves public members only, even from a public secret that holds a private key', async () => {
    secrets.set('jwt-public', JSON.stringify({ keys: [PRIVATE_OKP] }));
    const res = await invokeApi(handler, apiEvent('api/genres-get.json', { authorizer: null }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: PRIVATE_OKP.x, kid: 'k1', alg: 'EdDSA', use: 'sig' }] });
  });
});
