/**
 * Social sign-in with OpenID Connect providers (API.md §4.17): the deployment's provider
 * configuration, discovery, the authorization request (state, nonce, PKCE S256), the code
 * exchange at the token endpoint and the validation of the ID token.
 *
 * Configuration (read from the environment, cached per value):
 *
 * - `SOCIAL_PROVIDERS`: a JSON list of providers, each
 *   `{"name": "google-oauth2", "kind": "oidc", "issuer": "https://accounts.google.com",
 *     "client_id": "…", "scopes": ["…"], "redirect_uris": ["https://app.example.org/cb"],
 *     "token_auth": "client_secret_basic"}`.
 *   `name` is the `{provider}` path value; `scopes` are added to `openid email profile`;
 *   `token_auth` (optional) is how the client authenticates at the token endpoint
 *   (`client_secret_basic`, `client_secret_post` or `none`; default: basic when the provider
 *   supports it, else post). Only `kind: "oidc"` is supported; `github` is not yet.
 *   Unset or empty: no providers (every `{provider}` is a 404).
 * - `SOCIAL_SECRETS_ID`: the secret holding the client secrets, a JSON object
 *   `{"<provider name>": "<client secret>"}` (read with the other secrets, shared/secrets.ts).
 *
 * The provider's metadata comes from `<issuer>/.well-known/openid-configuration` and is kept
 * per container for an hour; its signing keys from `jwks_uri` (jose's remote key set, which
 * refetches when a token names an unknown key). Every call to the provider has a timeout;
 * an unreachable provider is `ProviderUnavailable` (→ 503).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import * as z from 'zod/mini';
import { secretFromEnv } from '../secrets.js';

export const SOCIAL_ENV = { providers: 'SOCIAL_PROVIDERS', secrets: 'SOCIAL_SECRETS_ID' } as const;

/** Milliseconds allowed for each call to a provider (discovery, token, keys, userinfo). */
export const PROVIDER_TIMEOUT_MS = 3_000;
const METADATA_MAX_AGE_MS = 3_600_000;
/** Lifetime of a sign-in's state (API.md §7.1). */
export const STATE_LIFETIME_SECONDS = 600;
/** Scopes always requested from an `oidc` provider. */
const BASE_SCOPES = ['openid', 'email', 'profile'];

export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** An issuer or endpoint: https, or http on a loopback host (local runs and tests). */
function isAllowedUrl(value: string): boolean {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  if (u.username !== '' || u.password !== '' || u.hash !== '') return false;
  if (u.protocol === 'https:') return true;
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
}

const endpointUrl = z.string().check(z.refine(isAllowedUrl, 'must be an https URL (http only on loopback), without credentials or fragment'));

const providerSchema = z.strictObject({
  name: z.string().check(z.regex(PROVIDER_NAME, 'must match [A-Za-z0-9][A-Za-z0-9_.-]{0,63}')),
  kind: z.literal('oidc'),
  issuer: endpointUrl,
  client_id: z.string().check(z.minLength(1)),
  scopes: z.optional(z.array(z.string().check(z.regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'is not a scope token')))),
  redirect_uris: z.array(z.string().check(z.refine((v) => URL.canParse(v), 'must be an absolute URL'))).check(z.minLength(1)),
  token_auth: z.optional(z.enum(['client_secret_basic', 'client_secret_post', 'none'])),
});

export type SocialProvider = z.output<typeof providerSchema>;

/** Parses a SOCIAL_PROVIDERS value; throws a readable error on anything it would not run with. */
export function parseProviders(value: string | undefined): Map<string, SocialProvider> {
  const text = (value ?? '').trim();
  if (text === '') return new Map();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${SOCIAL_ENV.providers} must be a JSON list of providers`);
  }
  if (!Array.isArray(raw)) throw new Error(`${SOCIAL_ENV.providers} must be a JSON list of providers`);
  const providers = new Map<string, SocialProvider>();
  raw.forEach((entry: unknown, i) => {
    const kind = (entry as { kind?: unknown } | null)?.kind;
    if (kind === 'github') throw new Error(`${SOCIAL_ENV.providers}[${i}]: kind "github" is not supported yet (use an "oidc" provider)`);
    const parsed = providerSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${SOCIAL_ENV.providers}[${i}].${issue.path.join('.')}: ${issue.message}`);
    }
    if (providers.has(parsed.data.name)) throw new Error(`${SOCIAL_ENV.providers}: provider "${parsed.data.name}" is configured twice`);
    providers.set(parsed.data.name, parsed.data);
  });
  return providers;
}

let configured: { value: string | undefined; providers: Map<string, SocialProvider> } | undefined;

