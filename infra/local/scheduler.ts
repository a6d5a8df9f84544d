/**
 * The local scheduler: what the EventBridge rules do on AWS. It runs every job of
 * functions/jobs/registry.ts in this process, each on its own period, with a Lambda-shaped
 * scheduled event. The period is the job's `localPeriodSeconds`, else that of its `rate(…)`
 * schedule; LOCAL_JOB_PERIOD_SECONDS (or the `periodSeconds` option) sets one for every job.
 * A run that is still going when the next is due is not started twice. Timers never keep the
 * process alive; `stop()` cancels them and waits for runs in progress.
 */
import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import { JOBS, type JobDecl } from '../../functions/jobs/registry.js';
import { lambdaContext, loadHandler } from './functions.js';

export interface SchedulerOptions {
  /** Default: every job of functions/jobs/registry.ts. */
  jobs?: readonly JobDecl[];
  /** One period for every job, in seconds (default: LOCAL_JOB_PERIOD_SECONDS, else per job). */
  periodSeconds?: number;
}

export interface Scheduler {
  /** Runs a job now (waits for a run in progress first); resolves to what its handler returned. */
  run(name: string): Promise<unknown>;
  stop(): Promise<void>;
}

const UNITS: Record<string, number> = { minute: 60, minutes: 60, hour: 3600, hours: 3600, day: 86_400, days: 86_400 };

/** The local period of a job, in seconds. */
export function localPeriodSeconds(job: JobDecl, override?: number): number {
  if (override !== undefined) return override;
  if (job.localPeriodSeconds !== undefined) return job.localPeriodSeconds;
  const rate = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(job.schedule);
  if (rate) return Number(rate[1]) * UNITS[rate[2]!]!;
  throw new Error(`job ${job.name}: give a cron schedule a localPeriodSeconds to run it locally`);
}

/** The event an EventBridge schedule rule sends. */
export function scheduledEvent(job: JobDecl, at = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: `${at.toISOString().slice(0, 19)}Z`,
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:000000000000:rule/local-${job.name}`],
    detail: {},
  };
}

function periodFromEnv(): number | undefined {
  const raw = process.env.LOCAL_JOB_PERIOD_SECONDS;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`LOCAL_JOB_PERIOD_SECONDS must be a positive number of seconds, not ${raw}`);
  return n;
}

export function startScheduler(opts: SchedulerOptions = {}): Scheduler {
  const jobs = opts.jobs ?? JOBS;
  const override = opts.periodSeconds ?? periodFromEnv();
  const timers: NodeJS.Timeout[] = [];
  const running = new Map<string, Promise<unknown>>();
  let stopped = false;

  const byName = new Map(jobs.map((j) => [j.name, j]));

  function run(job: JobDecl): Promise<unknown> {
    const current = running.get(job.name);
    if (current) return current;
    const started = (async () => {
      const handler = await loadHandler<ScheduledEvent, unknown>(job.entry);
      return handler(scheduledEvent(job), lambdaContext(`job.${job.name}`));
    })().finally(() => running.delete(job.name));
    running.set(job.name, started);
    return started;
  }

  for (const job of jobs) {
    const ms = localPeriodSeconds(job, override) * 1000;
    const timer = setInterval(() => {
      if (stopped || running.has(job.name)) return;
      run(job).catch((err: unknown) => console.error(`job ${job.name} failed:`, err));
    }, ms);
    timer.unref();
    timers.push(timer);
  }

  return {
    run: async (name) => {
      const job = byName.get(name);
      if (!job) throw new Error(`no job ${name}`);
      await running.get(name)?.catch(() => undefined);
      return run(job);
    },
    stop: async () => {
      stopped = true;
      for (const t of timers) clearInterval(t);
      await Promise.allSettled([...running.values()]);
    },
  };
}
