/**
 * The index compactor of issue 19 (shared/domain/index-compaction.ts, decisions O1–), against
 * DynamoDB Local and the S3 emulator: a compaction folds the deltas into a snapshot that answers
 * queries as the records do; compactions racing writes lose no write (each one is in the
 * published vectors or among the deltas after the pointer); of two compactions at once one
 * publishes and the other leaves nothing behind; a snapshot's objects and the deltas it folded
 * are deleted one snapshot later; a rebuild from the records (a migration, `npm start`) applies
 * every write after the head it read first, writes nothing when the index holds it already and
 * fails when compactions deleted what it needed; the rankings' numbers are published through a
 * patch; an index published before the vectors carried the schedule's entries keeps its lists but
 * not its schedule (503) through compactions, until a rebuild from the records.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { animeIndex, animeTitle, type AnimeRecord } from '../../shared/db/animes.js';
import { commitStaged } from '../../shared/db/staged.js';
import { titleWrite } from '../../shared/db/titles.js';
import { newId } from '../../shared/ids.js';
import { animeArb, record } from '../support/random-animes.js';
import { animeIndexAsVersion3 } from '../support/previous-store.js';
import { getItems } from '../../shared/db/batch.js';
import { vectorOf, vectorPage, type IndexQuery, type Vector } from '../../shared/db/catalogue-index.js';
import { readDeltas, readHead, readPointer, type IndexPointer } from '../../shared/db/index-deltas.js';
import { recordKeyOfKind } from '../../shared/db/records.js';
import { compactIndex, loadVectors, RebuildRaced } from '../../shared/domain/index-compaction.js';
import { forgetIndexes, indexPage } from '../../shared/domain/index-reader.js';
import { indexesToRebuild, rebuildIndexes } from '../../shared/domain/index-rebuild.js';
import { deleteIndexObjects } from '../../shared/storage/index-objects.js';
import { awsCalls, type AwsCallRecord } from '../../shared/aws-request.js';
import { evaluate } from '../../shared/search/evaluate.js';
import { unpackSnapshot } from '../../shared/search/snapshot.js';
import { getIndexObject, indexObjectKey } from '../../shared/storage/index-objects.js';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
type Auth = Record<string, string>;

const MEDIA = ['tv', 'movie', 'ova'];
async function createAnimes(auth: Auth, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const body = { name: uniqueName(`${tag} ${['Alpha', 'Beta', 'Gamma'][i % 3]} ${i}`), media_type: MEDIA[i % 3], aired_from: `20${10 + (i % 9)}-04-01` };
    ids.push(expectJson(await send(server, 'POST', '/api/animes/', { body, headers: auth }), 201).id as string);
  }
  return ids;
}

/** What the index must hold now: the vector of every record of `ids` that exists. */
async function currentVectors(ids: readonly string[]): Promise<Map<string, Vector>> {
  const items = await getItems(ids.map((id) => recordKeyOfKind('ANIME', id)));
  return new Map(items.flatMap((item) => (item ? [[String((item.rec as AnimeRecord).id), vectorOf(animeIndex, item.rec as AnimeRecord)] as const] : [])));
}

/** The published vectors with the deltas after the pointer applied: what a reader starting now sees. */
async function readerView(): Promise<{ pointer: IndexPointer; vectors: Map<string, Vector> }> {
  const pointer = (await readPointer('ANIME'))!;
  const vectors = await loadVectors('ANIME', pointer);
  for (const d of (await readDeltas('ANIME', pointer.seq)).deltas) {
    if (d.vector) vectors.set(d.id, d.vector);
    else vectors.delete(d.id);
  }
  return { pointer, vectors };
}

const query = (over: Partial<IndexQuery>): IndexQuery => ({ ordering: 'name', descending: false, limit: 5, cursor: null, terms: [], equals: {}, ...over });

