/**
 * Sign-in and tokens: what the password hash costs, and the latency of sign-in, token refresh and
 * token verification through the local gateway, with the DynamoDB calls of each request.
 *
 *   (a) `hashPassword` alone (scrypt, the parameters of shared/auth/passwords.ts), in this process;
 *   (b) `POST /api/tokens/jwt/create/` for an existing account, with a wrong password, and for an
 *       unknown e-mail, interleaved: an unknown address must cost what an account costs (no
 *       account enumeration by timing, decision 34), so the ratio of the medians is reported;
 *   (c) `POST /api/tokens/jwt/refresh/`, each request with the refresh token the previous returned
 *       (a rotation chain, as a client keeps it);
 *   (d) `POST /api/tokens/jwt/verify/` with an access token and with a refresh token.
 */
import { hashPassword } from '../../shared/auth/passwords.js';
import { freshPair } from '../support/accounts.js';
import { BENCH_PASSWORD, insertAccount, uniqueAccountName } from './fixtures.js';
import type { HttpResponse } from './http.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { median, ms, percentile, ratio, table, timed } from './stats.js';

interface Series {
  label: string;
  samples: number[];
  /** DynamoDB calls per request (empty for the hash). */
  calls: number[];
  /** The operations of the last request, e.g. `GetItem + TransactWriteItems[2]`. */
  ops: string;
}

const series = (label: string): Series => ({ label, samples: [], calls: [], ops: '' });
const range = (values: number[]) => (values.length === 0 ? '—' : Math.min(...values) === Math.max(...values) ? String(values[0]) : `${Math.min(...values)}–${Math.max(...values)}`);

