/**
 * §9 "DynamoDB calls per request": every declared route is exercised with a realistic successful
 * request, through the local gateway (what a request costs in total) and by invoking the
 * authorizer and the function directly (what each of them costs). Calls are counted by the
 * middleware of sdk-calls.ts on the shared clients. The catalogue collections get their CRUD
 * requests here; the account and token routes get theirs from account-scenarios.ts.
 */
import { ROUTES } from '../../functions/registry.js';
import { needsAuthorizer, pathParamNames, type RouteDecl } from '../../shared/http/route.js';
import { invokeDirect, prepareEvent, type RequestSpec } from './invoke.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { BudgetCheck, SectionBody } from './report.js';
import { accountScenarios } from './account-scenarios.js';
import { describeCall, type SdkCall } from './sdk-calls.js';
import { CATALOGUE_SEGMENTS, patchBody, writeBody } from './fixtures.js';
import { table } from './stats.js';
import { fixture } from '../support/images.js';
import { formData } from '../support/multipart.js';

const CRUD_OPS = ['list', 'create', 'get', 'put', 'patch', 'delete'] as const;
type CrudOp = (typeof CRUD_OPS)[number];

export interface Scenario {
  route: RouteDecl;
  variant: string;
  /** A request for one run (write scenarios get a fresh record each time). */
  prepare(): Promise<RequestSpec>;
  /** The status every run must get (default: the route's success status). */
  status?: number;
  /**
   * Which budget applies: `read` (≤ 2 calls) or `write` (1 transaction). Default: GET is a read,
   * anything else a write (`tokens.verify` is a POST that only reads).
   */
  kind?: 'read' | 'write';
}

interface Skipped {
  route: RouteDecl;
  reason: string;
}

interface Measured {
  scenario: Scenario;
  /** DynamoDB calls per run through the gateway (authorizer + function). */
  total: number[];
  authorizer: number[];
  fn: number[];
  /** Secrets Manager calls per warm run (gateway and direct). */
  secrets: number[];
  /** Secrets Manager calls made by the first (warm-up) request. */
  firstSecrets: SdkCall[];
  breakdown: { authorizer: string; fn: string };
  transactions: number;
  retries: number;
}

const dynamo = (calls: SdkCall[]) => calls.filter((c) => c.service === 'dynamodb');
const secrets = (calls: SdkCall[]) => calls.filter((c) => c.service === 'secrets');
const ops = (calls: SdkCall[]) => (calls.length === 0 ? '—' : calls.map(describeCall).join(' + '));
const isRead = (scenario: Scenario) => (scenario.kind ?? (scenario.route.method === 'GET' ? 'read' : 'write')) === 'read';

function crudOp(route: RouteDecl): { segment: string; op: CrudOp } | null {
  const [segment, op] = route.name.split('.');
  if (!segment || !CATALOGUE_SEGMENTS.has(segment) || !(CRUD_OPS as readonly string[]).includes(op ?? '')) return null;
  if (!route.path.startsWith(`/api/${segment}/`)) return null;
  return { segment, op: op as CrudOp };
}

let counter = 0;
const uniqueName = (segment: string) => `Bench ${segment} ${process.pid}-${++counter}`;