describe('index compaction', () => {
  it('folds the deltas into a snapshot whose pages are those of the records; nothing to fold writes nothing', async () => {
    const auth = (await server.user('contributor')).auth;
    const ids = await createAnimes(auth, 12, 'Fold');
    const done = await compactIndex(animeIndex);
    expect(done).toMatchObject({ version: 1, records: 12, folded: 12 });
    expect(done.snapshotBytes).toBeGreaterThan(0);
    const pointer = (await readPointer('ANIME'))!;
    expect(pointer).toMatchObject({ version: 1, seq: 12 });
    const snapshot = unpackSnapshot(animeIndex, (await getIndexObject(indexObjectKey('ANIME', pointer.name, 'snapshot')))!);
    const vectors = [...(await currentVectors(ids)).values()];
    expect(new Map([...(await loadVectors('ANIME', pointer))])).toEqual(await currentVectors(ids));
    for (const q of [query({}), query({ descending: true }), query({ equals: { media_type: 'movie' } }), query({ ordering: 'aired_from', terms: ['gamma'] })]) {
      const page = evaluate(animeIndex, snapshot, q);
      const expected = vectorPage(animeIndex, vectors, q);
      expect([page.entries, page.count]).toEqual([expected.entries, expected.matched]);
    }
    expect((await compactIndex(animeIndex)).version).toBeNull();
  });

  it('compactions racing writes lose no write: each is in the published vectors or among the deltas after the pointer', async () => {
    const auths = await Promise.all([0, 1, 2].map(async () => (await server.user('contributor')).auth));
    let writing = true;
    const compactions: (number | null)[] = [];
    const compactor = (async () => {
      while (writing) compactions.push((await compactIndex(animeIndex)).version);
    })();
    const ids = (await Promise.all(auths.map((auth, a) => createAnimes(auth, 8, `Race ${a}`)))).flat();
    // Some change and some go while compactions run.
    await Promise.all(
      ids.slice(0, 6).map(async (id, i) => {
        const res = i % 2 ? await send(server, 'DELETE', `/api/animes/${id}/`, { headers: auths[0]! }) : await send(server, 'PATCH', `/api/animes/${id}/`, { body: { name: uniqueName('Race renamed') }, headers: auths[0]! });
        expect(res.status).toBeLessThan(300);
      }),
    );
    writing = false;
    await compactor;
    expect(compactions.filter((v) => v !== null).length).toBeGreaterThan(0);
    const expected = await currentVectors(ids);
    const { vectors } = await readerView();
    expect(new Map(ids.flatMap((id) => (vectors.has(id) ? [[id, vectors.get(id)!] as const] : [])))).toEqual(expected);
    // Folding what is left gives the same view from the snapshot alone.
    await compactIndex(animeIndex);
    const folded = await readerView();
    expect((await readDeltas('ANIME', folded.pointer.seq)).deltas).toEqual([]);
    expect(new Map(ids.flatMap((id) => (folded.vectors.has(id) ? [[id, folded.vectors.get(id)!] as const] : [])))).toEqual(expected);
  });

  it('two compactions at once publish one version; the other deletes what it wrote', async () => {
    const auth = (await server.user('contributor')).auth;
    await createAnimes(auth, 3, 'Twice');
    const before = (await readPointer('ANIME'))!;
    const [a, b] = await Promise.all([compactIndex(animeIndex), compactIndex(animeIndex)]);
    expect([a.version, b.version].filter((v) => v !== null)).toEqual([before.version + 1]);
    const after = (await readPointer('ANIME'))!;
    expect(after).toMatchObject({ version: before.version + 1, previous: { name: before.name, seq: before.seq } });
    expect(await getIndexObject(indexObjectKey('ANIME', after.name, 'snapshot'))).not.toBeNull();
  });

  it('a snapshot’s objects and the deltas it folded go one snapshot later', async () => {
    const auth = (await server.user('contributor')).auth;
    const first = (await readPointer('ANIME'))!;
    await createAnimes(auth, 2, 'Later');
    await compactIndex(animeIndex);
    const second = (await readPointer('ANIME'))!;
    // The first snapshot (now the previous one) and its deltas are still there for a reader that read its pointer.
    expect(await getIndexObject(indexObjectKey('ANIME', first.name, 'vectors'))).not.toBeNull();
    expect((await readDeltas('ANIME', 0)).deltas.length).toBeGreaterThan(0);
    await createAnimes(auth, 1, 'Later');
    await compactIndex(animeIndex);
    expect(await getIndexObject(indexObjectKey('ANIME', first.name, 'snapshot'))).toBeNull();
    expect(await getIndexObject(indexObjectKey('ANIME', first.name, 'vectors'))).toBeNull();
    expect(await getIndexObject(indexObjectKey('ANIME', second.name, 'snapshot'))).not.toBeNull();
    const left = (await readDeltas('ANIME', 0)).deltas.map((d) => d.seq);
    expect(Math.min(...left)).toBe(first.seq + 1);
  });

  it('a rebuild from the records applies every write after the head it read first; it writes nothing when that is what the index holds; two compactions deleting its deltas make it fail (scan again)', async () => {
    const auth = (await server.user('contributor')).auth;
    const ids = await createAnimes(auth, 3, 'Rebuilt');
    await compactIndex(animeIndex);
    // A record the index lacks (written without its delta, as before the deployment of the index).
    const hidden = record(fc.sample(animeArb, { numRuns: 1, seed: 7 })[0]!, newId());
    hidden.name = uniqueName('Hidden');
    const plan = titleWrite(animeTitle, null, { after: hidden, relations: {}, links: [] });
    await commitStaged(plan.main, plan.rest, plan.pk, plan.rev, plan.write);
    expect((await readerView()).vectors.has(hidden.id)).toBe(false);
    const head = await readHead('ANIME');
    // The records as a Scan reads them, one of them before its rename below.
    const all = await currentVectors([...ids, hidden.id, ...(await readerView()).vectors.keys()]);
    const base = [...all.values()];
    expectJson(await send(server, 'PATCH', `/api/animes/${ids[0]}/`, { body: { name: uniqueName('Rebuilt renamed') }, headers: auth }), 200);
    const rebuilt = await compactIndex(animeIndex, { base, rebuild: { after: head } });
    expect(rebuilt.version).not.toBeNull();
    const { vectors } = await readerView();
    expect(vectors.get(hidden.id)).toEqual(vectorOf(animeIndex, hidden));
    expect(vectors.get(ids[0]!)).toEqual((await currentVectors([ids[0]!])).get(ids[0]!));
    // Again from the records as they are now: the index holds them already, nothing is written.
    const now = await currentVectors([...vectors.keys()]);
    expect((await compactIndex(animeIndex, { base: [...now.values()], rebuild: { after: await readHead('ANIME') } })).version).toBeNull();
    // Two compactions after the head: the second deletes the first's deltas.
    const before = await readHead('ANIME');
    await createAnimes(auth, 1, 'Raced');
    await compactIndex(animeIndex);
    await createAnimes(auth, 1, 'Raced');
    await compactIndex(animeIndex);
    await createAnimes(auth, 1, 'Raced');
    await compactIndex(animeIndex);
    await expect(compactIndex(animeIndex, { base, rebuild: { after: before } })).rejects.toBeInstanceOf(RebuildRaced);
  });

  it('the rankings’ numbers are published through a patch, without deltas', async () => {
    const auth = (await server.user('contributor')).auth;
    const [id] = await createAnimes(auth, 1, 'Ranked');
    await compactIndex(animeIndex);
    const head = (await readPointer('ANIME'))!.seq;
    await compactIndex(animeIndex, { patch: new Map([[id!, { o: { members: 4242 } }]]) });
    const pointer = (await readPointer('ANIME'))!;
    expect(pointer.seq).toBe(head);
    expect((await loadVectors('ANIME', pointer)).get(id!)!.o.members).toBe(4242);
  });

  it('a function holding an older snapshot than the newest — two compactions on, its objects and folded deltas gone — answers as the records do', async () => {
    const auth = (await server.user('contributor')).auth;
    const ids = await createAnimes(auth, 4, 'Held');
    await compactIndex(animeIndex);
    const held = (await readPointer('ANIME'))!;
    const all = query({ limit: 1_000 });
    // This process's copy (what a warm list function holds) is of version `held`.
    await indexPage(animeIndex, all);
    ids.push(...(await createAnimes(auth, 2, 'Held later')));
    await compactIndex(animeIndex);
    expect(await send(server, 'DELETE', `/api/animes/${ids[0]}/`, { headers: auth })).toMatchObject({ status: 204 });
    await compactIndex(animeIndex);
    expect(await getIndexObject(indexObjectKey('ANIME', held.name, 'snapshot'))).toBeNull();
    expect((await readDeltas('ANIME', 0)).deltas.every((d) => d.seq > held.seq)).toBe(true);
    // A write after the newest snapshot: among the deltas the copy reads.
    expectJson(await send(server, 'PATCH', `/api/animes/${ids[1]}/`, { body: { name: uniqueName('Held renamed') }, headers: auth }), 200);
    const { vectors } = await readerView();
    const expected = vectorPage(animeIndex, [...vectors.values()], all);
    const page = await indexPage(animeIndex, all);
    expect([page.entries, page.count]).toEqual([expected.entries, expected.matched]);
    expect(page.entries.map((e) => e.id)).not.toContain(ids[0]);
    expect(vectors.get(ids[1]!)).toEqual((await currentVectors([ids[1]!])).get(ids[1]!));
  });

  it('a snapshot whose objects are gone for good: the lists answer 503 with Retry-After until a rebuild from the records (decision O14)', async () => {
    const auth = (await server.user('contributor')).auth;
    await createAnimes(auth, 2, 'Lost');
    await compactIndex(animeIndex);
    const pointer = (await readPointer('ANIME'))!;
    await deleteIndexObjects([indexObjectKey('ANIME', pointer.name, 'snapshot'), indexObjectKey('ANIME', pointer.name, 'vectors')]);
    // A function starting now (no copy held) cannot load the index.
    forgetIndexes();
    const res = await send(server, 'GET', '/api/animes/');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await indexesToRebuild()).toContain('ANIME');
    const [rebuilt] = (await rebuildIndexes(['ANIME'])).filter((c) => c.kind === 'ANIME');
    expect(rebuilt!.version).toBe(pointer.version + 1);
    const listed = expectJson(await send(server, 'GET', '/api/animes/?limit=100'), 200);
    const { vectors } = await readerView();
    expect(listed.count).toBe(vectors.size);
    expect(await indexesToRebuild()).not.toContain('ANIME');
  });

  it('requests that need a kind the function does not hold yet share one load of its snapshot, then each reads the deltas since', async () => {
    const auth = (await server.user('contributor')).auth;
    await createAnimes(auth, 2, 'Shared load');
    await compactIndex(animeIndex);
    forgetIndexes();
    const calls: AwsCallRecord[] = [];
    awsCalls.listener = (c) => calls.push(c);
    try {
      const [a, b] = await Promise.all([indexPage(animeIndex, query({ limit: 1_000 })), indexPage(animeIndex, query({ limit: 1_000, descending: true }))]);
      expect(a.count).toBe(b.count);
      expect(calls.filter((c) => c.method === 'GET' && c.path.includes('/snapshot'))).toHaveLength(1);
    } finally {
      delete awsCalls.listener;
    }
  });

  it('an index published before the vectors carried the entries (schema version 3) lists as before, and its schedule answers 503 through compactions until a rebuild from the records (decision O15)', async () => {
    const auth = (await server.user('contributor')).auth;
    const airing = async (name: string) => {
      const body = { name: uniqueName(name), status: 'airing', aired_from: '2024-10-01', broadcast: { day: 'monday', time: '12:00', timezone: 'Asia/Tokyo' } };
      return expectJson(await send(server, 'POST', '/api/animes/', { body, headers: auth }), 201).id as string;
    };
    const ids = [await airing('Airing before'), await airing('Airing before')];
    await compactIndex(animeIndex);
    await animeIndexAsVersion3();
    forgetIndexes();
    const schedule = () => send(server, 'GET', '/api/schedules/?limit=100');
    expect((await schedule()).status).toBe(503);
    const found = expectJson(await send(server, 'GET', `/api/animes/?q=${encodeURIComponent('airing before')}&limit=100`), 200).results.map((r: { id: string }) => r.id);
    expect(found).toEqual(expect.arrayContaining(ids));
    // A write's delta carries its entry, but the compaction over the older vectors still does not know the others'.
    ids.push(await airing('Airing after'));
    expect((await compactIndex(animeIndex)).version).not.toBeNull();
    expect((await schedule()).status).toBe(503);
    await rebuildIndexes(['ANIME']);
    const listed = expectJson(await schedule(), 200);
    const { vectors } = await readerView();
    const entries = [...vectors.values()].filter((v) => v.e);
    expect(listed.count).toBe(entries.length);
    expect(listed.results.map((r: { anime: { id: string } }) => r.anime.id)).toEqual(expect.arrayContaining(ids));
  });
});