/** The configured provider of that name, or null. */
export function socialProvider(name: string): SocialProvider | null {
  const value = process.env[SOCIAL_ENV.providers];
  if (configured?.value !== value) configured = { value, providers: parseProviders(value) };
  return configured!.providers.get(name) ?? null;
}

/** The provider is unreachable, timed out or answered with a server error (→ 503). */
export class ProviderUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider refused the code, or what it returned is not acceptable (→ 400 on `field`). */
export class SocialRejected extends Error {
  readonly field: 'code' | 'email';
  constructor(field: 'code' | 'email', message: string) {
    super(message);
    this.name = 'SocialRejected';
    this.field = field;
  }
}

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
  id_token_signing_alg_values_supported?: string[];
}

const metadataSchema = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: endpointUrl,
  token_endpoint: endpointUrl,
  jwks_uri: endpointUrl,
  userinfo_endpoint: z.optional(endpointUrl),
  token_endpoint_auth_methods_supported: z.optional(z.array(z.string())),
  id_token_signing_alg_values_supported: z.optional(z.array(z.string())),
});

async function call(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (err) {
    throw new ProviderUnavailable(`${what}: ${(err as Error).message}`, { cause: err });
  }
}

const discovered = new Map<string, { at: number; value: Promise<ProviderMetadata> }>();

async function discover(issuer: string): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const res = await call(url, { headers: { accept: 'application/json' } }, 'discovery');
  if (!res.ok) throw new ProviderUnavailable(`discovery: ${url} answered ${res.status}`);
  const parsed = metadataSchema.safeParse(await res.json().catch(() => null));
  if (!parsed.success) throw new ProviderUnavailable(`discovery: ${url} is not usable provider metadata`);
  // OpenID Connect Discovery §4.3: the metadata must name exactly the configured issuer.
  if (parsed.data.issuer !== issuer) throw new Error(`discovery: ${url} names issuer ${parsed.data.issuer}, configured ${issuer}`);
  return parsed.data;
}

/** The provider's metadata (discovered once per container and hour; failures are not kept). */
export function providerMetadata(provider: SocialProvider): Promise<ProviderMetadata> {
  const hit = discovered.get(provider.issuer);
  if (hit && Date.now() - hit.at < METADATA_MAX_AGE_MS) return hit.value;
  const value = discover(provider.issuer);
  discovered.set(provider.issuer, { at: Date.now(), value });
  value.catch(() => discovered.delete(provider.issuer));
  return value;
}

/** Forgets discovered metadata and key sets (tests). */
export function forgetProviders(): void {
  discovered.clear();
  keySets.clear();
}

export interface AuthorizationRequest {
  url: string;
  state: string;
  nonce: string;
  /** PKCE code verifier (RFC 7636), kept with the state. */
  verifier: string;
}

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

/** A new authorization request: fresh state (256 bits), nonce and PKCE verifier. */
export function authorizationRequest(provider: SocialProvider, metadata: ProviderMetadata, redirectUri: string): AuthorizationRequest {
  const state = random(32);
  const nonce = random(32);
  const verifier = random(48);
  const url = new URL(metadata.authorization_endpoint);
  const scopes = [...new Set([...BASE_SCOPES, ...(provider.scopes ?? [])])];
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: provider.client_id,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
    nonce,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return { url: url.href, state, nonce, verifier };
}

/** What the provider asserts about the person (OpenID Connect standard claims). */
export interface SocialIdentity {
  iss: string;
  sub: string;
  email?: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
  picture?: string;
  preferred_username?: string;
}

type TokenAuth = NonNullable<SocialProvider['token_auth']>;

/** Client authentication at the token endpoint: the configured one, else what the provider supports. */
function tokenAuth(provider: SocialProvider, metadata: ProviderMetadata): TokenAuth {
  if (provider.token_auth) return provider.token_auth;
  // Discovery §3: when the list is absent, the default is client_secret_basic.
  const supported = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  return supported.includes('client_secret_basic') || !supported.includes('client_secret_post') ? 'client_secret_basic' : 'client_secret_post';
}

async function clientSecret(provider: SocialProvider): Promise<string> {
  let secrets: unknown;
  try {
    secrets = JSON.parse(await secretFromEnv(SOCIAL_ENV.secrets));
  } catch (err) {
    if (err instanceof SyntaxError) throw new Error(`the secret of ${SOCIAL_ENV.secrets} must be a JSON object {provider: client secret}`);
    throw err;
  }
  const named = typeof secrets === 'object' && secrets !== null && Object.hasOwn(secrets, provider.name);
  const secret = named ? (secrets as Record<string, unknown>)[provider.name] : undefined;
  if (typeof secret !== 'string' || secret === '') throw new Error(`no client secret for social provider "${provider.name}"`);
  return secret;
}