function scenarios(env: BenchEnv): { scenarios: Scenario[]; skipped: Skipped[] } {
  const out: Scenario[] = [];
  const skipped: Skipped[] = [];
  const created = new Map<string, Promise<string>>();
  /** A new record of the collection, created through the API (not counted). */
  const seed = async (segment: string): Promise<string> => {
    const { token } = await env.user('administrator');
    const { json } = await env.http.expect<{ id: string }>(201, 'POST', `/api/${segment}/`, {
      headers: { authorization: `Bearer ${token}` },
      body: writeBody(segment, uniqueName(segment)),
    });
    return json.id;
  };
  /** One record per collection that read scenarios share. */
  const shared = (segment: string) => {
    let id = created.get(segment);
    if (!id) {
      id = seed(segment).then(async (first) => {
        await seed(segment); // a second one, so that a page of one has a next page
        return first;
      });
      created.set(segment, id);
    }
    return id;
  };
  let newsAnime: Promise<string> | undefined;
  /** An anime named by two news articles (created once, not counted). */
  const animeWithNews = () =>
    (newsAnime ??= (async () => {
      const id = await seed('animes');
      const { token } = await env.user('administrator');
      for (let i = 0; i < 2; i++) {
        await env.http.expect(201, 'POST', '/api/news/', { headers: { authorization: `Bearer ${token}` }, body: { ...writeBody('news', uniqueName('news')), anime_ids: [id] } });
      }
      return id;
    })());
  /** Animes (created once, not counted) through the API as an administrator. */
  const animesWith = async (bodies: Record<string, unknown>[]) => {
    const { token } = await env.user('administrator');
    for (const body of bodies) {
      await env.http.expect(201, 'POST', '/api/animes/', { headers: { authorization: `Bearer ${token}` }, body: { ...writeBody('animes', uniqueName('animes')), ...body } });
    }
  };
  let seasonAnimes: Promise<void> | undefined;
  /** Two animes in fall 1999, two in the current season and two in the upcoming one (by today's UTC date). */
  const seasonsSeeded = () => {
    const today = new Date();
    const upcoming = new Date(Date.UTC(today.getUTCFullYear(), Math.floor(today.getUTCMonth() / 3) * 3 + 3, 1)).toISOString().slice(0, 10);
    const dates = ['1999-10-01', '1999-11-15', today.toISOString().slice(0, 10), today.toISOString().slice(0, 10), upcoming, upcoming];
    return animesWith(dates.map((aired_from) => ({ aired_from, status: 'airing' })));
  };
  let scheduled: Promise<void> | undefined;
  const scheduleSeeded = () =>
    animesWith([
      { status: 'airing', aired_from: '2020-01-01', broadcast: { day: 'monday', time: '23:30', timezone: 'Asia/Tokyo' } },
      { status: 'airing', aired_from: '2020-01-01', broadcast: { day: 'sunday', time: '02:30', timezone: 'America/New_York' } },
      { status: 'airing', aired_from: '2020-01-01' },
    ]);
  const bearer = async (route: RouteDecl) => (await env.user(route.access === 'public' || route.access === 'credentials' ? 'member' : route.access)).token;
  const accounts = accountScenarios(env);

  for (const route of ROUTES) {
    const crud = crudOp(route);
    const own = accounts.get(route.name);
    if (own) {
      out.push(...own);
    } else if (crud) {
      const { segment, op } = crud;
      const collection = `/api/${segment}/`;
      const item = async () => `${collection}${await shared(segment)}/`;
      const add = (variant: string, prepare: () => Promise<RequestSpec>) => out.push({ route, variant, prepare });
      switch (op) {
        case 'list':
          add('anonymous, first page', async () => (await shared(segment), { method: 'GET', path: collection }));
          add('anonymous, next page (cursor)', async () => {
            await shared(segment);
            const { json } = await env.http.expect<{ next: string | null }>(200, 'GET', `${collection}?limit=1`);
            if (!json.next) throw new Error(`${collection}?limit=1 has no next link`);
            const next = new URL(json.next);
            return { method: 'GET', path: `${next.pathname}${next.search}` };
          });
          add('anonymous, search (q)', async () => (await shared(segment), { method: 'GET', path: `${collection}?q=bench` }));
          if (segment === 'animes') {
            add('anonymous, filter and ordering', async () => (await shared(segment), { method: 'GET', path: `${collection}?media_type=tv&ordering=-aired_from` }));
          }
          if (segment === 'mangas') {
            add('anonymous, filter and ordering', async () => (await shared(segment), { method: 'GET', path: `${collection}?media_type=manga&ordering=-published_from` }));
          }
          if (segment === 'news') {
            add('anonymous, filter (tag) and ordering', async () => (await shared(segment), { method: 'GET', path: `${collection}?tag=pending&ordering=name` }));
            add('anonymous, filter (anime)', async () => ({ method: 'GET', path: `${collection}?anime=${await animeWithNews()}` }));
          }
          add('signed in (member token)', async () => ({ method: 'GET', path: collection, token: await bearer(route) }));
          break;
        case 'get':
          add('anonymous', async () => ({ method: 'GET', path: await item() }));
          add('signed in (member token)', async () => ({ method: 'GET', path: await item(), token: await bearer(route) }));
          break;
        case 'create':
          add(`${route.access} token`, async () => ({ method: 'POST', path: collection, token: await bearer(route), body: writeBody(segment, uniqueName(segment)) }));
          break;
        case 'put':
        case 'patch':
        case 'delete':
          add(`${route.access} token, no If-Match`, async () => ({
            method: route.method,
            path: `${collection}${await seed(segment)}/`,
            token: await bearer(route),
            ...(op === 'put' ? { body: writeBody(segment, uniqueName(segment)) } : op === 'patch' ? { body: patchBody(uniqueName(segment)) } : {}),
          }));
          break;
      }
    } else if (route.name === 'genres.mangas') {
      // A genre's mangas (the manga planner with the genre's posting list): a genre with two.
      let genre: Promise<string> | undefined;
      const linked = async () => {
        const id = await shared('genres');
        const { token } = await env.user('administrator');
        for (let i = 0; i < 2; i++) {
          await env.http.expect(201, 'POST', '/api/mangas/', { headers: { authorization: `Bearer ${token}` }, body: { ...writeBody('mangas', uniqueName('mangas')), genre_ids: [id] } });
        }
        return id;
      };
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: route.path.replace('{id}', await (genre ??= linked())) }) });
      out.push({ route, variant: 'signed in (member token)', prepare: async () => ({ method: 'GET', path: route.path.replace('{id}', await (genre ??= linked())), token: await bearer(route) }) });
    } else if (route.name === 'animes.news') {
      // An anime that two articles name (the shared anime has none).
      const path = async (query = '') => `${route.path.replace('{id}', await animeWithNews())}${query}`;
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: await path() }) });
      out.push({ route, variant: 'anonymous, filter (tag) and ordering', prepare: async () => ({ method: 'GET', path: await path('?tag=pending&ordering=name') }) });
      out.push({ route, variant: 'signed in (member token)', prepare: async () => ({ method: 'GET', path: await path(), token: await bearer(route) }) });
    } else if (route.name === 'persons.create-picture') {
      // An upload of a small PNG to a new person (its 100-picture cap is never reached).
      const { body, contentType } = formData([{ name: 'image', filename: 'p.png', type: 'image/png', data: fixture('rgba.png') }, { name: 'name', value: 'Bench' }]);
      out.push({
        route,
        variant: `${route.access} token, a PNG`,
        prepare: async () => ({ method: 'POST', path: route.path.replace('{id}', await seed('persons')), token: await bearer(route), raw: { bytes: body, contentType } }),
      });
    } else if (['genres.animes', 'producers.animes'].includes(route.name)) {
      // The animes of a genre or a studio that two animes link.
      const linked = (async () => {
        const { token } = await env.user('administrator');
        const segment = route.name.split('.')[0]!;
        const { json } = await env.http.expect<{ id: string }>(201, 'POST', `/api/${segment}/`, {
          headers: { authorization: `Bearer ${token}` },
          body: writeBody(segment, uniqueName(segment)),
        });
        for (let i = 0; i < 2; i++) {
          await env.http.expect(201, 'POST', '/api/animes/', {
            headers: { authorization: `Bearer ${token}` },
            body: { ...writeBody('animes', uniqueName('animes')), [segment === 'genres' ? 'genre_ids' : 'studio_ids']: [json.id] },
          });
        }
        return json.id;
      })();
      const path = async () => route.path.replace('{id}', await linked);
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: await path() }) });
      if (route.name === 'producers.animes') out.push({ route, variant: 'anonymous, role=studio', prepare: async () => ({ method: 'GET', path: `${await path()}?role=studio` }) });
    } else if (route.name.startsWith('seasons.')) {
      // A season with two animes: a given one, or the current or upcoming one by today's date.
      const path = async () => {
        await (seasonAnimes ??= seasonsSeeded());
        return route.name === 'seasons.get' ? route.path.replace('{year}', '1999').replace('{season}', 'fall') : route.path;
      };
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: await path() }) });
      out.push({ route, variant: 'anonymous, filter and ordering', prepare: async () => ({ method: 'GET', path: `${await path()}?status=airing&ordering=name` }) });
      out.push({ route, variant: 'signed in (member token)', prepare: async () => ({ method: 'GET', path: await path(), token: await bearer(route) }) });
    } else if (route.name === 'schedules.list') {
      // Two airing animes with weekly broadcasts and one without.
      const seeded = async () => (await (scheduled ??= scheduleSeeded()), route.path);
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: await seeded() }) });
      out.push({ route, variant: 'anonymous, tz, day and ordering', prepare: async () => ({ method: 'GET', path: `${await seeded()}?tz=Europe/Paris&day=monday&ordering=-score` }) });
      out.push({ route, variant: 'signed in (member token)', prepare: async () => ({ method: 'GET', path: await seeded(), token: await bearer(route) }) });
    } else if (route.method === 'GET' && pathParamNames(route.path).join() === 'id' && CATALOGUE_SEGMENTS.has(route.path.split('/')[2]!)) {
      // A sub-resource list of a catalogue record.
      const segment = route.path.split('/')[2]!;
      out.push({ route, variant: 'anonymous', prepare: async () => ({ method: 'GET', path: route.path.replace('{id}', await shared(segment)) }) });
    } else if (route.method === 'GET' && pathParamNames(route.path).length === 0) {
      // No path parameters: the path as declared, without a query (every query parameter is optional).
      const variant = route.access === 'public' ? 'anonymous' : route.access === 'credentials' ? 'as declared' : `${route.access} token`;
      out.push({ route, variant, prepare: async () => ({ method: 'GET', path: route.path, ...(needsAuthorizer(route) ? { token: await bearer(route) } : {}) }) });
    } else {
      skipped.push({ route, reason: 'no request scenario for this route in test/bench/calls.ts or account-scenarios.ts' });
    }
  }
  return { scenarios: out, skipped };
}

