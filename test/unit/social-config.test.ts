/**
 * Social sign-in configuration (SOCIAL_PROVIDERS, shared/auth/social.ts), the authorization
 * request it produces, and usernames derived from provider claims (shared/domain/usernames.ts).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizationRequest, parseProviders, type ProviderMetadata } from '../../shared/auth/social.js';
import { availableUsername, isValidUsername, usernameFrom } from '../../shared/domain/usernames.js';

const oidc = { name: 'idp', kind: 'oidc', issuer: 'https://idp.example.org', client_id: 'c', redirect_uris: ['https://app.example.org/cb'] };
const parse = (list: unknown) => parseProviders(JSON.stringify(list));

describe('SOCIAL_PROVIDERS', () => {
  it('unset or empty: no providers', () => {
    expect(parseProviders(undefined).size).toBe(0);
    expect(parseProviders('  ').size).toBe(0);
    expect(parse([]).size).toBe(0);
  });

  it('reads oidc providers by name', () => {
    const providers = parse([oidc, { ...oidc, name: 'google-oauth2', issuer: 'https://accounts.google.com', scopes: ['openid'], token_auth: 'client_secret_post' }]);
    expect([...providers.keys()]).toEqual(['idp', 'google-oauth2']);
    expect(providers.get('google-oauth2')).toMatchObject({ token_auth: 'client_secret_post', scopes: ['openid'] });
  });

  it('refuses what it could not run with, saying where', () => {
    expect(() => parseProviders('{')).toThrow(/JSON list/);
    expect(() => parse({})).toThrow(/JSON list/);
    expect(() => parse([{ ...oidc, kind: 'github' }])).toThrow(/github.*not supported/);
    expect(() => parse([{ ...oidc, kind: 'saml' }])).toThrow(/\[0\]\.kind/);
    expect(() => parse([{ ...oidc, issuer: 'http://idp.example.org' }])).toThrow(/\[0\]\.issuer/);
    expect(() => parse([{ ...oidc, issuer: 'https://user:pw@idp.example.org' }])).toThrow(/issuer/);
    expect(() => parse([{ ...oidc, redirect_uris: [] }])).toThrow(/redirect_uris/);
    expect(() => parse([{ ...oidc, name: 'a/b' }])).toThrow(/name/);
    expect(() => parse([{ ...oidc, client_secret: 'never here' }])).toThrow(/client_secret/);
    expect(() => parse([{ ...oidc, scopes: ['a b'] }])).toThrow(/scopes/);
    expect(() => parse([oidc, oidc])).toThrow(/twice/);
    // Loopback issuers may use http (local runs, tests).
    expect(parse([{ ...oidc, issuer: 'http://127.0.0.1:8080' }]).size).toBe(1);
  });
});

describe('the authorization request', () => {
  const metadata: ProviderMetadata = {
    issuer: 'https://idp.example.org',
    authorization_endpoint: 'https://idp.example.org/authorize?tenant=t1',
    token_endpoint: 'https://idp.example.org/token',
    jwks_uri: 'https://idp.example.org/jwks',
  };
  it('keeps the endpoint’s own parameters and adds the code-flow ones', () => {
    const provider = parse([{ ...oidc, scopes: ['offline_access', 'email'] }]).get('idp')!;
    const req = authorizationRequest(provider, metadata, 'https://app.example.org/cb');
    const url = new URL(req.url);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      tenant: 't1',
      response_type: 'code',
      client_id: 'c',
      redirect_uri: 'https://app.example.org/cb',
      scope: 'openid email profile offline_access',
      state: req.state,
      nonce: req.nonce,
      code_challenge: createHash('sha256').update(req.verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(Buffer.from(req.state, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(req.verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  });
});

describe('usernames from claims', () => {
  it('are made valid', () => {
    expect(usernameFrom('ada.lovelace')).toBe('ada.lovelace');
    expect(usernameFrom('Zoë Ünïcode')).toBe('Zoe_Unicode');
    expect(usernameFrom('__x')).toBe('x_user');
    expect(usernameFrom('山田')).toBe('user');
    expect(usernameFrom('admin')).toBe('admin_user');
    expect(usernameFrom('ME')).toBe('ME_user');
    expect(usernameFrom('a'.repeat(40))).toBe('a'.repeat(30));
    expect(usernameFrom('first+tag')).toBe('first_tag');
    for (const seed of ['ada.lovelace', '__x', '山田', 'admin', '-.-', 'x'.repeat(99), 'a b c d e f g h i j k l m n o p']) expect(isValidUsername(usernameFrom(seed)), seed).toBe(true);
  });

  it('are unique: the next seed, then suffixes', async () => {
    const taken = new Set(['ada', 'ada.l']);
    const isTaken = async (u: string) => taken.has(u.toLowerCase());
    expect(await availableUsername(['Ada', 'ada.l'], isTaken)).toMatch(/^Ada_\d+$/);
    expect(await availableUsername([undefined, 'bob'], isTaken)).toBe('bob');
    expect(await availableUsername([undefined, ''], isTaken)).toBe('user');
    const long = 'x'.repeat(30);
    taken.add(long);
    const suffixed = await availableUsername([long], isTaken);
    expect(suffixed.length).toBeLessThanOrEqual(30);
    expect(isValidUsername(suffixed)).toBe(true);
    await expect(availableUsername(['ada'], async () => true)).rejects.toThrow(/no free username/);
  });
});
