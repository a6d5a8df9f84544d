/**
 * The index deltas of issue 19 (shared/db/index-deltas.ts, decisions O1–): every write that
 * changes what a kind's index holds of a record puts one delta in its own transaction, numbered
 * without gaps in commit order, so a reader that read up to n and reads "after n" again misses
 * nothing — also while writes of the kind race each other and the reader; a write that changes
 * nothing the index holds puts none, nor does a patched write of the rankings' numbers (and a
 * patched write of anything else fails); the head survives the deltas' deletion (the pointer keeps
 * it); the pointer moves only from the version a compactor read.
 */
import { describe, expect, it } from 'vitest';
import { animeIndex, type AnimeRecord } from '../../shared/db/animes.js';
import { getItems } from '../../shared/db/batch.js';
import { vectorOf } from '../../shared/db/catalogue-index.js';
import { deleteDeltas, movePointer, PointerMoved, readDeltas, readHead, readPointer, type IndexDelta } from '../../shared/db/index-deltas.js';
import { recordKeyOfKind } from '../../shared/db/records.js';
import { animes } from '../../shared/domain/animes.js';
import { loadCurrent, refreshTitle, writeTitle } from '../../shared/domain/title-writes.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { useServer } from '../support/server.js';
import { ensureTable } from '../../infra/local/engines.js';
import { indexPage } from '../../shared/domain/index-reader.js';
import { newId } from '../../shared/ids.js';

const server = useServer({ background: false });
type Obj = Record<string, any>;

async function contributors(n: number): Promise<Record<string, string>[]> {
  return Promise.all(Array.from({ length: n }, async () => (await server.user('contributor')).auth));
}

const numbers = (ds: readonly IndexDelta[]) => ds.map((d) => d.seq);
const consecutive = (from: number, ds: readonly IndexDelta[]) => numbers(ds).every((seq, i) => seq === from + i);

