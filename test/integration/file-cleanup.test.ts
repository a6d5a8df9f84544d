/**
 * Removing the stored files of deleted pictures (API.md §4.9, §5.5) on the real engines
 * (DynamoDB Local, the S3 emulator): a file queued in the transaction of a deletion is deleted
 * from storage by the cleanup job, then its item; a file whose upload never appended its Picture
 * is removed once its guard is due, one whose Picture was written is kept. The job runs as the
 * scheduler runs it (its declared module, so the items it touches are checked against its role),
 * or with a clock moved forward.
 */
import { describe, expect, it } from 'vitest';
import { runFileCleanup } from '../../functions/jobs/cleanup.js';
import { JOBS } from '../../functions/jobs/registry.js';
import { startScheduler } from '../../infra/local/scheduler.js';
import { dueFiles, goneFilesPlan, keepUploadPlan, putUploadGuard, UPLOAD_GUARD_SECONDS } from '../../shared/db/files.js';
import { commit } from '../../shared/db/records.js';
import { judgeImage } from '../../shared/domain/images.js';
import { storePicture } from '../../shared/storage/pictures.js';
import { fixture } from '../support/images.js';

const stored = () => storePicture('person_c', judgeImage(fixture('rgba.png')));
const exists = async (url: string) => (await fetch(url)).status === 200;
const queued = async (key: string, at = new Date(Date.now() + 10 * UPLOAD_GUARD_SECONDS * 1000)) => (await dueFiles(at, 1000)).entries.some((e) => e.keys.includes(key));
const later = (seconds: number) => () => new Date(Date.now() + seconds * 1000);

describe('cleanup job: files of deleted pictures', () => {
  it('a file queued with its picture’s deletion is deleted, then its item (run as the scheduler runs the job)', async () => {
    const file = await stored();
    // The deletion's transaction (the Picture's record goes in it too, in the route).
    await commit(goneFilesPlan([file.key]));
    expect(await queued(file.key)).toBe(true);

    const scheduler = startScheduler({ jobs: JOBS.filter((j) => j.name === 'cleanup') });
    try {
      expect(await scheduler.run('cleanup')).toMatchObject({ files: { removed: 1 } });
    } finally {
      await scheduler.stop();
    }
    expect(await exists(file.url)).toBe(false);
    expect(await queued(file.key)).toBe(false);
  });

  it('repeating is harmless: a file already deleted (a run that stopped before removing the item) is deleted again', async () => {
    const file = await stored();
    await commit(goneFilesPlan([file.key]));
    await fetch(file.url, { method: 'DELETE' }); // the first run's deletion, whose item stayed
    expect(await runFileCleanup()).toEqual({ removed: 1 });
    expect(await queued(file.key)).toBe(false);
  });

  it('an upload whose Picture was never written: its file goes once the guard is due, not before', async () => {
    const file = await stored();
    await putUploadGuard(file.key);
    expect(await runFileCleanup()).toEqual({});
    expect(await exists(file.url)).toBe(true);
    expect(await runFileCleanup({ clock: later(UPLOAD_GUARD_SECONDS + 1) })).toEqual({ removed: 1 });
    expect(await exists(file.url)).toBe(false);
  });

  it('an upload whose Picture was written keeps its file', async () => {
    const file = await stored();
    const guard = await putUploadGuard(file.key);
    await commit(keepUploadPlan(guard)); // with the Picture's append, in the route
    expect(await runFileCleanup({ clock: later(UPLOAD_GUARD_SECONDS + 1) })).toEqual({});
    expect(await exists(file.url)).toBe(true);
  });

  it('a person’s 100 pictures are one item of the deletion’s transaction; more items than a page are all done in one run', async () => {
    const hundred = await Promise.all(Array.from({ length: 100 }, stored));
    const plan = goneFilesPlan(hundred.map((f) => f.key));
    expect(plan.items).toHaveLength(1);
    const singles = await Promise.all(Array.from({ length: 30 }, stored));
    await commit(plan, ...singles.map((f) => goneFilesPlan([f.key])));
    expect(await runFileCleanup()).toEqual({ removed: 130 });
    for (const f of [...hundred, ...singles]) expect(await queued(f.key)).toBe(false);
    expect(await exists(hundred[99]!.url)).toBe(false);
  });
});
