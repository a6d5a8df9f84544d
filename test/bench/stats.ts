/** Small statistics and formatting helpers of the benchmark report. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The p-th percentile (0–100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Milliseconds taken by `fn` (high-resolution clock). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

export const ms = (v: number, digits = 2) => (Number.isFinite(v) ? `${v.toFixed(digits)} ms` : 'n/a');
export const ratio = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : 'n/a');
export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** A markdown table (cells are escaped for `|`). */
export function table(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const align = headers.map(() => '---');
  return [headers, align, ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`).join('\n');
}

/** Runs `worker` over `items` with at most `limit` in flight. */
export async function eachLimit<T>(items: Iterable<T>, limit: number, worker: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.iterator]();
  let failure: unknown = null;
  const lane = async () => {
    for (let next = it.next(); !next.done && failure === null; next = it.next()) {
      try {
        await worker(next.value);
      } catch (err) {
        failure = err;
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  if (failure !== null) throw failure;
}
