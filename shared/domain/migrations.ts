/**
 * Migrating a store to the schema version this code writes (docs/data-model.md "Schema version";
 * docs/decisions.md Y1–Y6): the registry of steps, and the runner `npm start` (before it listens:
 * infra/local/runtime.ts) and `npm run migrate -- --stage S` (infra/migrate.ts) use.
 *
 * A step takes a store from version `from` to `to` = `from` + 1, rebuilding what the code of `to`
 * derives from the records and the store of `from` lacks. It saves a checkpoint where it is long
 * and may be stopped anywhere: run again, it goes on from its checkpoint and ends as one run would
 * (every step is idempotent). The store's version is raised only when the step has finished.
 * A new store (an empty table) is at the current version at once; so is a table this code
 * created (its creation puts the version item: shared/db/migrations.ts).
 *
 * Adding a step: its module (what the previous version lacks, and how each part is rebuilt through
 * the code that writes it now), a line in STEPS, SCHEMA_VERSION raised, a test that builds a store
 * as the previous version wrote it (test/integration/migrations.test.ts).
 */
import { hostname } from 'node:os';
import { releaseMigration, saveCheckpoint, SCHEMA_VERSION, setStoreVersion, storeVersion, takeMigration, type Checkpoint } from '../db/migrations.js';
import { storeV2 } from './store-v2.js';
import { storeV3 } from './store-v3.js';
import { storeV4 } from './store-v4.js';
import { storeV5 } from './store-v5.js';
import { storeV6 } from './store-v6.js';
import { storeV7 } from './store-v7.js';

/** How far a step got, for a progress bar (`total` null: unknown). */
export interface Progress {
  phase: string;
  done: number;
  total: number | null;
  /** A phase repeated until it changes nothing: which pass. */
  pass?: number;
}

export interface StepContext {
  /** Records worked on at once. */
  concurrency: number;
  /** Parallel segments of a Scan. */
  segments: number;
  /** Records per page of a walk, a checkpoint after each (default: the step's). */
  pageSize?: number;
  /** Where a stopped run got to (null: from the start). */
  checkpoint: Checkpoint | null;
  /** Saves where the step is (and renews the run's lease). */
  save(at: Checkpoint): Promise<void>;
  progress(p: Progress): void;
  /** Tests: called before each title of a walk (throwing stops the run there, as a kill would). */
  beforeTitle?: (n: number) => void;
}

/** What a step reports it did (numbers by name). */
export type StepSummary = Record<string, number>;

export interface MigrationStep {
  from: number;
  to: number;
  /** What the step rebuilds, for the operator. */
  title: string;
  run(ctx: StepContext): Promise<StepSummary>;
}

/** Every step, in order: the last one's `to` is SCHEMA_VERSION. */
export const STEPS: readonly MigrationStep[] = [storeV2, storeV3, storeV4, storeV5, storeV6, storeV7];

export interface MigrateOptions {
  /** Records worked on at once (default 8). */
  concurrency?: number;
  /** Parallel segments of a Scan (default 4). */
  segments?: number;
  /** Who runs it (the lease's holder): a run stopped by the same holder goes on at once. Default: this machine. */
  holder?: string;
  /** Called once before the first step runs, with what is about to happen. */
  onStart?: (from: number, to: number, steps: readonly MigrationStep[]) => void;
  onProgress?: (step: MigrationStep, p: Progress) => void;
  /** Tests: see StepContext. */
  pageSize?: number;
  beforeTitle?: StepContext['beforeTitle'];
}

export interface MigrationReport {
  /** The version found (null: an empty store). */
  from: number | null;
  to: number;
  steps: { to: number; title: string; seconds: number; summary: StepSummary }[];
  seconds: number;
}

/**
 * Brings the store of TABLE_NAME to SCHEMA_VERSION: nothing when it is there, its version item
 * when it is empty, else every step from its version on. Refuses a store of a later version (an
 * older code must not write it) and a store another run is migrating.
 */
export async function migrateStore(opts: MigrateOptions = {}): Promise<MigrationReport> {
  const started = Date.now();
  const from = await storeVersion();
  const report: MigrationReport = { from, to: SCHEMA_VERSION, steps: [], seconds: 0 };
  if (from !== null && from > SCHEMA_VERSION) throw new Error(`the store is at schema version ${from}, written by a later version of this code (which writes ${SCHEMA_VERSION}): run that version`);
  if (from === SCHEMA_VERSION) return report;
  if (from === null) {
    await setStoreVersion(null, SCHEMA_VERSION);
    report.seconds = (Date.now() - started) / 1000;
    return report;
  }
  const steps = STEPS.filter((s) => s.from >= from);
  if (steps[0]?.from !== from || steps.at(-1)?.to !== SCHEMA_VERSION) throw new Error(`no steps lead from schema version ${from} to ${SCHEMA_VERSION}`);
  opts.onStart?.(from, SCHEMA_VERSION, steps);
  const holder = opts.holder ?? `${hostname()}`;
  for (const step of steps) {
    const t0 = Date.now();
    const checkpoint = await takeMigration(step.to, holder);
    let summary: StepSummary;
    try {
      summary = await step.run({
        concurrency: opts.concurrency ?? 8,
        segments: opts.segments ?? 4,
        checkpoint,
        save: (at) => saveCheckpoint(step.to, holder, at),
        progress: (p) => opts.onProgress?.(step, p),
        ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
        ...(opts.beforeTitle ? { beforeTitle: opts.beforeTitle } : {}),
      });
    } catch (err) {
      // The checkpoint stays for the next run, which may start at once.
      await releaseMigration(step.to, holder).catch(() => undefined);
      throw err;
    }
    await setStoreVersion(step.from, step.to);
    report.steps.push({ to: step.to, title: step.title, seconds: (Date.now() - t0) / 1000, summary });
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}
