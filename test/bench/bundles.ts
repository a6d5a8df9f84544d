/**
 * §9 "Cold start": every function (each declared route, the authorizer, the catch-all, the jobs,
 * the stream consumers) is packaged exactly as the CDK app packages it for Lambda
 * (infra/aws/bundling.ts bundleFunction: a directory with index.mjs, the chunks it reaches and its
 * data files). Reported per function: the JavaScript the package ships (every chunk, not only the
 * entry), the time to import its handler in a fresh Node process against an empty function
 * packaged the same way, and flags for any function over 300 KB or over a 30 ms median import.
 *
 * Then the end-to-end cold start of a detail GET (`GET /api/animes/{id}/`) against DynamoDB
 * Local: a fresh Node process imports the package's handler and serves its first request (time
 * to first response, split into Node's start, the module load and the first invocation, which
 * also loads what the function imports on first use), then the same request warm.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { version as esbuildVersion } from 'esbuild';
import { JOBS } from '../../functions/jobs/registry.js';
import { AUTHORIZER_ENTRY, CATCH_ALL_ENTRY, ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { bundleFunctionAsync, ENTRY_FILE, esbuildOptions, type FunctionPackage } from '../../infra/aws/bundling.js';
import { packageFiles } from '../../infra/aws/package-files.js';
import { routeEntry } from '../../shared/http/route.js';
import { writeBody } from './fixtures.js';
import { prepareEvent } from './invoke.js';
import type { BenchEnv } from './local.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { eachLimit, kb, median, ms, ratio, table } from './stats.js';

/** DESIGN.md §9: no function ships more JavaScript than this (minified, every chunk of its package). */
export const BUNDLE_LIMIT = 300 * 1024;
/** Issue 9 §6: a function's module load (the median import of its handler in a fresh process). */
export const LOAD_LIMIT_MS = 30;
/** The function whose cold start is measured end to end. */
export const COLD_ROUTE = 'animes.get';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMPTY = '(empty function)';
const SDK_ONLY = '(reference: DynamoDB document client only)';
/** A function that only makes a GetItem with the document client, imported with the handler. */
const SDK_FLOOR = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => (await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))).Item;
`;
const run = promisify(execFile);

/** The esbuild options of the function packages (infra/aws/bundling.ts, as the CDK app uses them). */
export const LAMBDA_BUNDLING = esbuildOptions(REPO_ROOT);

interface Bundle {
  name: string;
  entry: string;
  dir: string;
  pkg: FunctionPackage;
  /** gzip size of the shipped JavaScript. */
  gzip: number;
  /** Bytes of the package's data files (not code). */
  dataBytes: number;
  /** Import times of index.mjs: plain, with --enable-source-maps, and of every chunk of the package. */
  loads: number[];
  mapped: number[];
  whole: number[];
}

/** The functions that get a package: every declared route, the authorizer, the catch-all, the jobs and the stream consumers. */
function functionEntries(): { name: string; entry: string }[] {
  return [
    ...ROUTES.map((r) => ({ name: r.name, entry: routeEntry(r) })),
    { name: 'authorizer', entry: AUTHORIZER_ENTRY },
    { name: 'catch-all', entry: CATCH_ALL_ENTRY },
    ...JOBS.map((j) => ({ name: `job.${j.name}`, entry: j.entry })),
    ...STREAM_CONSUMERS.map((c) => ({ name: `stream.${c.name}`, entry: c.entry })),
  ];
}

const CHILD_ENV = { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', TABLE_NAME: 'catalogue', NODE_OPTIONS: '' };

/**
 * Time to import `files` (in order) in a fresh Node process (ms), measured inside that process.
 * Nothing is invoked, so no handler reaches the network.
 */
async function loadTime(files: readonly string[], sourceMaps: boolean): Promise<number> {
  const script = 'const t = performance.now(); for (const f of JSON.parse(process.env.BENCH_MODULES)) await import(f); process.stdout.write(String(performance.now() - t));';
  const flags = sourceMaps ? ['--enable-source-maps'] : [];
  const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', script], {
    env: { ...CHILD_ENV, BENCH_MODULES: JSON.stringify(files.map((f) => pathToFileURL(f).href)) },
    cwd: tmpdir(),
  });
  const value = Number(stdout.trim());
  if (!Number.isFinite(value)) throw new Error(`unexpected output from loading ${files.join(', ')}: ${stdout}`);
  return value;
}

/** Where a bundle input comes from: its package (node_modules) or project folder, and a folder inside it. */
function origin(input: string): { source: string; folder: string } {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
  if (m) {
    const rest = m[2]!.split('/');
    return { source: m[1]!, folder: rest.length > 1 ? rest.slice(0, Math.min(rest.length - 1, 3)).join('/') : '.' };
  }
  const parts = input.replace(/^(\.\.\/)+/, '').split('/');
  return { source: parts.slice(0, 2).join('/'), folder: parts.length > 3 ? parts.slice(2, -1).join('/') : '.' };
}

interface Contribution {
  source: string;
  /** Bytes in each package that contains it. */
  bytes: number[];
  /** Bytes per folder inside the source, in the package where it is largest. */
  folders: Map<string, number>;
}

/** What the function packages are made of (every shipped chunk), per npm package or project folder, largest first. */
function contributions(packages: readonly FunctionPackage[]): Contribution[] {
  const bySource = new Map<string, Contribution>();
  for (const pkg of packages) {
    const perSource = new Map<string, { bytes: number; folders: Map<string, number> }>();
    for (const key of pkg.outputs) {
      if (!key.endsWith('.mjs')) continue;
      for (const [input, { bytesInOutput }] of Object.entries(pkg.metafile.outputs[key]?.inputs ?? {})) {
        const { source, folder } = origin(input);
        const entry = perSource.get(source) ?? { bytes: 0, folders: new Map<string, number>() };
        entry.bytes += bytesInOutput;
        entry.folders.set(folder, (entry.folders.get(folder) ?? 0) + bytesInOutput);
        perSource.set(source, entry);
      }
    }
    for (const [source, { bytes, folders }] of perSource) {
      if (bytes === 0) continue;
      const c = bySource.get(source) ?? { source, bytes: [], folders };
      if (bytes > Math.max(0, ...c.bytes)) c.folders = folders;
      c.bytes.push(bytes);
      bySource.set(source, c);
    }
  }
  return [...bySource.values()].sort((a, b) => median(b.bytes) - median(a.bytes));
}

/** The shipped .mjs files of a package, the entry first. */
function modules(b: Bundle): string[] {
  const files = readdirSync(b.dir).filter((f) => f.endsWith('.mjs') && f !== ENTRY_FILE);
  return [ENTRY_FILE, ...files.sort()].map((f) => join(b.dir, f));
}

interface ColdRun {
  /** Node's own start: from the process's time origin to the first line of the script. */
  start: number;
  load: number;
  first: number;
  status: number;
  warm: number[];
}

/**
 * One cold start of the package at `dir` in a fresh Node process: import the handler, serve
 * `event` once (the first request), then `warm` more times. The function's environment is the
 * local runtime's (DynamoDB Local); its log lines go to stdout and are skipped.
 */
async function coldRun(dir: string, event: unknown, functionEnv: Record<string, string>, warm: number, sourceMaps: boolean): Promise<ColdRun> {
  const script = `