async function measure(env: BenchEnv, scenario: Scenario, runs: number): Promise<Measured> {
  const { route } = scenario;
  const expected = scenario.status ?? route.response.status;
  const viaGateway = async () => {
    const spec = await scenario.prepare();
    env.sdk.take();
    const res = await env.http.request(spec.method, spec.path, {
      headers: { ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}), ...(spec.raw ? { 'content-type': spec.raw.contentType } : {}) },
      ...(spec.raw ? { body: spec.raw.bytes } : spec.body !== undefined ? { body: spec.body } : {}),
    });
    const calls = env.sdk.take();
    if (res.status !== expected) throw new Error(`${route.name} (${scenario.variant}) via the gateway: expected ${expected}, got ${res.status} ${res.text.slice(0, 200)}`);
    return calls;
  };
  const direct = async () => {
    const spec = await scenario.prepare();
    const r = await invokeDirect(prepareEvent(spec, env.host), env.sdk);
    if (r.result.statusCode !== expected) {
      throw new Error(`${route.name} (${scenario.variant}) invoked directly: expected ${expected}, got ${r.result.statusCode} ${(r.result.body ?? '').slice(0, 200)}`);
    }
    return r;
  };
  // Warm-up: the first request loads the module and fetches the secrets it needs.
  const firstSecrets = secrets(await viaGateway());
  await direct();

  const m: Measured = { scenario, total: [], authorizer: [], fn: [], secrets: [], firstSecrets, breakdown: { authorizer: '', fn: '' }, transactions: 0, retries: 0 };
  for (let i = 0; i < runs; i++) {
    const calls = await viaGateway();
    m.total.push(dynamo(calls).length);
    m.secrets.push(secrets(calls).length);
    const r = await direct();
    m.authorizer.push(dynamo(r.authorizerCalls).length);
    m.fn.push(dynamo(r.functionCalls).length);
    m.secrets.push(secrets([...r.authorizerCalls, ...r.functionCalls]).length);
    m.breakdown = { authorizer: ops(dynamo(r.authorizerCalls)), fn: ops(dynamo(r.functionCalls)) };
    m.transactions = Math.max(m.transactions, dynamo(r.functionCalls).filter((c) => c.operation === 'TransactWriteItems').length);
    m.retries += [...calls, ...r.authorizerCalls, ...r.functionCalls].reduce((n, c) => n + c.retries, 0);
  }
  return m;
}

