/**
 * §9 "Cold start": every function entry (each declared route, the authorizer, the catch-all) is
 * bundled as the CDK app bundles it for Lambda (esbuild: bundle, platform node, target node22,
 * ESM, minified, AWS SDK bundled, `module` before `main`, a createRequire banner). Reported: the
 * minified and gzip sizes, and the time to import the bundle in a fresh Node process, against an
 * empty function bundled the same way.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion, type Metafile } from 'esbuild';
import { JOBS } from '../../functions/jobs/registry.js';
import { AUTHORIZER_ENTRY, CATCH_ALL_ENTRY, ROUTES } from '../../functions/registry.js';
import { STREAM_CONSUMERS } from '../../functions/streams/registry.js';
import { esbuildOptions } from '../../infra/aws/bundling.js';
import { routeEntry } from '../../shared/http/route.js';
import type { BenchOptions } from './options.js';
import type { SectionBody } from './report.js';
import { kb, median, ms, ratio, table } from './stats.js';

export const BUNDLE_LIMIT = 300 * 1024;
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMPTY = '(empty function)';
const SDK_ONLY = '(reference: DynamoDB document client only)';
/** A function that only makes a GetItem with the document client: the floor set by the bundled SDK. */
const SDK_FLOOR = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => (await doc.send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }))).Item;
`;
const run = promisify(execFile);

/** The esbuild options of the Lambda bundles (infra/aws/bundling.ts, as the CDK app uses them). */
export const LAMBDA_BUNDLING = esbuildOptions(REPO_ROOT);

interface Bundle {
  name: string;
  entry: string;
  file: string;
  bytes: number;
  gzip: number;
  loads: number[];
  /** Import times with --enable-source-maps. */
  mapped: number[];
}

/** The functions that get a bundle: every declared route, the authorizer, the catch-all, the jobs and the stream consumers. */
function functionEntries(): { name: string; entry: string }[] {
  return [
    ...ROUTES.map((r) => ({ name: r.name, entry: routeEntry(r) })),
    { name: 'authorizer', entry: AUTHORIZER_ENTRY },
    { name: 'catch-all', entry: CATCH_ALL_ENTRY },
    ...JOBS.map((j) => ({ name: `job.${j.name}`, entry: j.entry })),
    ...STREAM_CONSUMERS.map((c) => ({ name: `stream.${c.name}`, entry: c.entry })),
  ];
}

/** Time to import `file` in a fresh Node process (ms), measured inside that process. */
async function loadTime(file: string, sourceMaps: boolean): Promise<number> {
  const script = 'const t = performance.now(); await import(process.env.BENCH_MODULE); process.stdout.write(String(performance.now() - t));';
  const flags = sourceMaps ? ['--enable-source-maps'] : [];
  const { stdout } = await run(process.execPath, [...flags, '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', BENCH_MODULE: pathToFileURL(file).href, AWS_REGION: 'us-east-1', TABLE_NAME: 'catalogue', NODE_OPTIONS: '' },
    cwd: tmpdir(),
  });
  const value = Number(stdout.trim());
  if (!Number.isFinite(value)) throw new Error(`unexpected output from loading ${file}: ${stdout}`);
  return value;
}

/** Where a bundle input comes from: its package (node_modules) or project folder, and a folder inside it. */
function origin(input: string): { source: string; folder: string } {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
  if (m) {
    const rest = m[2]!.split('/');
    return { source: m[1]!, folder: rest.length > 1 ? rest.slice(0, Math.min(rest.length - 1, 3)).join('/') : '.' };
  }
  const parts = input.split('/');
  return { source: parts.slice(0, 2).join('/'), folder: parts.length > 3 ? parts.slice(2, -1).join('/') : '.' };
}

interface Contribution {
  source: string;
  /** Bytes in each bundle that contains it. */
  bytes: number[];
  /** Bytes per folder inside the source, in the bundle where it is largest. */
  folders: Map<string, number>;
}

/** What the function bundles are made of, per package or project folder, largest first. */
function contributions(meta: Metafile, outputs: readonly string[]): Contribution[] {
  const bySource = new Map<string, Contribution>();
  for (const key of outputs) {
    const perSource = new Map<string, { bytes: number; folders: Map<string, number> }>();
    for (const [input, { bytesInOutput }] of Object.entries(meta.outputs[key]?.inputs ?? {})) {
      const { source, folder } = origin(input);
      const entry = perSource.get(source) ?? { bytes: 0, folders: new Map<string, number>() };
      entry.bytes += bytesInOutput;
      entry.folders.set(folder, (entry.folders.get(folder) ?? 0) + bytesInOutput);
      perSource.set(source, entry);
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

export async function bundlesSection(opts: BenchOptions): Promise<SectionBody> {
  const runs = opts.quick ? 3 : 10;
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-bundles-'));
  try {
    const emptySource = join(dir, 'empty-function.ts');
    writeFileSync(emptySource, 'export const handler = async () => ({ statusCode: 200 });\n');
    const sdkSource = join(dir, 'sdk-floor.ts');
    writeFileSync(sdkSource, SDK_FLOOR);
    const entries = [
      ...functionEntries().map((e) => ({ ...e, path: join(REPO_ROOT, e.entry) })),
      { name: EMPTY, entry: '(generated)', path: emptySource },
      { name: SDK_ONLY, entry: '(generated)', path: sdkSource },
    ];
    const outdir = join(dir, 'out');
    const started = Date.now();
    const result = await build({
      ...LAMBDA_BUNDLING,
      mainFields: [...LAMBDA_BUNDLING.mainFields],
      entryPoints: Object.fromEntries(entries.map((e, i) => [`f${i}`, e.path])),
      outdir,
      outExtension: { '.js': '.mjs' },
      absWorkingDir: REPO_ROOT,
      // The generated references live outside the repository; they resolve packages from it.
      nodePaths: [join(REPO_ROOT, 'node_modules')],
      metafile: true,
      logLevel: 'silent',
    });
    const buildSeconds = (Date.now() - started) / 1000;
    const bundles: Bundle[] = entries.map((e, i) => {
      const file = join(outdir, `f${i}.mjs`);
      return { name: e.name, entry: e.entry, file, bytes: statSync(file).size, gzip: gzipSync(readFileSync(file)).length, loads: [], mapped: [] };
    });
    const metaKey = (i: number) => Object.keys(result.metafile.outputs).find((k) => k.endsWith(`/f${i}.mjs`)) ?? '';

    // Round-robin over the bundles, so background load spreads over all of them.
    for (let r = 0; r < runs; r++) {
      for (const b of bundles) {
        b.loads.push(await loadTime(b.file, false));
        b.mapped.push(await loadTime(b.file, true));
      }
    }
    const empty = bundles.find((b) => b.name === EMPTY)!;
    const emptyLoad = median(empty.loads);
    const sdkOnly = bundles.find((b) => b.name === SDK_ONLY)!;
    const references = [empty, sdkOnly];
    const functions = bundles.filter((b) => !references.includes(b)).sort((a, b) => a.name.localeCompare(b.name));
    const over = functions.filter((b) => b.bytes > BUNDLE_LIMIT);
    const rows = [...references, ...functions].map((b) => {
      const load = median(b.loads);
      return [
        b.name,
        b.entry,
        kb(b.bytes),
        kb(b.gzip),
        ms(load, 1),
        b === empty ? '—' : `+${ms(load - emptyLoad, 1)}`,
        b === empty ? '—' : ratio(load / emptyLoad),
        ms(median(b.mapped), 1),
        references.includes(b) ? `reference${b.bytes > BUNDLE_LIMIT ? ', over' : ''}` : b.bytes > BUNDLE_LIMIT ? '**over 300 KB**' : 'ok',
      ];
    });
    const largest = [...functions].sort((a, b) => b.bytes - a.bytes)[0]!;
    const slowest = [...functions].sort((a, b) => median(b.loads) - median(a.loads))[0]!;
    const parts = contributions(
      result.metafile,
      functions.map((b) => metaKey(bundles.indexOf(b))),
    ).slice(0, 12);
    const partRows = parts.map((c) => {
      const [folder, bytes] = [...c.folders].sort((x, y) => y[1] - x[1])[0] ?? ['.', 0];
      return [c.source, `${c.bytes.length} / ${functions.length}`, kb(median(c.bytes)), `${folder} (${kb(bytes)})`];
    });
    const sizes = functions.map((b) => b.bytes);
    const loads = functions.map((b) => median(b.loads));
    const body = [
      table(['Function', 'Entry', 'Minified', 'gzip', 'Import (median)', 'vs empty', 'Ratio', 'Import, --enable-source-maps', '≤ 300 KB'], rows),
      '',
      `${functions.length} bundles built in ${buildSeconds.toFixed(1)} s. Minified size: median ${kb(median(sizes))}, largest ${largest.name} ${kb(largest.bytes)}.`,
      `Import time: median ${ms(median(loads), 1)} against ${ms(emptyLoad, 1)} for the empty function; slowest ${slowest.name} ${ms(median(slowest.loads), 1)}. With \`--enable-source-maps\` (as deployed): median ${ms(median(functions.map((b) => median(b.mapped))), 1)}.`,
      `Reference: a function that only does a GetItem with the bundled DynamoDB document client is ${kb(sdkOnly.bytes)} minified and imports in ${ms(median(sdkOnly.loads), 1)}: the floor that bundling the AWS SDK (DESIGN §5) sets for every function that reads DynamoDB.`,
      '',
      'Where the bytes come from: minified bytes per package (or project folder) in the bundles that contain it, and its largest folder.',
      '',
      table(['Package or folder', 'In bundles', 'Bytes per bundle (median)', 'Largest folder inside'], partRows),
      '',
    ].join('\n');
    return {
      method: [
        `esbuild ${esbuildVersion}: ${Object.entries(LAMBDA_BUNDLING).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')}; the AWS SDK is bundled, not external. Sizes are of the .mjs file (the .map file beside it is not loaded unless source maps are enabled); sizes in KB of 1,024 bytes; gzip at the default level.`,
        `Import time: \`await import(bundle)\` timed with performance.now() inside a fresh \`node\` process (${process.version}, the local Node, not Lambda's node22), without and with \`--enable-source-maps\` (the functions' NODE_OPTIONS on AWS), ${runs} runs each per bundle, round-robin over the bundles; median. The empty function (\`export const handler = async () => ({ statusCode: 200 })\`) bundled the same way is the baseline.`,
        'No handler is invoked: this is the module-initialisation part of a cold start (no network, no secrets).',
      ],
      body,
      budgets: [
        {
          name: 'Bundles over 300 KB minified',
          measured:
            over.length === 0
              ? `none (largest ${largest.name} ${kb(largest.bytes)})`
              : over.length <= 3
                ? over.map((b) => `${b.name} ${kb(b.bytes)}`).join(', ')
                : `${over.length} of ${functions.length} (${kb(Math.min(...over.map((b) => b.bytes)))} to ${kb(largest.bytes)}; the DynamoDB client alone: ${kb(sdkOnly.bytes)})`,
          limit: '0 without a written reason',
          ok: over.length === 0,
        },
        { name: 'Module load time vs empty function (median of bundles)', measured: `${ms(median(loads), 1)} vs ${ms(emptyLoad, 1)} (${ratio(median(loads) / emptyLoad)})`, limit: '—', ok: null },
      ],
      summary: [
        `bundles: ${functions.length} built; largest ${largest.name} ${kb(largest.bytes)} (${over.length} over 300 KB); import median ${ms(median(loads), 1)} vs empty ${ms(emptyLoad, 1)}`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
