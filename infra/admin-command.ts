/**
 * The command line of the admin tools (`npm run create-admin`, `import-catalogue`, `migrate`): their
 * options parsed strictly, counts checked, and the table they work on chosen; any mistake ends the
 * tool with its message and usage (exit code 1).
 */
import { parseArgs } from 'node:util';
import { AdminError, useTarget } from './admin-account.js';
import { fail } from './local/attach.js';

export interface OptionsSpec {
  /** Options that take a value. */
  strings?: readonly string[];
  /** Options that take none. */
  flags?: readonly string[];
  /** Options that take a whole number from 1 to 64, and their defaults. */
  counts?: Readonly<Record<string, number>>;
}

export interface CommandLine {
  string(name: string): string | undefined;
  flag(name: string): boolean;
  count(name: string): number;
}

/** Parses this process's arguments as `spec` says (the `--stage` option is always known). */
export function commandLine(tool: string, usage: string, spec: OptionsSpec): CommandLine {
  const options: Record<string, { type: 'string' | 'boolean' }> = { stage: { type: 'string' } };
  for (const name of [...(spec.strings ?? []), ...Object.keys(spec.counts ?? {})]) options[name] = { type: 'string' };
  for (const name of spec.flags ?? []) options[name] = { type: 'boolean' };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ options, strict: true, allowPositionals: false }));
  } catch (err) {
    fail(tool, `${(err as Error).message}\n${usage}`);
  }
  const counts = new Map<string, number>();
  for (const [name, fallback] of Object.entries(spec.counts ?? {})) {
    const n = Number(values[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1 || n > 64) fail(tool, `--${name} must be an integer from 1 to 64\n${usage}`);
    counts.set(name, n);
  }
  return {
    string: (name) => values[name] as string | undefined,
    flag: (name) => values[name] === true,
    count: (name) => counts.get(name)!,
  };
}

/** useTarget for `--stage` (or the running local service), its refusals ending the tool. */
export async function commandTarget(tool: string, stage: string | undefined): Promise<string> {
  try {
    return await useTarget(tool, stage);
  } catch (err) {
    if (err instanceof AdminError) fail(tool, err.message);
    throw err;
  }
}