/** `2`, or `2–3` when runs differ. */
const range = (values: number[]) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
};

/** `signed in (member token): genres.list, themes.list; …` */
function overVariants(list: readonly Measured[]): string {
  const byVariant = new Map<string, string[]>();
  for (const m of list) byVariant.set(m.scenario.variant, [...(byVariant.get(m.scenario.variant) ?? []), m.scenario.route.name]);
  return [...byVariant].map(([variant, names]) => `${variant}: ${names.join(', ')}`).join('; ');
}

export async function callsSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const runs = opts.quick ? 2 : 5;
  const { scenarios: list, skipped } = scenarios(env);
  const results: Measured[] = [];
  for (const s of list) results.push(await measure(env, s, runs));

  const rows = results.map((m) => {
    const { route } = m.scenario;
    const total = Math.max(...m.total);
    const consistent = m.total.every((t, i) => t === (m.authorizer[i] ?? 0) + (m.fn[i] ?? 0));
    const budget = isRead(m.scenario) ? '≤ 2' : '1 transaction';
    const ok = isRead(m.scenario) ? total <= 2 : m.transactions === 1;
    return [
      route.name,
      `${route.method} ${route.path}`,
      m.scenario.variant,
      needsAuthorizer(route) ? `${range(m.authorizer)} (${m.breakdown.authorizer})` : 'not attached',
      `${range(m.fn)} (${m.breakdown.fn})`,
      `${range(m.total)}${consistent ? '' : ' ≠ sum'}`,
      range(m.secrets),
      budget,
      ok ? 'ok' : '**over**',
    ];
  });

  const reads = results.filter((m) => isRead(m.scenario));
  const writes = results.filter((m) => !isRead(m.scenario));
  const overReads = reads.filter((m) => Math.max(...m.total) > 2);
  const maxRead = Math.max(0, ...reads.map((m) => Math.max(...m.total)));
  const warmSecrets = Math.max(0, ...results.flatMap((m) => m.secrets));
  const badWrites = writes.filter((m) => m.transactions !== 1);
  const inconsistent = results.filter((m) => !m.total.every((t, i) => t === (m.authorizer[i] ?? 0) + (m.fn[i] ?? 0)));
  const retries = results.reduce((n, m) => n + m.retries, 0);

  const writeTotals = new Map<string, Set<number>>();
  for (const m of writes) {
    // Catalogue writes by operation (genres.create, themes.create, … together), the others by route.
    const [segment, crud] = m.scenario.route.name.split('.');
    const op = segment && crud && CATALOGUE_SEGMENTS.has(segment) ? crud : m.scenario.route.name;
    const set = writeTotals.get(op) ?? new Set<number>();
    m.total.forEach((t) => set.add(t));
    writeTotals.set(op, set);
  }
  const writeSummary = [...writeTotals].map(([op, set]) => `${op} ${[...set].join('/')}`).join(', ');

  const budgets: BudgetCheck[] = [
    {
      name: 'DynamoDB calls per read request (authorizer + function)',
      measured: `max ${maxRead}${overReads.length ? `; over: ${overVariants(overReads)}` : ''}`,
      limit: '≤ 2',
      ok: overReads.length === 0,
    },
    {
      name: 'Transactions per write request',
      measured: badWrites.length === 0 ? '1 for every write' : badWrites.map((m) => `${m.scenario.route.name}: ${m.transactions}`).join('; '),
      limit: '1 (DESIGN §4)',
      ok: badWrites.length === 0,
    },
    { name: 'DynamoDB calls per write request (authorizer + function)', measured: writeSummary || 'no writes', limit: '—', ok: null },
    { name: 'Secrets Manager calls per warm request', measured: String(warmSecrets), limit: '0', ok: warmSecrets === 0 },
  ];

  const firstUse = results.filter((m) => m.firstSecrets.length > 0);
  const body = [
    table(['Route', 'Request', 'Variant', 'Authorizer', 'Function', 'Total via gateway', 'Secrets Manager (warm)', 'Budget', 'Result'], rows),
    '',
    'Authorizer and Function: DynamoDB calls when the authorizer and the function are invoked directly with the',
    'events the gateway sends, with the operations made (`TransactWriteItems[n]`: a transaction of n items).',
    'Total via gateway: the calls of the same request sent over HTTP to the local gateway (authorizer + function).',
    inconsistent.length ? `**Mismatch between the total and the sum for:** ${inconsistent.map((m) => m.scenario.route.name).join(', ')}.` : 'The total via the gateway equals authorizer + function for every request.',
    '',
    `SDK retries during the measured runs: ${retries}.`,
    '',
    `Secrets Manager calls since the runtime started: ${env.sdk.secretFetches.length} (${env.sdk.secretFetches.join(', ') || 'none'}), each on the first use of a secret in this process (signing the callers' tokens and the first requests; cached afterwards).` +
      (firstUse.length
        ? ` First requests of a variant that fetched a secret: ${firstUse.map((m) => `${m.scenario.route.name} (${m.scenario.variant}): ${m.firstSecrets.map((c) => String(c.input.SecretId)).join(', ')}`).join('; ')}.`
        : '') +
      ' On AWS each function container fetches the secrets it uses once, on its first request, and again after the cache age (5 minutes for the JWT keys, 1 hour for the cursor key).',
    '',
    ...(skipped.length ? ['Routes not exercised:', '', ...skipped.map((s) => `- ${s.route.name} (${s.route.method} ${s.route.path}): ${s.reason}`), ''] : []),
    ...(overReads.length
      ? [
          'Reads over budget:',
          '',
          ...overReads.map((m) => `- ${m.scenario.route.name}, ${m.scenario.variant}: authorizer ${m.breakdown.authorizer}; function ${m.breakdown.fn}`),
          '',
        ]
      : []),
  ].join('\n');

  return {
    method: [
      `Every declared route (${ROUTES.length}; the catch-all is the default route, not a declared one) with realistic requests, successful unless the variant says otherwise; write routes get a fresh record (a new address, a pending account, an unspent refresh token) for each run and send no If-Match. Rate limits are off (\`RATE_LIMITS=off\`).`,
      `Per variant: one warm-up request (not counted), then ${runs} runs through the gateway and ${runs} direct invocations; figures are per request (a range when runs differ).`,
      'Calls are counted by a middleware at the start of the `initialize` step of the shared DynamoDB document client and the Secrets Manager client (one count per logical call; SDK retries are reported apart).',
      'Budget (DESIGN §9): every read ≤ 2 DynamoDB calls per request, authorizer included; writes are reported (DESIGN §4: one transaction per write). `tokens.verify` and a refused sign-in write nothing and count as reads.',
    ],
    body,
    budgets,
    summary: [
      `calls: reads max ${maxRead} per request${overReads.length ? ` (${overReads.length} variant(s) over 2)` : ''}; writes ${writeSummary}; warm Secrets Manager calls ${warmSecrets}`,
    ],
  };
}
