/**
 * No account enumeration by timing (API.md §6: "an API response never … reveals whether an
 * address belongs to an account"; docs/decisions.md 44, 60). For each operation that takes an
 * address anyone may name, the same request is timed for an address that has an eligible
 * account and for one that has none, interleaved in rotating order, through the local gateway;
 * the ratio of the medians (eligible / unknown) must lie within 1.00 ± 0.10.
 *
 *   reset_password     an active account          vs an unknown address
 *   resend_activation  a never-activated account  vs an unknown address
 *   set_email          a free new address (E6)    vs an address with an account (E2)
 *   reset_email        the same two, signed out (credentials checked first)
 *   registration       a new address (account)    vs an address with an account (E2)
 *   sign-in            an account, wrong password vs an unknown address
 *
 * The bootstrap confidence interval of the ratio (resampling both series) is reported too.
 */
import { BENCH_PASSWORD, insertAccount, uniqueAccountName } from './fixtures.js';
import { freshPair } from '../support/accounts.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { median, ms, ratio, table, timed } from './stats.js';

interface Case {
  operation: string;
  eligible: string;
  unknown: string;
  /** Requests per side (hash-bound operations take ~0.4 s each: fewer). */
  samples: number;
  /** A request of each side; `i` numbers them (fresh usernames, addresses). */
  request: (side: 'eligible' | 'unknown', i: number) => Promise<{ path: string; body: unknown; headers?: Record<string, string>; status: number }>;
}

const TOLERANCE = 0.1;

/** A 95% bootstrap interval of median(a) / median(b). */
function bootstrap(a: number[], b: number[], rounds = 2000): [number, number] {
  const pick = (xs: number[]) => Array.from(xs, () => xs[Math.floor(Math.random() * xs.length)]!);
  const ratios = Array.from({ length: rounds }, () => median(pick(a)) / median(pick(b))).sort((x, y) => x - y);
  return [ratios[Math.floor(rounds * 0.025)]!, ratios[Math.floor(rounds * 0.975)]!];
}

export async function enumerationSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const cheap = opts.quick ? 40 : 300;
  const hashed = opts.quick ? 8 : 40;
  const warmup = opts.quick ? 3 : 10;

  const active = await insertAccount({ active: true, prefix: 'enum' });
  const pending = await insertAccount({ active: false, prefix: 'enumpending' });
  const taken = await insertAccount({ active: true, prefix: 'enumtaken' });
  const caller = await insertAccount({ active: true, prefix: 'enumcaller' });
  const auth = { authorization: `Bearer ${(await freshPair(caller)).access}` };
  const unknown = () => uniqueAccountName('enumnobody').email;

  const cases: Case[] = [
    {
      operation: '`POST /api/users/reset_password/`', eligible: 'active account', unknown: 'unknown address', samples: cheap,
      request: async (side) => ({ path: '/api/users/reset_password/', body: { email: side === 'eligible' ? active.email : unknown() }, status: 204 }),
    },
    {
      operation: '`POST /api/users/resend_activation/`', eligible: 'never-activated account', unknown: 'unknown address', samples: cheap,
      request: async (side) => ({ path: '/api/users/resend_activation/', body: { email: side === 'eligible' ? pending.email : unknown() }, status: 204 }),
    },
    {
      operation: '`POST /api/users/set_email/`', eligible: 'free new address (E6, E7)', unknown: 'address with an account (E2)', samples: hashed,
      request: async (side) => {
        const to = side === 'eligible' ? unknown() : taken.email;
        return { path: '/api/users/set_email/', body: { current_password: BENCH_PASSWORD, new_email: to, re_new_email: to }, headers: auth, status: 204 };
      },
    },
    {
      operation: '`POST /api/users/reset_email/`', eligible: 'free new address (E6, E7)', unknown: 'address with an account (E2)', samples: hashed,
      request: async (side) => {
        const to = side === 'eligible' ? unknown() : taken.email;
        return { path: '/api/users/reset_email/', body: { email: caller.email, password: BENCH_PASSWORD, new_email: to, re_new_email: to }, status: 204 };
      },
    },
    {
      operation: '`POST /api/users/`', eligible: 'new address (account created, E1)', unknown: 'address with an account (E2)', samples: hashed,
      request: async (side) => {
        const fresh = uniqueAccountName('enumreg');
        const email = side === 'eligible' ? fresh.email : taken.email;
        return { path: '/api/users/', body: { email, username: fresh.username, password: BENCH_PASSWORD, re_password: BENCH_PASSWORD }, status: 201 };
      },
    },
    {
      operation: '`POST /api/tokens/jwt/create/`', eligible: 'account, wrong password', unknown: 'unknown address', samples: hashed,
      request: async (side) => ({ path: '/api/tokens/jwt/create/', body: { email: side === 'eligible' ? active.email : unknown(), password: `${BENCH_PASSWORD}x` }, status: 401 }),
    },
  ];

  const rows: string[][] = [];
  const budgets: BudgetCheck[] = [];
  const summary: string[] = [];
  for (const c of cases) {
    const times = { eligible: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < warmup + c.samples; i++) {
      const order = i % 2 === 0 ? (['eligible', 'unknown'] as const) : (['unknown', 'eligible'] as const);
      for (const side of order) {
        const r = await c.request(side, i);
        const { ms: t, value: res } = await timed(() => env.http.request('POST', r.path, { body: r.body, headers: r.headers }));
        if (res.status !== r.status) throw new Error(`POST ${r.path} (${side}): expected ${r.status}, got ${res.status} ${res.text.slice(0, 200)}`);
        if (i >= warmup) times[side].push(t);
      }
    }
    const q = median(times.eligible) / median(times.unknown);
    const [lo, hi] = bootstrap(times.eligible, times.unknown);
    const ok = Math.abs(q - 1) <= TOLERANCE;
    rows.push([c.operation, `${c.eligible} / ${c.unknown}`, String(c.samples), ms(median(times.eligible), 2), ms(median(times.unknown), 2), ratio(q), `${ratio(lo)}–${ratio(hi)}`]);
    budgets.push({ name: `${c.operation}: eligible / unknown (medians)`, measured: ratio(q), limit: `1.00 ± ${TOLERANCE.toFixed(2)}`, ok });
    summary.push(`${c.operation.replace(/`/g, '')} ${ratio(q)}`);
  }

  return {
    method: [
      'Each operation is sent for both kinds of address, alternating which goes first, through the local gateway with the rate limits off; the first requests of each kind are not counted. Times are from the request to the end of the response; the mailer and the outbox job run in the background as with `npm start` (their work is not part of any response).',
      `Cheap operations: ${cheap} requests per kind; the ones that verify or hash a password (scrypt, ≈ 0.4 s): ${hashed}. Ratios are of medians; the interval is a 95% bootstrap of that ratio.`,
    ],
    body: [table(['Operation', 'Eligible / unknown', 'Requests per kind', 'Median eligible', 'Median unknown', 'Ratio', '95% interval'], rows), ''].join('\n'),
    budgets,
    summary: [`enumeration (eligible / unknown): ${summary.join('; ')}`],
  };
}
