/**
 * How every function is bundled for Lambda, in one place: the CDK app (function.ts, through
 * NodejsFunction) and the benchmark (test/bench/bundles.ts, through esbuild's API) both read it.
 * ESM for Node 22, minified, the AWS SDK inside, a source map without sources.
 */
export const BUNDLE_TARGET = 'node22';
export const MAIN_FIELDS = ['module', 'main'];

/** CommonJS dependencies bundled into an ES module still call `require`: give them one. */
export const REQUIRE_BANNER = "import { createRequire as __cjsRequire } from 'node:module'; const require = __cjsRequire(import.meta.url);";

/** Replaces the SDK's default credential chain in bundles (see the shim's comment). */
export const CREDENTIALS_SHIM = 'infra/aws/shims/credential-provider-node.ts';
export const ALIASES = (repoRoot: string): Record<string, string> => ({
  '@aws-sdk/credential-provider-node': `${repoRoot}${CREDENTIALS_SHIM}`,
});

/** The same settings as esbuild API options. */
export function esbuildOptions(repoRoot: string) {
  return {
    bundle: true,
    platform: 'node' as const,
    target: BUNDLE_TARGET,
    format: 'esm' as const,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: MAIN_FIELDS,
    banner: { js: REQUIRE_BANNER },
    alias: ALIASES(repoRoot),
  };
}
