/**
 * The data files of function packages (bundling.ts PackageFile): files a function reads at run
 * time instead of importing them as code. Each is read from the package when the function runs
 * packaged (`FUNCTION_PACKAGE`, bundling.ts), and from its source when the sources run.
 */
import { createRequire } from 'node:module';
import { BANGUMI_DATA_FILE } from '../../shared/domain/bangumi-data.js';
import type { PackageFile } from './bundling.js';

const require = createRequire(import.meta.url);

const FILES: Readonly<Record<string, readonly PackageFile[]>> = {
  // The bangumi-data set (7 MB of JSON): parsed as JSON when the job runs, not loaded as a module.
  'functions/jobs/season-refresh.ts': [{ name: BANGUMI_DATA_FILE, from: require.resolve('bangumi-data') }],
};

/** The data files of the function whose entry module is `entry`. */
export function packageFiles(entry: string): readonly PackageFile[] {
  return FILES[entry] ?? [];
}
