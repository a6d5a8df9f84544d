/**
 * How every function is packaged for Lambda, in one place: the CDK app (function.ts, as the
 * asset's local bundling) and the benchmark (test/bench/bundles.ts) both call bundleFunction().
 *
 * A package is a directory: `index.mjs` (the handler), the chunks it imports, their source maps
 * (without sources), and the data files the function reads (packageFiles()). esbuild writes ESM
 * for Node 22, minified, with the AWS SDK inside (DESIGN.md §5) and code splitting: a module a
 * function only imports with `import()` on first use (the DynamoDB client, token verification,
 * …) is a chunk of its own, so it is not loaded with the handler, only when first needed
 * (docs/decisions.md W3). A package ships only the chunks its entry reaches.
 */
import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { build, buildSync, type BuildOptions, type BuildResult, type Metafile } from 'esbuild';

export const BUNDLE_TARGET = 'node22';
export const MAIN_FIELDS = ['module', 'main'];

/** CommonJS dependencies bundled into an ES module still call `require`: give them one. */
export const REQUIRE_BANNER = "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);";

/** Replaces the SDK's default credential chain in bundles (see the shim's comment). */
export const CREDENTIALS_SHIM = 'infra/aws/shims/credential-provider-node.ts';
/** Replaces mnemonist's LRU cache, which the DynamoDB client's endpoint-discovery cache uses (see the shim's comment). */
export const LRU_SHIM = 'infra/aws/shims/lru-cache.ts';
export const ALIASES = (repoRoot: string): Record<string, string> => ({
  '@aws-sdk/credential-provider-node': `${repoRoot}${CREDENTIALS_SHIM}`,
  'mnemonist/lru-cache': `${repoRoot}${LRU_SHIM}`,
});

/**
 * Modules no function package carries. `@smithy/core/event-streams` is imported by the SDK's
 * protocol code only for operations with event streams, which DynamoDB and SES do not have.
 */
export const NEVER_SHIPPED = ['@smithy/core/event-streams'];

/**
 * The file name of the handler module in every package (the Lambda handler `index.handler`).
 */
export const ENTRY_FILE = 'index.mjs';

/**
 * `FUNCTION_PACKAGE` is `true` in a package, undeclared when the sources run (tsx: the local
 * runtime, the tests): code that reads a data file of its package (packageFiles()) tests
 * `typeof FUNCTION_PACKAGE !== 'undefined'`, and esbuild drops the other branch from the package.
 */
const DEFINE = { FUNCTION_PACKAGE: 'true' };

/** The esbuild options of every function package (the entry and the output directory apart). */
export function esbuildOptions(repoRoot: string) {
  return {
    bundle: true,
    platform: 'node' as const,
    target: BUNDLE_TARGET,
    format: 'esm' as const,
    splitting: true,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    legalComments: 'none' as const,
    mainFields: MAIN_FIELDS,
    banner: { js: REQUIRE_BANNER },
    alias: ALIASES(repoRoot),
    external: NEVER_SHIPPED,
    define: DEFINE,
    outExtension: { '.js': '.mjs' },
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
  } satisfies BuildOptions;
}

/** A file of a function's package that is not code: copied from the repository, or written at packaging. */
export interface PackageFile {
  /** Its path in the package, relative to index.mjs (e.g. `openapi.json`, `node_modules/<package>/<file>`). */
  name: string;
  /** Absolute path of the file to copy. */
  from?: string;
  /** Or its content, computed when the package is built. */
  content?: () => string;
}

export interface FunctionPackage {
  /** Every file of the package: name and size in bytes. */
  files: { name: string; bytes: number }[];
  /** The JavaScript the package ships (every .mjs file: the entry and its chunks). */
  jsBytes: number;
  /** The entry module alone (what is loaded before the first invocation). */
  entryBytes: number;
  /** esbuild's metafile (inputs and outputs of the build; what the bench reports the bytes of). */
  metafile: Metafile;
  /** The metafile keys of the shipped .mjs files. */
  outputs: string[];
}

/** The outputs an entry reaches through static and dynamic imports (esbuild also writes chunks of imports it later found dead). */
function reachable(meta: Metafile, entryKey: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entryKey];
  while (todo.length > 0) {
    const key = todo.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const imp of meta.outputs[key]?.imports ?? []) {
      if (!imp.external && meta.outputs[imp.path]) todo.push(imp.path);
    }
  }
  return seen;
}

function buildOptions(repoRoot: string, entry: string, outdir: string) {
  return {
    ...esbuildOptions(repoRoot),
    entryPoints: { index: join(repoRoot, entry) },
    outdir,
    absWorkingDir: repoRoot,
    metafile: true,
    write: false,
    logLevel: 'warning',
  } satisfies BuildOptions;
}

/** Writes what the entry reaches, and the package's data files. */
function writePackage(repoRoot: string, entry: string, outdir: string, result: BuildResult<ReturnType<typeof buildOptions>>, files: readonly PackageFile[]): FunctionPackage {
  const entryKey = Object.keys(result.metafile.outputs).find((k) => basename(k) === ENTRY_FILE);
  if (!entryKey) throw new Error(`no ${ENTRY_FILE} built for ${entry}`);
  const shipped = reachable(result.metafile, entryKey);
  const keyOf = new Map(Object.keys(result.metafile.outputs).map((k) => [join(repoRoot, k), k]));
  mkdirSync(outdir, { recursive: true });
  const out: FunctionPackage['files'] = [];
  let jsBytes = 0;
  for (const file of result.outputFiles) {
    const key = keyOf.get(file.path);
    // A source map goes with its module.
    const code = key?.endsWith('.map') ? key.slice(0, -'.map'.length) : key;
    if (!code || !shipped.has(code)) continue;
    writeFileSync(file.path, file.contents);
    out.push({ name: basename(file.path), bytes: file.contents.length });
    if (file.path.endsWith('.mjs')) jsBytes += file.contents.length;
  }
  for (const f of files) {
    const target = join(outdir, f.name);
    mkdirSync(dirname(target), { recursive: true });
    if (f.from) copyFileSync(f.from, target);
    else writeFileSync(target, f.content!());
    out.push({ name: f.name, bytes: statSync(target).size });
  }
  return {
    files: out,
    jsBytes,
    entryBytes: result.metafile.outputs[entryKey]!.bytes,
    metafile: result.metafile,
    outputs: [...shipped],
  };
}

/**
 * Builds the package of the function whose entry module is `entry` (relative to `repoRoot`)
 * into `outdir`, which must be empty or absent. Synchronous: the CDK calls it from an asset's
 * local bundling.
 */
export function bundleFunction(repoRoot: string, entry: string, outdir: string, files: readonly PackageFile[] = []): FunctionPackage {
  return writePackage(repoRoot, entry, outdir, buildSync(buildOptions(repoRoot, entry, outdir)), files);
}

/** bundleFunction() without blocking (the benchmark builds many packages at once). */
export async function bundleFunctionAsync(repoRoot: string, entry: string, outdir: string, files: readonly PackageFile[] = []): Promise<FunctionPackage> {
  return writePackage(repoRoot, entry, outdir, await build(buildOptions(repoRoot, entry, outdir)), files);
}
