/** Command-line options of `npm run bench` (see run.ts). */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SECTIONS = ['calls', 'latency', 'pagination', 'bundles', 'throughput', 'auth', 'enumeration'] as const;
export type SectionName = (typeof SECTIONS)[number];

export interface BenchOptions {
  /** Smaller iteration counts (to check the harness itself). */
  quick: boolean;
  /** Sections to run, in the order of SECTIONS. */
  sections: SectionName[];
  /** Where the markdown report goes. */
  out: string;
  /** Size of the list of the pagination section (genres inserted). */
  genres: number;
}

export const USAGE = `npm run bench -- [--quick] [--only=<section>[,<section>…]] [--out=<file>] [--genres=<n>]
  sections: ${SECTIONS.join(', ')}
  --quick       small iteration counts (checks the harness; figures are indicative only)
  --out         report file (default: bench-report.md at the repository root)
  --genres      records inserted for the pagination section (default 50000; 3000 with --quick)`;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  let quick = false;
  let only: SectionName[] | null = null;
  let out = resolve(REPO_ROOT, 'bench-report.md');
  let genres: number | null = null;
  for (const arg of argv) {
    const [flag, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--quick':
        quick = true;
        break;
      case '--only': {
        const names = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--only: unknown section ${unknown.join(', ') || '(none)'}; expected ${SECTIONS.join(', ')}`);
        only = names as SectionName[];
        break;
      }
      case '--out':
        if (!value) throw new Error('--out needs a file name (--out=<file>)');
        out = resolve(process.cwd(), value);
        break;
      case '--genres': {
        const n = Number(value);
        if (!Number.isInteger(n) || n < 2600) throw new Error('--genres must be an integer ≥ 2600 (100 pages of 25 and some)');
        genres = n;
        break;
      }
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  const sections = SECTIONS.filter((s) => only === null || only.includes(s));
  return { quick, sections, out, genres: genres ?? (quick ? 3000 : 50_000) };
}
