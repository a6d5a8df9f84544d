/**
 * The data files of function packages (shared/package.ts): files a function reads at run time
 * instead of importing them as code, written beside its modules when its package is built.
 */
import { createRequire } from 'node:module';
import { ROUTES } from '../../functions/registry.js';
import { openApiDocument } from '../../shared/openapi.js';
import { PACKAGE_FILES } from '../../shared/package.js';
import type { PackageFile } from './bundling.js';

const require = createRequire(import.meta.url);

const FILES: Readonly<Record<string, readonly PackageFile[]>> = {
  // The bangumi-data set (7 MB of JSON): parsed when the job runs, not loaded as a module.
  'functions/jobs/season-refresh.ts': [{ name: PACKAGE_FILES.bangumiData, from: require.resolve('bangumi-data') }],
  // The document of every declared route, its servers set per request.
  'functions/support/schema.ts': [{ name: PACKAGE_FILES.openApi, content: () => JSON.stringify(openApiDocument(ROUTES, '')) }],
  // Method and path of every declared route, for the answers of the default route.
  'functions/catch-all/handler.ts': [{ name: PACKAGE_FILES.routeTable, content: () => JSON.stringify(ROUTES.map(({ method, path }) => ({ method, path }))) }],
};

/** The data files of the function whose entry module is `entry`. */
export function packageFiles(entry: string): readonly PackageFile[] {
  return FILES[entry] ?? [];
}
