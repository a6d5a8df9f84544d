/** Command-line options of `npm run bench` (see run.ts). */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCALES, type ScaleName } from './catalogue-data.js';

export const SECTIONS = ['calls', 'latency', 'pagination', 'bundles', 'throughput', 'auth', 'enumeration', 'catalogue', 'community', 'import', 'fuzz', 'load', 'cost', 'consumers', 'feed'] as const;
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
  /** The catalogue section's generated catalogue (catalogue-data.ts): scale, seed (also the fuzz section's), and "today" (default: the kept store's, else the current date). */
  scale: ScaleName;
  seed: number;
  today: string | null;
  /** Where DynamoDB Local keeps its files when the catalogue section runs (DATA_DIR; loaded catalogues are reused). */
  dataDir: string;
  /** The community section keeps its store in `dataDir` (DATA_DIR given); otherwise DynamoDB Local runs in memory. */
  keepCommunity: boolean;
  /** The cost section writes the memory it chose per function to infra/function-memory.json (what the stack deploys). */
  saveMemory: boolean;
}

export const USAGE = `npm run bench -- [--quick] [--only=<section>[,<section>…]] [--out=<file>] [--genres=<n>]
  sections: ${SECTIONS.join(', ')}
  --quick       small iteration counts (checks the harness; figures are indicative only)
  --out         report file (default: bench-report.md at the repository root)
  --genres      records inserted for the pagination section (default 50000; 3000 with --quick)
  --scale       the catalogue and community sections' data: mal (default), tenth (a tenth of mal) or small (default with --quick);
                without --only, --scale runs the catalogue section alone
  --save-memory the cost section writes the memory it chose per function to infra/function-memory.json
                (what \`cdk deploy\` gives each API function; review the diff and commit it)
  --seed        its seed (default 1), and the fuzz section's; --today=YYYY-MM-DD its date (default: the kept store's, else today)
  DATA_DIR=<dir> where DynamoDB Local keeps its files when the catalogue section runs (default
                /dev/shm/catalogue-bench); a catalogue loaded there before (same scale, seed, date) is reused.
                The community section keeps its store there only when DATA_DIR is given (else in memory)`;

const VALUE_FLAGS = ['--only', '--out', '--genres', '--scale', '--seed', '--today'];

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  let quick = false;
  let saveMemory = false;
  let only: SectionName[] | null = null;
  let out = resolve(REPO_ROOT, 'bench-report.md');
  let genres: number | null = null;
  let scale: ScaleName | null = null;
  let seed = 1;
  let today: string | null = null;
  // `--scale mal` as well as `--scale=mal` for the options that take a value.
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUE_FLAGS.includes(a) && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) args.push(`${a}=${argv[++i]}`);
    else args.push(a);
  }
  for (const arg of args) {
    const [flag, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    switch (flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--quick':
        quick = true;
        break;
      case '--save-memory':
        saveMemory = true;
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
      case '--scale':
        if (!value || !Object.hasOwn(SCALES, value)) throw new Error(`--scale must be one of ${Object.keys(SCALES).join(', ')} (--scale=mal)`);
        scale = value as ScaleName;
        break;
      case '--seed':
        if (!/^\d{1,9}$/.test(value ?? '')) throw new Error('--seed must be a non-negative integer');
        seed = Number(value);
        break;
      case '--today':
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value ?? '') || Number.isNaN(Date.parse(value!))) throw new Error('--today must be a date YYYY-MM-DD');
        today = value!;
        break;
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  // `--scale` alone names the catalogue section's run.
  const sections = SECTIONS.filter((s) => (only === null ? scale === null || s === 'catalogue' : only.includes(s)));
  const dataDir = process.env.DATA_DIR ? resolve(process.env.DATA_DIR) : join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'catalogue-bench');
  return { quick, sections, out, genres: genres ?? (quick ? 3000 : 50_000), scale: scale ?? (quick ? 'small' : 'mal'), seed, today, dataDir, keepCommunity: Boolean(process.env.DATA_DIR), saveMemory };
}