/** RFC 6749 §2.3.1: client id and secret are form-encoded before Basic authentication. */
const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');

/** Signature algorithms accepted for ID tokens: asymmetric only (no `none`, no HMAC). */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function keySet(jwksUri: string) {
  let set = keySets.get(jwksUri);
  if (!set) {
    set = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_MS, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    keySets.set(jwksUri, set);
  }
  return set;
}

const rejectedToken = (why: string) => new SocialRejected('code', `The identity token from the provider is not valid (${why}).`);

/** Validates the ID token (signature under the provider's keys, issuer, audience, expiry, nonce). */
async function validateIdToken(provider: SocialProvider, metadata: ProviderMetadata, idToken: string, nonce: string): Promise<JWTPayload> {
  const advertised = (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((a) => ASYMMETRIC.has(a));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(metadata.jwks_uri), {
      issuer: metadata.issuer,
      audience: provider.client_id,
      algorithms: advertised.length > 0 ? advertised : ['RS256'],
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (err) {
    // The key set could not be fetched: the provider is unavailable, not the token wrong.
    if (err instanceof joseErrors.JWKSTimeout || !(err instanceof joseErrors.JOSEError) || err.constructor === joseErrors.JOSEError) {
      throw new ProviderUnavailable(`keys: ${(err as Error).message}`, { cause: err });
    }
    throw rejectedToken(err.code);
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== provider.client_id) throw rejectedToken('azp');
  if (payload.nonce !== nonce) throw rejectedToken('nonce');
  if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw rejectedToken('sub');
  return payload;
}

const PROFILE_CLAIMS = ['email', 'email_verified', 'given_name', 'family_name', 'picture', 'preferred_username'] as const;

/** Claims the ID token left out, from the userinfo endpoint (whose `sub` must be the token's). */
async function userinfo(metadata: ProviderMetadata, accessToken: string, sub: string): Promise<Record<string, unknown>> {
  const res = await call(metadata.userinfo_endpoint!, { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } }, 'userinfo');
  if (res.status >= 500) throw new ProviderUnavailable(`userinfo answered ${res.status}`);
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok || !body || typeof body !== 'object') throw new SocialRejected('code', 'The provider did not return the user’s claims.');
  if (body.sub !== sub) throw new SocialRejected('code', 'The provider returned claims of another user.');
  return body;
}

const optionalString = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * Exchanges an authorization code (with the PKCE verifier and the redirect URI of the
 * authorization request) and returns the validated identity.
 */
export async function exchangeCode(
  provider: SocialProvider,
  metadata: ProviderMetadata,
  request: { code: string; redirectUri: string; verifier: string; nonce: string },
): Promise<SocialIdentity> {
  const auth = tokenAuth(provider, metadata);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: request.code,
    redirect_uri: request.redirectUri,
    code_verifier: request.verifier,
    client_id: provider.client_id,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (auth !== 'none') {
    const secret = await clientSecret(provider);
    if (auth === 'client_secret_post') form.set('client_secret', secret);
    else headers.authorization = `Basic ${Buffer.from(`${formEncode(provider.client_id)}:${formEncode(secret)}`).toString('base64')}`;
  }
  const res = await call(metadata.token_endpoint, { method: 'POST', headers, body: form.toString() }, 'token endpoint');
  if (res.status >= 500) throw new ProviderUnavailable(`token endpoint answered ${res.status}`);
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const error = typeof body?.error === 'string' ? body.error : `HTTP ${res.status}`;
    // The provider refuses this service's client credentials: a configuration fault, not the caller's.
    if (error === 'invalid_client' || error === 'unauthorized_client') throw new Error(`social provider "${provider.name}" refused the client: ${error}`);
    throw new SocialRejected('code', 'The authorization code was rejected by the provider.');
  }
  if (typeof body?.id_token !== 'string') throw new SocialRejected('code', 'The provider returned no identity token.');
  const claims: Record<string, unknown> = { ...(await validateIdToken(provider, metadata, body.id_token, request.nonce)) };
  const sub = claims.sub as string;
  if (claims.email === undefined && metadata.userinfo_endpoint && typeof body.access_token === 'string') {
    const extra = await userinfo(metadata, body.access_token, sub);
    for (const name of PROFILE_CLAIMS) if (claims[name] === undefined) claims[name] = extra[name];
  }
  return {
    iss: metadata.issuer,
    sub,
    email: optionalString(claims.email),
    // Some providers send the boolean as a string.
    email_verified: claims.email_verified === true || claims.email_verified === 'true',
    given_name: optionalString(claims.given_name),
    family_name: optionalString(claims.family_name),
    picture: optionalString(claims.picture),
    preferred_username: optionalString(claims.preferred_username),
  };
}