export async function authSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const hashes = opts.quick ? 5 : 30;
  const signIns = opts.quick ? 6 : 40;
  const tokenRequests = opts.quick ? 30 : 300;
  const warmup = opts.quick ? 2 : 5;

  /** One request through the gateway, timed, with its DynamoDB calls. */
  const send = async (s: Series | null, path: string, body: unknown, expected: number): Promise<HttpResponse> => {
    env.sdk.take();
    const { ms: t, value: res } = await timed(() => env.http.request('POST', path, { body }));
    const calls = env.sdk.take().filter((c) => c.service === 'dynamodb');
    if (res.status !== expected) throw new Error(`POST ${path}: expected ${expected}, got ${res.status} ${res.text.slice(0, 200)}`);
    if (s) {
      s.samples.push(t);
      s.calls.push(calls.length);
      s.ops = calls.map((c) => (c.input.TransactItems ? `${c.operation}[${(c.input.TransactItems as unknown[]).length}]` : c.operation)).join(' + ');
    }
    return res;
  };

  // (a) The hash alone.
  const hash = series('(a) `hashPassword` alone (scrypt, in this process)');
  for (let i = 0; i < warmup + hashes; i++) {
    const { ms: t } = await timed(() => hashPassword(BENCH_PASSWORD));
    if (i >= warmup) hash.samples.push(t);
  }

  // (b) Sign-in: an account, a wrong password, an unknown address, in rotating order.
  const account = await insertAccount({ active: true, prefix: 'signin' });
  const signIn = {
    ok: series('(b) sign-in, existing account (200)'),
    wrong: series('(b) sign-in, wrong password (401)'),
    unknown: series('(b) sign-in, unknown e-mail (401)'),
  };
  const CREATE = '/api/tokens/jwt/create/';
  const variants = [
    (measured: boolean) => send(measured ? signIn.ok : null, CREATE, { email: account.email, password: BENCH_PASSWORD }, 200),
    (measured: boolean) => send(measured ? signIn.wrong : null, CREATE, { email: account.email, password: `${BENCH_PASSWORD}x` }, 401),
    (measured: boolean) => send(measured ? signIn.unknown : null, CREATE, { email: uniqueAccountName('nobody').email, password: BENCH_PASSWORD }, 401),
  ];
  for (let i = 0; i < warmup + signIns; i++) {
    // Rotate the order each round so that no variant always follows another.
    for (let j = 0; j < variants.length; j++) await variants[(i + j) % variants.length]!(i >= warmup);
  }

  // (c) Refresh: a rotation chain.
  const refresh = series('(c) refresh, the token of the previous response (200)');
  let current = (await freshPair(account)).refresh;
  for (let i = 0; i < warmup + tokenRequests; i++) {
    const res = await send(i >= warmup ? refresh : null, '/api/tokens/jwt/refresh/', { refresh: current }, 200);
    current = (JSON.parse(res.text) as { refresh: string }).refresh;
  }

  // (d) Verify: an access token and a refresh token, alternating.
  const pair = await freshPair(account);
  const verifyAccess = series('(d) verify, access token (200)');
  const verifyRefresh = series('(d) verify, refresh token (200)');
  for (let i = 0; i < warmup + tokenRequests; i++) {
    const measured = i >= warmup;
    await send(measured ? verifyAccess : null, '/api/tokens/jwt/verify/', { token: pair.access }, 200);
    await send(measured ? verifyRefresh : null, '/api/tokens/jwt/verify/', { token: pair.refresh }, 200);
  }

  const all = [hash, signIn.ok, signIn.wrong, signIn.unknown, refresh, verifyAccess, verifyRefresh];
  const rows = all.map((s) => [s.label, String(s.samples.length), ms(median(s.samples), 1), ms(percentile(s.samples, 90), 1), s === hash ? '—' : `${range(s.calls)} (${s.ops || 'none'})`]);
  const med = (s: Series) => median(s.samples);
  const unknownVsOk = med(signIn.unknown) / med(signIn.ok);
  const unknownVsWrong = med(signIn.unknown) / med(signIn.wrong);
  const hashShare = med(hash) / med(signIn.ok);

  const budgets: BudgetCheck[] = [
    { name: 'Password hash (scrypt) alone, median', measured: ms(med(hash), 1), limit: '—', ok: null },
    { name: 'Sign-in (existing account) median / p90', measured: `${ms(med(signIn.ok), 1)} / ${ms(percentile(signIn.ok.samples, 90), 1)}`, limit: '—', ok: null },
    {
      name: 'Sign-in: unknown e-mail / existing account (medians; no enumeration by timing)',
      measured: `${ratio(unknownVsOk)} (unknown / wrong password: ${ratio(unknownVsWrong)})`,
      limit: '≈ 1×',
      ok: null,
    },
    { name: 'Token refresh median / p90', measured: `${ms(med(refresh), 1)} / ${ms(percentile(refresh.samples, 90), 1)}`, limit: '—', ok: null },
    { name: 'Token verify (access) median / p90', measured: `${ms(med(verifyAccess), 1)} / ${ms(percentile(verifyAccess.samples, 90), 1)}`, limit: '—', ok: null },
  ];

  const body = [
    table(['Measurement', 'Requests', 'Median', 'p90', 'DynamoDB calls per request'], rows),
    '',
    `The hash alone takes ${ms(med(hash), 1)}, a successful sign-in ${ms(med(signIn.ok), 1)} (medians; ratio ${ratio(hashShare)}): a sign-in verifies one scrypt hash, so its time is the hash plus a few milliseconds of reads, token signing and one transaction.`,
    `An unknown e-mail verifies a decoy hash (shared/auth/passwords.ts): ${ms(med(signIn.unknown), 1)} against ${ms(med(signIn.ok), 1)} for an account (${ratio(unknownVsOk)}) and ${ms(med(signIn.wrong), 1)} for a wrong password (${ratio(unknownVsWrong)}); the difference to a success is its write (last_login and the refresh token), ${ms(med(signIn.ok) - med(signIn.unknown), 1)}.`,
    '',
  ].join('\n');

  return {
    method: [
      `(a) \`hashPassword\` called ${hashes} times in this process (after ${warmup} not counted); the same scrypt work every sign-in, registration and password check does.`,
      `(b) \`POST /api/tokens/jwt/create/\` through the local gateway, ${signIns} rounds of three requests in rotating order: the existing account with its password, the same with a wrong password, and a new unknown address each time; ${warmup} rounds first, not counted.`,
      `(c) \`POST /api/tokens/jwt/refresh/\` ${tokenRequests} times in a chain: each request sends the refresh token the previous one returned. (d) \`POST /api/tokens/jwt/verify/\` ${tokenRequests} times each with one access and one refresh token, alternating.`,
      'Rate limits are off (`RATE_LIMITS=off`): no counter writes, and no 429 after a few sign-ins. DynamoDB calls are counted as in section 1 (the sign-in and token routes have no authorizer).',
      'No budget in DESIGN §9; reported. The unknown/existing ratio shows the no-enumeration property of sign-in (§4.19, decision 34): it should be close to 1.',
    ],
    body,
    budgets,
    summary: [
      `auth: hash ${ms(med(hash), 1)}; sign-in ${ms(med(signIn.ok), 1)} (unknown e-mail ${ratio(unknownVsOk)}, wrong password ${ms(med(signIn.wrong), 1)}); refresh ${ms(med(refresh), 1)}; verify ${ms(med(verifyAccess), 1)} (access), ${ms(med(verifyRefresh), 1)} (refresh)`,
    ],
  };
}
