/**
 * Data files of function packages: files a function reads at run time instead of importing them
 * as code (infra/aws/package-files.ts writes them beside the package's modules; package-file.ts
 * reads them). Code that reads one tests `typeof FUNCTION_PACKAGE !== 'undefined'`: true in a
 * package (bundling.ts defines FUNCTION_PACKAGE), false when the sources run (tsx: the local
 * runtime, the tests, the tools); esbuild drops the branch of the other case from packages.
 */

declare global {
  /** `true` in a function package; not defined when the sources run. */
  const FUNCTION_PACKAGE: true | undefined;
}

/** The names of the data files. */
export const PACKAGE_FILES = {
  /** The season refresh job's bangumi-data set (shared/domain/bangumi-data.ts). */
  bangumiData: 'bangumi-data.json',
  /** The OpenAPI document, servers apart (functions/support/schema.ts). */
  openApi: 'openapi.json',
  /** The method and path of every declared route (functions/catch-all/handler.ts). */
  routeTable: 'routes.json',
} as const;