describe('index deltas', () => {
  it('a creation, a rename and a deletion each put one delta with the vector the record has then (null: deleted); a change the index does not hold puts none', async () => {
    const [auth] = await contributors(1);
    const genre = expectJson(await send(server, 'POST', '/api/genres/', { body: { name: uniqueName('Delta genre') }, headers: auth }), 201);
    const head = await readHead('ANIME');
    const created = expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Delta'), genre_ids: [genre.id] }, headers: auth }), 201);
    const record = async () => (await getItems([recordKeyOfKind('ANIME', created.id)]))[0]!.rec as AnimeRecord;
    const after1 = await readDeltas('ANIME', head);
    expect(after1.deltas.map((d) => [d.seq, d.id])).toEqual([[head + 1, created.id]]);
    expect(after1.deltas[0]!.vector).toEqual(vectorOf(animeIndex, await record()));

    // The genre's new name shows in the anime (the consumer's refresh, run here): the index holds its id only.
    expectJson(await send(server, 'PATCH', `/api/genres/${genre.id}/`, { body: { name: uniqueName('Delta genre renamed') }, headers: auth }), 200);
    expect(await refreshTitle(animes, created.id)).toBe(true);
    expect((await record()).genres).toEqual([expect.objectContaining({ id: genre.id })]);
    expect((await readDeltas('ANIME', head + 1)).deltas).toEqual([]);

    const renamed = uniqueName('Delta renamed');
    expectJson(await send(server, 'PATCH', `/api/animes/${created.id}/`, { body: { name: renamed }, headers: auth }), 200);
    const after2 = await readDeltas('ANIME', head + 1);
    expect(after2.deltas.map((d) => [d.seq, d.id, d.vector?.o.name])).toEqual([[head + 2, created.id, (await record()).name]]);
    expect(after2.deltas[0]!.vector).toEqual(vectorOf(animeIndex, await record()));

    // A patched write (the rankings job's, decision O13) of the numbers puts none; one of anything else fails and writes nothing.
    const write = (change: Partial<AnimeRecord>) =>
      writeTitle(
        animes,
        async () => {
          const before = (await loadCurrent(animes, created.id))!;
          return { before, after: { ...before.record, ...change }, relations: before.relations };
        },
        { index: 'patched' },
      );
    await write({ members: 7, favorites: 2 });
    expect((await record()).members).toBe(7);
    expect(await readHead('ANIME')).toBe(head + 2);
    await expect(write({ name: uniqueName('Not patched') })).rejects.toThrow(/only the index values of the rankings' numbers/);
    expect((await record()).name).toBe(renamed);

    expect((await send(server, 'DELETE', `/api/animes/${created.id}/`, { headers: auth })).status).toBe(204);
    expect((await readDeltas('ANIME', head + 2)).deltas).toEqual([{ seq: head + 3, id: created.id, vector: null }]);
    expect(await readHead('ANIME')).toBe(head + 3);
  });

  it('writes of one kind racing each other and a reader: numbers without gaps, each write once, and a reader reading after what it saw misses none', async () => {
    const auths = await contributors(4);
    const start = await readHead('MANGA');
    const seen: IndexDelta[] = [];
    let writing = true;
    const reader = (async () => {
      let after = start;
      let polls = 0;
      while (writing || polls === 0) {
        polls++;
        const { deltas } = await readDeltas('MANGA', after);
        expect(consecutive(after + 1, deltas), `poll after ${after}: ${numbers(deltas).join(' ')}`).toBe(true);
        seen.push(...deltas);
        after = deltas.at(-1)?.seq ?? after;
      }
      seen.push(...(await readDeltas('MANGA', after)).deltas);
    })();
    const ids = (
      await Promise.all(
        auths.flatMap((auth, a) =>
          Array.from({ length: 5 }, async (_, i) => expectJson(await send(server, 'POST', '/api/mangas/', { body: { name: uniqueName(`Raced ${a} ${i}`) }, headers: auth }), 201).id as string),
        ),
      )
    ).sort();
    writing = false;
    await reader;
    expect(consecutive(start + 1, seen)).toBe(true);
    expect(seen.map((d) => d.id).sort()).toEqual(ids);
    expect(await readHead('MANGA')).toBe(start + ids.length);
  });

  it('a process that switches tables (tests, the bench) keeps one copy of the index per table', async () => {
    const [auth] = await contributors(1);
    const created = expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Per table') }, headers: auth }), 201);
    const listed = async () => (await indexPage(animeIndex, { ordering: 'name', descending: false, limit: 1_000, cursor: null, terms: [], equals: {} })).entries.map((e) => e.id);
    expect(await listed()).toContain(created.id);
    const own = process.env.TABLE_NAME!;
    const other = `other-${newId().toLowerCase().replace(/[^a-z0-9]/g, '')}`;
    await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, other);
    process.env.TABLE_NAME = other;
    try {
      expect(await listed()).toEqual([]);
    } finally {
      process.env.TABLE_NAME = own;
    }
    expect(await listed()).toContain(created.id);
  });

  it('the head survives the deletion of every delta (the pointer keeps it); the pointer moves only from the version read', async () => {
    const auth = (await server.user('moderator')).auth;
    const post = async () => expectJson(await send(server, 'POST', '/api/news/', { body: { name: uniqueName('Delta news'), description: 'A short article.', content: 'What the article says, at some length.' }, headers: auth }), 201) as Obj;
    await post();
    await post();
    const head = await readHead('NEWS');
    const before = await readPointer('NEWS');
    const next = { version: (before?.version ?? 0) + 1, seq: head, name: 'test', at: new Date().toISOString() };
    await movePointer('NEWS', before, next);
    await expect(movePointer('NEWS', before, { ...next, version: next.version + 1 })).rejects.toBeInstanceOf(PointerMoved);
    await deleteDeltas('NEWS', head);
    expect(await readDeltas('NEWS', 0)).toEqual({ deltas: [], pointer: next });
    expect(await readHead('NEWS')).toBe(head);
    const third = await post();
    expect((await readDeltas('NEWS', head)).deltas.map((d) => [d.seq, d.id])).toEqual([[head + 1, third.id]]);
  });
});
