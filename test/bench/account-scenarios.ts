/**
 * Requests of the account and token routes for the calls section (calls.ts): registration (a
 * new address, and one that has an account), activation with a genuine token, the caller's own
 * account, public user views, an administrator's profile read, sign-in (an account, and an
 * unknown address), refresh and verify. Each run gets what it consumes (a new address, a pending
 * account, an unspent refresh token) from prepare(), which is not counted.
 */
import { ROUTES } from '../../functions/registry.js';
import { freshPair } from '../support/accounts.js';
import type { Scenario } from './calls.js';
import { BENCH_PASSWORD, insertAccount, uniqueAccountName, type BenchAccount } from './fixtures.js';
import type { RequestSpec } from './invoke.js';
import type { BenchEnv } from './local.js';

/** Scenarios by route name. */
export function accountScenarios(env: BenchEnv): Map<string, Scenario[]> {
  const byRoute = new Map<string, Scenario[]>();
  const add = (name: string, variant: string, prepare: () => Promise<RequestSpec>, extra: Pick<Scenario, 'status' | 'kind'> = {}) => {
    const route = ROUTES.find((r) => r.name === name);
    if (!route) throw new Error(`no route ${name}`);
    byRoute.set(name, [...(byRoute.get(name) ?? []), { route, variant, prepare, ...extra }]);
  };
  /** An active account with a password and a profile, shared by the read scenarios and sign-in. */
  let shared: Promise<BenchAccount> | undefined;
  const account = () => (shared ??= insertAccount({ active: true, prefix: 'acct' }));
  let verifyPair: Promise<{ access: string; refresh: string }> | undefined;
  const pair = async () => (verifyPair ??= freshPair(await account()));
  const registration = (email: string, username: string) => ({ email, username, password: BENCH_PASSWORD, re_password: BENCH_PASSWORD });

  add('users.create', 'new username and e-mail', async () => {
    const { username, email } = uniqueAccountName('reg');
    return { method: 'POST', path: '/api/users/', body: registration(email, username) };
  });
  add('users.create', 'e-mail that has an account (same answer, only E2)', async () => {
    const { username } = uniqueAccountName('reg');
    return { method: 'POST', path: '/api/users/', body: registration((await account()).email, username) };
  });
  add('users.activation', 'genuine token of a pending account', async () => {
    const pending = await insertAccount({ active: false, prefix: 'act' });
    return { method: 'POST', path: '/api/users/activation/', body: { uid: pending.id, token: pending.activationToken } };
  });
  add('users.get', 'own id (member token)', async () => {
    const me = await env.user('member');
    return { method: 'GET', path: `/api/users/${me.id}/`, token: me.token };
  });
  add('users.me_patch', 'rename (member token, no If-Match)', async () => ({
    method: 'PATCH',
    path: '/api/users/me/',
    token: (await env.user('member')).token,
    body: { username: uniqueAccountName('renamed').username },
  }));
  add('users.about', 'anonymous', async () => ({ method: 'GET', path: `/api/users/${(await account()).username}/about/` }));
  add('users.about', 'signed in (member token)', async () => ({ method: 'GET', path: `/api/users/${(await account()).username}/about/`, token: (await env.user('member')).token }));
  add('users.reviews', 'anonymous', async () => ({ method: 'GET', path: `/api/users/${(await account()).username}/reviews/` }));
  add('profiles.get', 'administrator token', async () => ({ method: 'GET', path: `/api/profiles/${(await account()).profileId}/`, token: (await env.user('administrator')).token }));
  add('tokens.create', 'existing account', async () => ({ method: 'POST', path: '/api/tokens/jwt/create/', body: { email: (await account()).email, password: BENCH_PASSWORD } }));
  add(
    'tokens.create',
    'unknown e-mail (401)',
    async () => ({ method: 'POST', path: '/api/tokens/jwt/create/', body: { email: uniqueAccountName('nobody').email, password: BENCH_PASSWORD } }),
    { status: 401, kind: 'read' },
  );
  add('tokens.refresh', 'unspent refresh token', async () => ({ method: 'POST', path: '/api/tokens/jwt/refresh/', body: { refresh: (await freshPair(await account())).refresh } }));
  add('tokens.verify', 'access token', async () => ({ method: 'POST', path: '/api/tokens/jwt/verify/', body: { token: (await pair()).access } }), { kind: 'read' });
  add('tokens.verify', 'refresh token', async () => ({ method: 'POST', path: '/api/tokens/jwt/verify/', body: { token: (await pair()).refresh } }), { kind: 'read' });
  return byRoute;
}
