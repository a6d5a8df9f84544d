/**
 * OpenID providers on loopback for the social sign-in tests (API.md §4.17):
 *
 * - `startOidcProvider`: a real, standards-compliant provider (the `oidc-provider` package) with
 *   registered clients, PKCE required, and accounts whose claims the test controls. Its login and
 *   consent interaction completes at once for the account the test names (`signInAs`), so a
 *   test drives the whole authorization-code flow over HTTP with `authorize`.
 * - `startFakeProvider`: discovery, keys and a token endpoint whose answer the test writes (any
 *   ID token, signed with the provider's key or another), for the ways a provider's answer can
 *   be wrong.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

export interface Claims {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  picture?: string;
  preferred_username?: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface OidcProvider {
  issuer: string;
  /** Sets the claims of an account (its `sub` is the account id). */
  account(id: string, claims: Claims): void;
  /** The account the next authorization logs in as. */
  signInAs(id: string): void;
  /**
   * Follows an authorization URL like a browser would (redirects, cookies, the interaction) and
   * returns the redirect back to the client, which carries `code` and `state`.
   */
  authorize(authorizationUrl: string, redirectPrefix: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startOidcProvider(clients: ClientMetadata[]): Promise<OidcProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, Claims>();
  let next: string | undefined;
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients,
    jwks: { keys: [jwk as never] },
    findAccount: (_ctx, id) => (accounts.has(id) ? { accountId: id, claims: () => ({ sub: id, ...accounts.get(id) }) } : undefined),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name', 'picture', 'preferred_username'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['identity-provider-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Grant: 600, Session: 600 },
  });
  const callback = provider.callback();
  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    // Login and consent at once, for the account the test named.
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        const accountId = next;
        if (!accountId) throw new Error('no account to sign in as (signInAs)');
        const grant = new provider.Grant({ accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    })();
  });
  return {
    issuer,
    account: (id, claims) => accounts.set(id, claims),
    signInAs: (id) => {
      next = id;
    },
    authorize: async (authorizationUrl, redirectPrefix) => {
      const jar = new Map<string, string>();
      let current = authorizationUrl;
      for (let i = 0; i < 10; i++) {
        const res = await fetch(current, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const cookie of res.headers.getSetCookie()) {
          const [pair = ''] = cookie.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = res.headers.get('location');
        if (!location) throw new Error(`${current} → ${res.status} without a redirect: ${(await res.text()).slice(0, 500)}`);
        const target = new URL(location, current);
        if (target.href.startsWith(redirectPrefix)) return target;
        current = target.href;
      }
      throw new Error('too many redirects');
    },
    close: () => close(server),
  };
}

export interface TokenRequest {
  form: URLSearchParams;
  authorization: string | undefined;
}

/** What the fake token endpoint answers: a JSON body with a status, or a dropped connection. */
export type TokenAnswer = { status: number; body: unknown } | 'drop';

export interface FakeProvider {
  issuer: string;
  clientId: string;
  /** Signs an ID token with the provider's key (or `key`), with these claims and header. */
  idToken(claims: Record<string, unknown>, opts?: { key?: CryptoKey | Uint8Array; alg?: string; kid?: string }): Promise<string>;
  /** The answer of the token endpoint to the next requests. */
  answer: (request: TokenRequest) => Promise<TokenAnswer> | TokenAnswer;
  /** The token requests received, latest last. */
  requests: TokenRequest[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export async function startFakeProvider(clientId: string): Promise<FakeProvider> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid: 'fake-es256', alg: 'ES256', use: 'sig' };
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const json = (res: ServerResponse, status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  const fake: FakeProvider = {
    issuer,
    clientId,
    idToken: (claims, opts = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg: opts.alg ?? 'ES256', kid: opts.kid ?? 'fake-es256', typ: 'JWT' }).sign(opts.key ?? privateKey),
    answer: () => ({ status: 400, body: { error: 'invalid_grant' } }),
    requests: [],
    close: () => close(server),
  };
  server.on('request', (req, res) => {
    void (async () => {
      const path = new URL(req.url ?? '/', issuer).pathname;
      if (path === '/.well-known/openid-configuration') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
          token_endpoint_auth_methods_supported: ['client_secret_post'],
        });
      }
      if (path === '/jwks') return json(res, 200, { keys: [publicJwk] });
      if (path === '/token' && req.method === 'POST') {
        const request = { form: new URLSearchParams(await body(req)), authorization: req.headers.authorization };
        fake.requests.push(request);
        const answer = await fake.answer(request);
        if (answer === 'drop') return void req.socket.destroy();
        return json(res, answer.status, answer.body);
      }
      json(res, 404, { error: 'not_found' });
    })();
  });
  return fake;
}
