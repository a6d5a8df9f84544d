/**
 * The bangumi-data data set of the installed npm package (about 8,500 items, 7 MB of JSON), in a
 * module of its own: only what imports it (the season refresh job, `npm start`'s first import,
 * `npm run import-catalogue`) reads the data. A function package carries it as a data file
 * beside its code (infra/aws/package-files.ts), parsed when the job runs (docs/decisions.md I6, W9).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** The file's name in the season refresh job's package. */
export const BANGUMI_DATA_FILE = 'bangumi-data.json';

declare const FUNCTION_PACKAGE: true | undefined;

export async function loadBangumiData(): Promise<unknown> {
  const file = typeof FUNCTION_PACKAGE !== 'undefined' ? new URL(BANGUMI_DATA_FILE, import.meta.url) : createRequire(import.meta.url).resolve('bangumi-data');
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}