const start = performance.now();
const { handler } = await import(process.env.BENCH_MODULE);
const loaded = performance.now();
const event = JSON.parse(process.env.BENCH_EVENT);
const context = (n) => ({ callbackWaitsForEmptyEventLoop: true, functionName: ${JSON.stringify(COLD_ROUTE)}, functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench', memoryLimitInMB: '1024', awsRequestId: 'bench-' + n, logGroupName: 'bench', logStreamName: 'bench', getRemainingTimeInMillis: () => 30000, done() {}, fail() {}, succeed() {} });
const first = await handler(structuredClone(event), context(0));
const served = performance.now();
const warm = [];
for (let i = 1; i <= ${warm}; i++) {
  const t = performance.now();
  const r = await handler(structuredClone(event), context(i));
  warm.push(performance.now() - t);
  if (r.statusCode !== first.statusCode) throw new Error('warm request: ' + r.statusCode);
}
process.stdout.write('\\nBENCH_RESULT ' + JSON.stringify({ start, load: loaded - start, first: served - loaded, status: first.statusCode, warm }) + '\\n');
process.exit(0);
`;
  const { stdout } = await run(process.execPath, [...(sourceMaps ? ['--enable-source-maps'] : []), '--input-type=module', '-e', script], {
    env: { ...functionEnv, PATH: process.env.PATH ?? '', NODE_OPTIONS: '', BENCH_MODULE: pathToFileURL(join(dir, ENTRY_FILE)).href, BENCH_EVENT: JSON.stringify(event) },
    cwd: tmpdir(),
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
  if (!line) throw new Error(`cold start of ${COLD_ROUTE}: no result in ${stdout.slice(-500)}`);
  const result = JSON.parse(line.slice('BENCH_RESULT '.length)) as ColdRun;
  if (result.status !== 200) throw new Error(`cold start of ${COLD_ROUTE}: status ${result.status}`);
  return result;
}

export async function bundlesSection(env: BenchEnv, opts: BenchOptions): Promise<SectionBody> {
  const runs = opts.quick ? 3 : 10;
  const dir = join(tmpdir(), `catalogue-bundles-${process.pid}`);
  // The generated references are built from inside the repository, so that they resolve its packages.
  const generated = join(REPO_ROOT, 'node_modules', '.cache', `catalogue-bench-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(generated, { recursive: true });
  try {
    writeFileSync(join(generated, 'empty-function.ts'), 'export const handler = async () => ({ statusCode: 200 });\n');
    writeFileSync(join(generated, 'sdk-floor.ts'), SDK_FLOOR);
    const rel = (f: string) => join('node_modules', '.cache', `catalogue-bench-${process.pid}`, f);
    const entries = [
      ...functionEntries(),
      { name: EMPTY, entry: rel('empty-function.ts') },
      { name: SDK_ONLY, entry: rel('sdk-floor.ts') },
    ];
    const started = Date.now();
    const bundles: Bundle[] = [];
    await eachLimit(entries.entries(), 3, async ([i, e]) => {
      const out = join(dir, `f${i}`);
      const pkg = await bundleFunctionAsync(REPO_ROOT, e.entry, out, packageFiles(e.entry));
      const js = readdirSync(out).filter((f) => f.endsWith('.mjs'));
      const gzip = js.reduce((sum, f) => sum + gzipSync(readFileSync(join(out, f))).length, 0);
      const dataBytes = pkg.files.filter((f) => !f.name.endsWith('.mjs') && !f.name.endsWith('.map')).reduce((s, f) => s + f.bytes, 0);
      bundles[i] = { name: e.name, entry: e.entry.startsWith('node_modules') ? '(generated)' : e.entry, dir: out, pkg, gzip, dataBytes, loads: [], mapped: [], whole: [] };
    });
    const buildSeconds = (Date.now() - started) / 1000;

    // Round-robin over the packages, so background load spreads over all of them.
    for (let r = 0; r < runs; r++) {
      for (const b of bundles) {
        b.loads.push(await loadTime([join(b.dir, ENTRY_FILE)], false));
        b.mapped.push(await loadTime([join(b.dir, ENTRY_FILE)], true));
        b.whole.push(await loadTime(modules(b), false));
      }
    }

    const empty = bundles.find((b) => b.name === EMPTY)!;
    const emptyLoad = median(empty.loads);
    const sdkOnly = bundles.find((b) => b.name === SDK_ONLY)!;
    const references = [empty, sdkOnly];
    const functions = bundles.filter((b) => !references.includes(b)).sort((a, b) => a.name.localeCompare(b.name));
    const overSize = (b: Bundle) => b.pkg.jsBytes > BUNDLE_LIMIT;
    const overLoad = (b: Bundle) => median(b.loads) > LOAD_LIMIT_MS;
    const flags = (b: Bundle) => [overSize(b) ? '**over 300 KB**' : '', overLoad(b) ? `**over ${LOAD_LIMIT_MS} ms**` : ''].filter(Boolean).join(', ') || 'ok';
    const rows = [...references, ...functions].map((b) => {
      const load = median(b.loads);
      return [
        b.name,
        b.entry,
        kb(b.pkg.jsBytes),
        `${kb(b.pkg.entryBytes)} + ${b.pkg.outputs.length - 1}`,
        kb(b.gzip),
        b.dataBytes > 0 ? kb(b.dataBytes) : '—',
        ms(load, 1),
        b === empty ? '—' : `+${ms(load - emptyLoad, 1)}`,
        ms(median(b.mapped), 1),
        ms(median(b.whole), 1),
        references.includes(b) ? 'reference' : flags(b),
      ];
    });

    // The end-to-end cold start of a detail GET.
    const cold = await coldStart(env, bundles.find((b) => b.name === COLD_ROUTE)!, opts);

    const sizes = functions.map((b) => b.pkg.jsBytes);
    const loads = functions.map((b) => median(b.loads));
    const largest = [...functions].sort((a, b) => b.pkg.jsBytes - a.pkg.jsBytes)[0]!;
    const smallest = [...functions].sort((a, b) => a.pkg.jsBytes - b.pkg.jsBytes)[0]!;
    const slowest = [...functions].sort((a, b) => median(b.loads) - median(a.loads))[0]!;
    const tooLarge = functions.filter(overSize);
    const tooSlow = functions.filter(overLoad);
    const partRows = contributions(functions.map((b) => b.pkg))
      .slice(0, 12)
      .map((c) => {
        const [folder, bytes] = [...c.folders].sort((x, y) => y[1] - x[1])[0] ?? ['.', 0];
        return [c.source, `${c.bytes.length} / ${functions.length}`, kb(median(c.bytes)), `${folder} (${kb(bytes)})`];
      });
    const body = [
      table(['Function', 'Entry', 'JavaScript shipped', 'index.mjs + chunks', 'gzip', 'Data files', 'Import (median)', 'vs empty', 'Import, --enable-source-maps', 'Import, every chunk', `≤ 300 KB, ≤ ${LOAD_LIMIT_MS} ms`], rows),
      '',
      `${functions.length} packages built in ${buildSeconds.toFixed(1)} s. JavaScript shipped per package (every chunk): min ${kb(smallest.pkg.jsBytes)} (${smallest.name}), median ${kb(median(sizes))}, max ${kb(largest.pkg.jsBytes)} (${largest.name}); ${tooLarge.length} over 300 KB.`,
      `Import time of the handler (index.mjs and its static imports): median ${ms(median(loads), 1)} against ${ms(emptyLoad, 1)} for the empty function; slowest ${slowest.name} ${ms(median(slowest.loads), 1)}; ${tooSlow.length} over ${LOAD_LIMIT_MS} ms. With \`--enable-source-maps\` (as deployed): median ${ms(median(functions.map((b) => median(b.mapped))), 1)}. Every chunk of the package imported (what a function would load if nothing waited for first use): median ${ms(median(functions.map((b) => median(b.whole))), 1)}.`,
      ...(tooSlow.length > 0
        ? [
            `${tooSlow.length} functions import in over ${LOAD_LIMIT_MS} ms (median): the written reason is docs/decisions.md W10 (what remains is Node's built-in modules, compiling, and zod building the schemas at module load; nothing a function does not use). Compare with the empty function's time on the same run: the machine's load moves both.`,
          ]
        : []),
      `Reference: a function that imports the bundled DynamoDB document client with its handler and does one GetItem is ${kb(sdkOnly.pkg.jsBytes)} and imports in ${ms(median(sdkOnly.loads), 1)}; the functions import the client on their first table call (docs/decisions.md W3).`,
      '',
      'Where the bytes come from: minified bytes per npm package (or project folder) in the packages that contain it (every shipped chunk), and its largest folder.',
      '',
      table(['Package or folder', 'In packages', 'Bytes per package (median)', 'Largest folder inside'], partRows),
      '',
      `### Cold start of a detail GET, end to end (\`GET /api/animes/{id}/\`, ${COLD_ROUTE})`,
      '',
      cold.body,
      '',
    ].join('\n');
    return {
      method: [
        `Each function is packaged by infra/aws/bundling.ts bundleFunction (as the CDK app does): esbuild ${esbuildVersion}, ${Object.entries(LAMBDA_BUNDLING)
          .filter(([k]) => ['format', 'target', 'splitting', 'minify', 'mainFields'].includes(k))
          .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
          .join(', ')}; the AWS SDK bundled, not external. Size: every .mjs file the package ships (index.mjs and each chunk it reaches by static or dynamic import); source maps and data files are not counted as JavaScript (data files are listed apart). KB of 1,024 bytes; gzip at the default level, summed over the files.`,
        `Import time: \`await import(index.mjs)\` timed with performance.now() inside a fresh \`node\` process (${process.version}, the local Node, not Lambda's node22): plain, with \`--enable-source-maps\` (the functions' NODE_OPTIONS on AWS), and every chunk of the package imported one after the other; ${runs} runs each per function, round-robin over the functions; median. The empty function (\`export const handler = async () => ({ statusCode: 200 })\`) packaged the same way is the baseline. Limits: ${BUNDLE_LIMIT / 1024} KB of JavaScript (DESIGN.md §9) and a median import of ${LOAD_LIMIT_MS} ms (issue 9 §6), both flagged per function.`,
        'No handler is invoked in the import measures: they are the module-initialisation part of a cold start (no network, no secrets). The end-to-end measure below invokes one.',
        ...cold.method,
      ],
      body,
      budgets: [
        {
          name: 'Function packages over 300 KB of JavaScript',
          measured: tooLarge.length === 0 ? `none (largest ${largest.name} ${kb(largest.pkg.jsBytes)})` : tooLarge.map((b) => `${b.name} ${kb(b.pkg.jsBytes)}`).join(', '),
          limit: '0 without a written reason',
          ok: tooLarge.length === 0,
        },
        {
          name: `Functions whose handler imports in over ${LOAD_LIMIT_MS} ms (median)`,
          measured: tooSlow.length === 0 ? `none (slowest ${slowest.name} ${ms(median(slowest.loads), 1)}; median ${ms(median(loads), 1)} vs empty ${ms(emptyLoad, 1)})` : tooSlow.map((b) => `${b.name} ${ms(median(b.loads), 1)}`).join(', '),
          limit: `0 (median import ≤ ${LOAD_LIMIT_MS} ms)`,
          ok: tooSlow.length === 0,
        },
        { name: 'Module load time vs empty function (median of functions)', measured: `${ms(median(loads), 1)} vs ${ms(emptyLoad, 1)} (${ratio(median(loads) / emptyLoad)})`, limit: '—', ok: null },
        cold.budget,
      ],
      summary: [
        `bundles: ${functions.length} packages; JavaScript min ${kb(smallest.pkg.jsBytes)} / median ${kb(median(sizes))} / max ${kb(largest.pkg.jsBytes)} (${tooLarge.length} over 300 KB); import median ${ms(median(loads), 1)} vs empty ${ms(emptyLoad, 1)}, slowest ${ms(median(slowest.loads), 1)} (${tooSlow.length} over ${LOAD_LIMIT_MS} ms)`,
        cold.summary,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(generated, { recursive: true, force: true });
  }
}

/** The end-to-end cold start of GET /api/animes/{id}/ from its package, against the local runtime's DynamoDB Local. */
async function coldStart(env: BenchEnv, bundle: Bundle, opts: BenchOptions) {
  const runs = opts.quick ? 3 : 10;
  const warm = opts.quick ? 20 : 50;
  const { token } = await env.user('administrator');
  const { json } = await env.http.expect<{ id: string }>(201, 'POST', '/api/animes/', {
    headers: { authorization: `Bearer ${token}` },
    body: writeBody('animes', `Cold start ${process.pid}`),
  });
  const path = `/api/animes/${json.id}/`;
  const { event } = prepareEvent({ method: 'GET', path }, env.host);
  const functionEnv = env.runtime.env;
  const plain: ColdRun[] = [];
  const mapped: ColdRun[] = [];
  for (let r = 0; r < runs; r++) {
    plain.push(await coldRun(bundle.dir, event, functionEnv, warm, false));
    mapped.push(await coldRun(bundle.dir, event, functionEnv, warm, true));
  }
  const row = (label: string, rs: ColdRun[]) => {
    const total = rs.map((r) => r.start + r.load + r.first);
    const warmAll = rs.flatMap((r) => r.warm);
    return [label, ms(median(rs.map((r) => r.start)), 1), ms(median(rs.map((r) => r.load)), 1), ms(median(rs.map((r) => r.first)), 1), ms(median(total), 1), ms(median(warmAll), 2), ratio(median(total) / median(warmAll))];
  };
  const firstMedian = median(plain.map((r) => r.first));
  const warmMedian = median(plain.flatMap((r) => r.warm));
  const loadMedian = median(plain.map((r) => r.load));
  const totalMedian = median(plain.map((r) => r.start + r.load + r.first));
  const body = [
    table(['Node flags', 'Node start', 'Module load', 'First invocation', 'Time to first response', 'Warm invocation (median)', 'Cold / warm'], [row('none', plain), row('--enable-source-maps (as deployed)', mapped)]),
    '',
    `The first invocation (${ms(firstMedian, 1)}) is ${ms(firstMedian - warmMedian, 1)} more than a warm one (${ms(warmMedian, 2)}): it imports the DynamoDB client chunk (${kb(bundle.pkg.metafile.outputs[bundle.pkg.outputs.find((k) => /\/sdk-[A-Z0-9]+\.mjs$/.test(k)) ?? '']?.bytes ?? 0)} and the chunks it imports), creates the client, opens the first connection and compiles the request path. Loading the client on first use moves that import from the module load to the first request; the end-to-end figure (${ms(totalMedian, 1)}) counts both.`,
  ].join('\n');
  return {
    body,
    method: [
      `Cold start end to end: the ${COLD_ROUTE} package in a fresh \`node\` process with the local runtime's function environment (DynamoDB Local): import index.mjs (module load), invoke the handler once with the payload 2.0 event of \`GET ${'/api/animes/{id}/'}\` for an anime created before (first invocation, to the response), then ${warm} more invocations of the same event (warm). "Node start" is the time from the process's time origin to the script's first line. ${runs} processes with and ${runs} without \`--enable-source-maps\`; medians.`,
    ],
    budget: {
      name: `Cold start of GET /api/animes/{id}/ (fresh process, first request) vs warm`,
      measured: `${ms(totalMedian, 1)} to first response (module load ${ms(loadMedian, 1)}, first invocation ${ms(firstMedian, 1)}) vs ${ms(warmMedian, 2)} warm`,
      limit: '—',
      ok: null,
    },
    summary: `cold start ${COLD_ROUTE}: ${ms(totalMedian, 1)} to first response (Node start ${ms(median(plain.map((r) => r.start)), 1)}, load ${ms(loadMedian, 1)}, first invocation ${ms(firstMedian, 1)}); warm ${ms(warmMedian, 2)}`,
  };
}
