/**
 * The data files of function packages (shared/package.ts): files a function reads at run time
 * instead of importing them as code, written beside its modules when its package is built.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROUTES } from '../../functions/registry.js';
import { openApiDocument } from '../../shared/openapi.js';
import { routeEntry } from '../../shared/http/route.js';
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

/**
 * The files of installed packages a route reads at run time (its declaration's `packageFiles`, e.g.
 * the docs page's renderer), at `node_modules/<package>/<file>` of its package, where module
 * resolution finds them as it finds the installed package locally.
 */
function routePackageFiles(entry: string): PackageFile[] {
  return ROUTES.filter((r) => r.packageFiles && routeEntry(r) === entry).flatMap((r) =>
    r.packageFiles!.flatMap((p) => {
      const dir = dirname(require.resolve(`${p.package}/package.json`));
      return p.files.map((file) => ({ name: `node_modules/${p.package}/${file}`, from: join(dir, file) }));
    }),
  );
}

/** The data files of the function whose entry module is `entry`. */
export function packageFiles(entry: string): readonly PackageFile[] {
  return [...(FILES[entry] ?? []), ...routePackageFiles(entry)];
}
