/**
 * The relations consumer's reconcile of a title's reverse side (shared/db/reverse.ts, decisions
 * N4, O17), played here by the test (the server runs no consumer) so that each step is decided:
 * a redelivered or late stream record writes nothing and leaves the current state; a reconcile
 * that dies half-way — while writing items, or before its last write to the head — leaves
 * nothing a later reconcile of the changed title does not remove, and one that dies just after
 * recording its state ahead and is tried again writes every item of that state; two reconciles
 * of one title at once leave its latest state; and while a deletion waits for the consumer,
 * voices/ leaves the deleted anime's and character's entries out of its pages and of its exact
 * count, each once. After each, the table agrees with the recount (test/support/recount.ts:
 * reverse items, voice groups and fan-outs against what the titles ask for), and voices/'
 * counts with the casts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getItems } from '../../shared/db/batch.js';
import { db } from '../../shared/db/sdk.js';
import { applyRecordEffects, reconcileSource } from '../../shared/domain/catalogue-effects.js';
import { instrumentSdk, itemsWritten } from '../bench/sdk-calls.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { expectRecount } from '../support/recount.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
const recorder = instrumentSdk();
let auth: Record<string, string>;

type Obj = Record<string, any>;
const post = async (path: string, body: Obj) => expectJson(await send(server, 'POST', path, { body, headers: auth }), 201);
const patch = async (path: string, body: Obj) => expectJson(await send(server, 'PATCH', path, { body, headers: auth }), 200);
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200);

/** Fails the `n`-th next call of `operation` (1: the next), as a consumer killed or timed out there would stop. */
const fault: { operation: string; n: number } = { operation: '', n: 0 };
/** Fails the next transaction that deletes a part of a fan-out (`P#…`: a reconcile's last step, dropping the old state's parts). */
const dropFault = { armed: false };
beforeAll(() => {
  (db().middlewareStack as { add: (m: unknown, o: unknown) => void }).add(
    (next: (a: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      if (fault.n > 0 && context.commandName === `${fault.operation}Command` && --fault.n === 0) throw Object.assign(new Error('injected: the consumer stopped here'), { name: 'Injected' });
      const items = (args as { input?: { TransactItems?: { Delete?: unknown }[] } }).input?.TransactItems ?? [];
      if (dropFault.armed && context.commandName === 'TransactWriteItemsCommand' && items.some((t) => t.Delete && JSON.stringify(t.Delete).includes('"P#'))) {
        dropFault.armed = false;
        throw Object.assign(new Error('injected: the consumer stopped here'), { name: 'Injected' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'reverseReconcileFault', priority: 'high' },
  );
});

let persons: Obj[];
let characters: Obj[];
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
  persons = await Promise.all(Array.from({ length: 4 }, (_, i) => post('/api/persons/', { name: `Voice ${i}` })));
  characters = [];
  for (let i = 0; i < 30; i++) characters.push(await post('/api/characters/', { name: `${['Ann', 'Bob', 'Cid'][i % 3]} ${i}` }));
}, 300_000);

/** A cast of characters [from, to): each voiced by three persons, one of them in two languages. */
const cast = (from: number, to: number, role = 'main') =>
  characters.slice(from, to).map((c, k) => ({
    character_id: c.id,
    role: k % 3 === 0 ? role : 'supporting',
    voice_actors: [
      { person_id: persons[k % 4]!.id, language: 'japanese' },
      { person_id: persons[(k + 1) % 4]!.id, language: 'english' },
      { person_id: persons[k % 4]!.id, language: 'french' },
    ],
  }));
/** A cast of characters [from, to), each voiced by every person: one transaction's worth of counts per three persons. */
const everyone = (from: number, to: number) => characters.slice(from, to).map((c) => ({ character_id: c.id, role: 'main', voice_actors: persons.map((p) => ({ person_id: p.id, language: 'japanese' })) }));
const staff = (n: number) => persons.slice(0, n).map((p) => ({ person_id: p.id, positions: ['Director'] }));

/** Items written by DynamoDB calls made while `action` ran (here only the test's reconciles write). */
async function written(action: () => Promise<unknown>): Promise<number> {
  recorder.take();
  await action();
  return recorder.take().reduce((n, c) => n + itemsWritten(c), 0);
}

describe('reconciling a title', () => {
  it('a redelivered or late record writes nothing; the reconcile follows the title’s current state', async () => {
    const a = await post('/api/animes/', { name: uniqueName('Idempotent'), aired_from: '2011-01-01', characters: cast(0, 10), staff: staff(2) });
    // 10 appearances, a voice group per person (4), 2 staff credits, the fan-out.
    expect(await written(() => reconcileSource('ANIME', a.id))).toBeGreaterThanOrEqual(10 + 4 + 2 + 1);
    await expectRecount();
    expect(await written(() => reconcileSource('ANIME', a.id))).toBe(0);
    // The title changes; the record of its creation arrives (again) only now: the current state is what counts.
    await patch(`/api/animes/${a.id}/`, { characters: cast(5, 15, 'supporting'), staff: staff(1) });
    await reconcileSource('ANIME', a.id);
    expect(await written(() => reconcileSource('ANIME', a.id))).toBe(0);
    await expectRecount();
    const entriesOf = (person: Obj) => cast(5, 15).flatMap((c) => c.voice_actors).filter((v) => v.person_id === person.id).length;
    for (const p of persons) expect((await get(`/api/persons/${p.id}/voices/`)).count).toBe(entriesOf(p));
  });

  it('a reconcile that dies while writing items leaves nothing behind once the changed title is reconciled', async () => {
    const a = await post('/api/animes/', { name: uniqueName('Interrupted'), aired_from: null, characters: cast(0, 20), staff: staff(3) });
    // The fan-out's parts (BatchWriteItem 1), then 20 appearances, 4 voice groups and 3 credits: two batches (2, 3); the second fails.
    Object.assign(fault, { operation: 'BatchWriteItem', n: 3 });
    await expect(reconcileSource('ANIME', a.id)).rejects.toThrow(/injected/);
    // Before that record is tried again, the title loses most of its cast: what the first try wrote must go.
    await patch(`/api/animes/${a.id}/`, { name: uniqueName('Interrupted renamed'), characters: cast(18, 22), staff: staff(1) });
    await reconcileSource('ANIME', a.id);
    await expectRecount();
  });

  it('a reconcile that dies before its last write to the head leaves voices/ exact once reconciled again', async () => {
    const a = await post('/api/animes/', { name: uniqueName('Counted'), characters: everyone(0, 30) });
    const before = await Promise.all(persons.map(async (p) => (await get(`/api/persons/${p.id}/voices/?limit=1`)).count as number));
    // The fan-out's head listing the state ahead (1), the items, then a character's appearances (2: a
    // record write) fails, the updates already running finishing first (mapLimit): the reconcile
    // dies before its last write to the head.
    Object.assign(fault, { operation: 'TransactWriteItems', n: 2 });
    await expect(reconcileSource('ANIME', a.id)).rejects.toThrow(/injected/);
    await patch(`/api/animes/${a.id}/`, { characters: cast(10, 25, 'supporting') });
    await reconcileSource('ANIME', a.id);
    await expectRecount();
    const entriesOf = (person: Obj) => cast(10, 25).flatMap((c) => c.voice_actors).filter((v) => v.person_id === person.id).length;
    for (const [i, p] of persons.entries()) expect((await get(`/api/persons/${p.id}/voices/?limit=1`)).count).toBe(before[i]! + entriesOf(p));
  });

  it('a reconcile that dies after its last write to the head, before dropping the old state’s parts, drops them when the record comes again', async () => {
    const a = await post('/api/animes/', { name: uniqueName('Dropped'), characters: cast(0, 5) });
    await reconcileSource('ANIME', a.id);
    await patch(`/api/animes/${a.id}/`, { characters: cast(5, 10) });
    // The head is committed listing the new state only; dropping the old state's parts fails (a kill, a lost answer).
    dropFault.armed = true;
    await expect(reconcileSource('ANIME', a.id)).rejects.toThrow(/injected/);
    expect(dropFault.armed, 'the old parts were being dropped').toBe(false);
    // Delivered again: the head is settled on the current state, and the old state's parts still go.
    await reconcileSource('ANIME', a.id);
    await expectRecount();
  });

  it('a reconcile that dies after recording its state ahead, tried again with the title unchanged, writes every item', async () => {
    // The fan-out's parts (BatchWriteItem 1), its head listing the state ahead (TransactWriteItems 1),
    // then the items (BatchWriteItem 2…): the first batch of items fails. The record is delivered
    // again with the title as it was: the state the head lists ahead is not yet written, so it is
    // no evidence of what the items hold.
    const a = await post('/api/animes/', { name: uniqueName('Ahead'), aired_from: '2012-01-01', characters: cast(0, 6), staff: staff(2) });
    Object.assign(fault, { operation: 'BatchWriteItem', n: 2 });
    await expect(reconcileSource('ANIME', a.id)).rejects.toThrow(/injected/);
    await reconcileSource('ANIME', a.id);
    await expectRecount();
    // The same when it dies later: the head ahead (1), the items, then a character's appearances (2) fails.
    const b = await post('/api/animes/', { name: uniqueName('Ahead counted'), characters: everyone(0, 30) });
    Object.assign(fault, { operation: 'TransactWriteItems', n: 2 });
    await expect(reconcileSource('ANIME', b.id)).rejects.toThrow(/injected/);
    await reconcileSource('ANIME', b.id);
    await expectRecount();
    for (const p of persons) expect((await get(`/api/persons/${p.id}/voices/?limit=1`)).count).toBeGreaterThanOrEqual(30);
  });

  it('two reconciles of one title at once, the title changing between them, leave its latest state', async () => {
    const a = await post('/api/animes/', { name: uniqueName('Raced'), characters: cast(0, 12), staff: staff(2) });
    await Promise.all([
      reconcileSource('ANIME', a.id),
      (async () => {
        await patch(`/api/animes/${a.id}/`, { characters: cast(6, 20), staff: staff(4) });
        await reconcileSource('ANIME', a.id);
      })(),
      reconcileSource('ANIME', a.id),
    ]);
    await expectRecount();
    expect(await written(() => reconcileSource('ANIME', a.id))).toBe(0);
  });
});

describe('while a deletion waits for the consumer', () => {
  it('voices/ leaves the deleted anime’s and character’s entries out of its pages and its count, each once; the cleanup changes neither', async () => {
    const voice = await post('/api/persons/', { name: uniqueName('Pending') });
    const cs = await Promise.all(Array.from({ length: 3 }, (_, i) => post('/api/characters/', { name: `Pending ${i}` })));
    const va = (language: string) => ({ person_id: voice.id, language });
    // C0 in both animes (in A1 twice: two languages), C1 and C2 in one each.
    const a1 = await post('/api/animes/', { name: uniqueName('Pending A1'), characters: [{ character_id: cs[0]!.id, role: 'main', voice_actors: [va('japanese'), va('english')] }, { character_id: cs[1]!.id, role: 'supporting', voice_actors: [va('japanese')] }] });
    const a2 = await post('/api/animes/', { name: uniqueName('Pending A2'), characters: [{ character_id: cs[0]!.id, role: 'supporting', voice_actors: [va('japanese')] }, { character_id: cs[2]!.id, role: 'main', voice_actors: [va('japanese')] }] });
    await reconcileSource('ANIME', a1.id);
    await reconcileSource('ANIME', a2.id);
    const path = `/api/persons/${voice.id}/voices/`;
    expect((await get(path)).count).toBe(5);
    const [animeItem, characterItem] = await getItems([{ pk: `ANIME#${a1.id}`, sk: 'R' }, { pk: `CHARACTER#${cs[0]!.id}`, sk: 'R' }]);
    expect((await send(server, 'DELETE', `/api/animes/${a1.id}/`, { headers: auth })).status).toBe(204);
    expect((await send(server, 'DELETE', `/api/characters/${cs[0]!.id}/`, { headers: auth })).status).toBe(204);
    // Left: C2 in A2 (main, japanese) only.
    const check = async () => {
      for (const [query, count] of [['', 1], ['?role=main', 1], ['?role=supporting', 0], ['?language=english', 0], ['?language=japanese&role=main', 1]] as const) {
        const page = await get(`${path}${query}`);
        expect([page.count, page.results.map((r: Obj) => [r.character.id, r.anime.id])], query).toEqual([count, count ? [[cs[2]!.id, a2.id]] : []]);
      }
    };
    await check();
    // The consumer's cleanup of both deletions, in either order, changes neither pages nor counts.
    await applyRecordEffects('CHARACTER', cs[0]!.id, characterItem!, undefined);
    await check();
    await applyRecordEffects('ANIME', a1.id, animeItem!, undefined);
    await check();
    await expectRecount();
  });
});
