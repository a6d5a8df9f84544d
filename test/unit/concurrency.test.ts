/**
 * mapLimit (shared/concurrency.ts): bounded parallel work that, when an item fails, starts no
 * further item and rejects only once the items already running have settled — the relations
 * consumer's reconcile failed while 7 of its characters' updates still ran, and a retry raced
 * them (a character's `appearances` left naming a title it had left).
 */
import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../shared/concurrency.js';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mapLimit', () => {
  it('keeps at most `limit` running and gives the results in input order', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n, i) => {
      most = Math.max(most, ++running);
      await tick(n);
      running--;
      return `${i}:${n}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0']);
    expect(most).toBe(2);
  });

  it('after a failure starts nothing more, and rejects once what runs has finished', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const call = mapLimit([0, 1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      if (n === 1) {
        await tick(1);
        throw new Error('item 1 failed');
      }
      await tick(20);
      finished.push(n);
    });
    await expect(call).rejects.toThrow('item 1 failed');
    // 0 and 2 were running when 1 failed: both finished before the call rejected; 3… never began.
    expect(started.sort()).toEqual([0, 1, 2]);
    expect(finished.sort()).toEqual([0, 2]);
  });

  it('rejects with the first error when several fail', async () => {
    await expect(mapLimit([10, 1], 2, async (n) => {
      await tick(n);
      throw new Error(`failed after ${n} ms`);
    })).rejects.toThrow('failed after 1 ms');
  });

  it('does nothing for no items', async () => {
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
