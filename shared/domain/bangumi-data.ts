/**
 * The bangumi-data data set of the installed npm package (about 8,500 items, 7 MB of JSON), in a
 * module of its own: only what imports it (the season refresh job, `npm start`'s first import,
 * `npm run import-catalogue`) reads the data. A function package carries it as a data file
 * beside its code (shared/package.ts), parsed when the job runs (docs/decisions.md I6, W9).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PACKAGE_FILES } from '../package.js';
import { readPackageJson } from '../package-file.js';

export async function loadBangumiData(): Promise<unknown> {
  if (typeof FUNCTION_PACKAGE !== 'undefined') return readPackageJson(PACKAGE_FILES.bangumiData);
  return JSON.parse(await readFile(createRequire(import.meta.url).resolve('bangumi-data'), 'utf8')) as unknown;
}
