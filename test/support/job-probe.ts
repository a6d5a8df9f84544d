/** A scheduled job for the scheduler's tests: counts its runs and how many overlapped. */
import type { ScheduledEvent } from 'aws-lambda';

export interface JobProbe {
  runs: ScheduledEvent[];
  running: number;
  maxRunning: number;
  durationMs: number;
}

const g = globalThis as { __jobProbe?: JobProbe };
export const jobProbe: JobProbe = (g.__jobProbe ??= { runs: [], running: 0, maxRunning: 0, durationMs: 0 });

export async function handler(event: ScheduledEvent): Promise<number> {
  jobProbe.runs.push(event);
  jobProbe.running++;
  jobProbe.maxRunning = Math.max(jobProbe.maxRunning, jobProbe.running);
  await new Promise((r) => setTimeout(r, jobProbe.durationMs));
  jobProbe.running--;
  return jobProbe.runs.length;
}
