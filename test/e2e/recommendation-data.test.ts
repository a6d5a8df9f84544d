/**
 * What the recommendations job keeps of each title's list (shared/db/recommendations.ts;
 * docs/decisions.md M1, V6, V7) and nothing more, on the real engines with the stream consumers
 * running: a version a run superseded is removed by the next run, a list that became empty goes
 * the same way, the list of a deleted title goes with the title's cascade — also when the run
 * writes it after that cascade. The table's recount (test/support/recount.ts) checks each of
 * these after every step, so it would catch a leftover anywhere else too.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { runningFunction } from '../../infra/local/functions.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import type { RunSummary } from '../../shared/domain/recommendations-job.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { runJob } from '../support/jobs.js';
import { expectRecount } from '../support/recount.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
type Done = Extract<RunSummary, { skipped: false }>;
let editor: Auth;
const voters: Auth[] = [];
const items = new Map<string, string>();

const call = (auth: Auth, method: string, path: string, body?: unknown) => send(server, method, path, { body, headers: auth });
const anime = async () => expectJson(await call(editor, 'POST', '/api/animes/', { name: uniqueName('Recommended') }), 201).id as string;
const run = async () => (await runJob<RunSummary>('recommendations', new Date())) as Done;
const stored = async (id: string) => (await db().send(new GetCommand({ TableName: tableName(), Key: { pk: `RECS#ANIME#${id}`, sk: 'R' }, ConsistentRead: true }))).Item;
const versions = async (id: string) => ((await stored(id))?.v as { n: number; b: [string, number][] }[] | undefined)?.map((v) => [v.n, v.b.map((e) => e[0])]);
const shown = async (id: string) => expectJson(await send(server, 'GET', `/api/animes/${id}/recommendations/`), 200).results.map((r: { id: string }) => r.id);

/** Three voters list each title high: every pair of them gets 3 votes. */
async function listHigh(titles: string[], by: Auth[] = voters) {
  for (const [u, auth] of by.entries()) {
    for (const t of titles) items.set(`${u} ${t}`, expectJson(await call(auth, 'POST', '/api/playlists/animelist/animes/', { anime_id: t, score: 9 }), 201).id);
  }
}

beforeAll(async () => {
  editor = (await server.user('contributor')).auth;
  for (let i = 0; i < 3; i++) voters.push((await server.user('member')).auth);
});

describe('recommendation lists', () => {
  it('a version a run superseded is removed by the next run; a list that became empty goes the same way', { timeout: 180_000 }, async () => {
    const [a, b, c] = [await anime(), await anime(), await anime()];
    await listHigh([a, b]);
    const first = await run();
    expect(await versions(a)).toEqual([[first.run, [b]]]);
    await expectRecount(server.background!.streams);

    // C joins: A's and B's lists change (the version readers saw stays beside the new one until the next run).
    await listHigh([c]);
    const second = await run();
    const both = (await versions(a))!;
    expect(both.map((v) => v[0])).toEqual([first.run, second.run]);
    expect([...(both[1]![1] as string[])].sort()).toEqual([b, c].sort());
    await expectRecount(server.background!.streams);
    // The next run, nothing changed: only the superseded versions go.
    const third = await run();
    expect(third.anime.written).toBe(2);
    for (const id of [a, b]) expect((await versions(id))!.map((v) => v[0])).toEqual([second.run]);
    expect((await versions(c))!.map((v) => v[0])).toEqual([second.run]);
    await expectRecount(server.background!.streams);
    expect((await run()).anime.written).toBe(0);

    // One voter drops C: its pairs have 2 votes, C's list is empty (readers see none at once), and its item goes with the next run.
    expect((await call(voters[0]!, 'DELETE', `/api/playlists/animelist/animes/${items.get(`0 ${c}`)}/`)).status).toBe(204);
    const fourth = await run();
    expect(await shown(c)).toEqual([]);
    expect(await shown(a)).toEqual([b]);
    expect((await versions(c))!.at(-1)).toEqual([fourth.run, []]);
    await expectRecount(server.background!.streams);
    await run();
    expect(await stored(c)).toBeUndefined();
    expect((await versions(a))!.map((v) => v[0])).toEqual([fourth.run]);
    expect(await shown(a)).toEqual([b]);
    await expectRecount(server.background!.streams);
  });

  it("a deleted title's list goes with its cascade", { timeout: 120_000 }, async () => {
    const [a, b] = [await anime(), await anime()];
    await listHigh([a, b]);
    await run();
    expect(await stored(a)).toBeDefined();
    expect((await call(editor, 'DELETE', `/api/animes/${a}/`)).status).toBe(204);
    await eventually(async () => expect(await stored(a)).toBeUndefined());
    await expectRecount(server.background!.streams);
  });

  it('a title deleted while the run computes its list: the list the run writes after the cascade goes too', { timeout: 120_000 }, async () => {
    const [a, b] = [await anime(), await anime()];
    await listHigh([a, b]);
    // When the run puts A's list, A is first deleted and its cascade runs to the end (its tombstone cleared).
    const name = `delete-before-put-${a}`;
    let held = false;
    db().middlewareStack.add(
      (next, context) => async (args) => {
        // The document client shares its inner client's stack: the key may be marshalled (`{S: …}`).
        const pk = (args.input as { Item?: { pk?: unknown } }).Item?.pk;
        const put = /^Put(Item)?Command$/.test(String(context.commandName)) && (pk === `RECS#ANIME#${a}` || (pk as { S?: string } | undefined)?.S === `RECS#ANIME#${a}`);
        if (held || !put) return next(args);
        held = true;
        // The test's own deletion and read, outside the job's context (which the key trace checks).
        await runningFunction.exit(async () => {
          expect((await call(editor, 'DELETE', `/api/animes/${a}/`)).status).toBe(204);
          await server.background!.streams!.caughtUp();
          const shards = await Promise.all([0, 1, 2, 3].map(async (n) => (await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'DELETED', sk: String(n) }, ConsistentRead: true }))).Item));
          expect(shards.some((s) => (s?.ANIME as Set<string> | undefined)?.has(a))).toBe(false);
        });
        return next(args);
      },
      { step: 'initialize', name, priority: 'high' },
    );
    try {
      await run();
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(held).toBe(true);
    expect(await stored(a)).toBeUndefined();
    expect(await shown(b)).not.toContain(a);
    await expectRecount(server.background!.streams);
  });
});
