/** Reading a data file of the running function package (shared/package.ts). */
import { readFile } from 'node:fs/promises';

/** The data file `name` of the package, parsed. Every module of a package is in its root directory. */
export async function readPackageJson(name: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(name, import.meta.url), 'utf8')) as unknown;
}

/**
 * Imports a module of the sources (`url`, relative to the importing module) through a path that
 * esbuild does not follow: code that runs from the sources only (where a package reads a data
 * file instead) then adds nothing to a package, not even a chunk shared with its other modules.
 */
export function importFromSources<T>(url: URL): Promise<T> {
  return import(url.href) as Promise<T>;
}
