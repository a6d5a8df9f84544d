/**
 * Random picks (API.md §4.13): one record drawn uniformly among the kind's records, in its detail
 * shape, `fields` only, no ETag, `no-store`, 404 when there is none; and the dense slots behind
 * them (shared/db/slots.ts) naming exactly the kind's records after concurrent creations and
 * deletions.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { getItems } from '../../shared/db/batch.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import { counterKeyOfKind, recordKeyOfKind } from '../../shared/db/records.js';
import { loadTitle } from '../../shared/db/titles.js';
import { persons } from '../../shared/domain/persons.js';
import { writeTitle } from '../../shared/domain/title-writes.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});
const create = async (segment: string, body: Record<string, unknown> = {}) =>
  expectJson(await send(server, 'POST', `/api/${segment}/`, { body: { name: uniqueName('Random'), ...body }, headers: auth }), 201);
const remove = async (segment: string, id: string) => expect((await send(server, 'DELETE', `/api/${segment}/${id}/`, { headers: auth })).status).toBe(204);

/** The slots of a kind as stored: slot n → id, the counter, and each record's own `slot`. */
async function slotsOf(kind: string) {
  const out = await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${kind}#SLOT` }, ConsistentRead: true }));
  const slots = (out.Items ?? []).map((i) => ({ n: Number(i.sk), id: String(i.id) }));
  const [counter] = await getItems([counterKeyOfKind(kind)]);
  const records = await getItems(slots.map((s) => recordKeyOfKind(kind, s.id)));
  return { slots, n: Number(counter?.n ?? 0), recordSlots: records.map((r) => (r ? Number(r.slot) : null)) };
}

/** Slots 1..n hold exactly `ids`, each record's `slot` naming its own. */
async function expectDense(kind: string, ids: readonly string[]) {
  const { slots, n, recordSlots } = await slotsOf(kind);
  expect(n).toBe(ids.length);
  expect(slots.map((s) => s.n)).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
  expect(slots.map((s) => s.id).sort()).toEqual([...ids].sort());
  expect(recordSlots).toEqual(slots.map((s) => s.n));
}

describe('GET /api/random/{kind}/', () => {
  it('404 when the kind has no record', async () => {
    await expectProblem(await send(server, 'GET', '/api/random/person/'), 404, 'not-found');
  });

  it('draws uniformly: 5 animes, 500 draws, chi-square under the 0.1 % critical value; detail shape, fields, no ETag, no-store', { timeout: 120_000 }, async () => {
    const animes = await Promise.all(Array.from({ length: 5 }, () => create('animes')));
    const draws = new Map<string, number>();
    for (let round = 0; round < 50; round++) {
      const results = await Promise.all(Array.from({ length: 10 }, () => send(server, 'GET', '/api/random/anime/')));
      for (const res of results) {
        const body = expectJson(res, 200);
        expect(res.headers.get('etag')).toBeNull();
        expect(res.headers.get('cache-control')).toBe('no-store');
        draws.set(body.id, (draws.get(body.id) ?? 0) + 1);
      }
    }
    expect([...draws.keys()].sort()).toEqual(animes.map((a) => a.id).sort());
    const expected = 500 / 5;
    const chi2 = [...draws.values()].reduce((sum, o) => sum + (o - expected) ** 2 / expected, 0);
    // 4 degrees of freedom: P(χ² > 18.47) = 0.001.
    expect(chi2).toBeLessThan(18.47);
    // The detail shape, as GET shows it.
    const one = expectJson(await send(server, 'GET', '/api/random/anime/'), 200);
    expect(one).toEqual(expectJson(await send(server, 'GET', `/api/animes/${one.id}/`), 200));
    expect(Object.keys(expectJson(await send(server, 'GET', '/api/random/anime/?fields=id,name'), 200))).toEqual(['id', 'name']);
    await expectProblem(await send(server, 'GET', '/api/random/anime/?ordering=name'), 400, 'invalid-query');
  });

  it('a deleted record is never drawn; the last slot moves into its place', { timeout: 120_000 }, async () => {
    const mangas = await Promise.all(Array.from({ length: 4 }, () => create('mangas')));
    await expectDense('MANGA', mangas.map((m) => m.id));
    await remove('mangas', mangas[1]!.id);
    const left = mangas.filter((_, i) => i !== 1).map((m) => m.id);
    await expectDense('MANGA', left);
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) seen.add(expectJson(await send(server, 'GET', '/api/random/manga/'), 200).id);
    expect([...seen].sort()).toEqual([...left].sort());
  });

  it('concurrent creations and deletions leave slots 1..n naming exactly the records', { timeout: 180_000 }, async () => {
    const first = await Promise.all(Array.from({ length: 10 }, () => create('characters')));
    const doomed = first.slice(0, 5);
    const [more] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => create('characters'))),
      Promise.all(doomed.map((c) => remove('characters', c.id))),
    ]);
    await expectDense('CHARACTER', [...first.slice(5), ...more].map((c) => c.id));
    const drawn = expectJson(await send(server, 'GET', '/api/random/character/'), 200);
    expect(Object.keys(drawn)).toEqual(Object.keys(expectJson(await send(server, 'GET', `/api/characters/${drawn.id}/`), 200)));
    expect(doomed.map((c) => c.id)).not.toContain(drawn.id);
  });

  it('a deletion frees the slot its record holds at commit: moved by another deletion since it was read, the counter back at the n read (decision Z7)', { timeout: 120_000 }, async () => {
    // Slots …, k: moved, k+1 = n: doomed. The deletion of doomed reads it in slot n; then moved's
    // deletion moves doomed into slot k and a creation takes slot n again: the counter is back at
    // the n the deletion read, and only the slot's own condition tells that doomed left slot n.
    const [moved, doomed] = [await create('persons'), await create('persons')];
    let newcomer: { id: string } | undefined;
    await writeTitle(persons, async () => {
      const before = (await loadTitle(persons.title, doomed.id))!;
      if (!newcomer) {
        await remove('persons', moved.id);
        newcomer = await create('persons');
      }
      return { before, after: null, relations: {} };
    });
    const { slots } = await slotsOf('PERSON');
    expect(slots.map((s) => s.id)).toContain(newcomer!.id);
    expect(slots.map((s) => s.id)).not.toContain(doomed.id);
    expect(slots.map((s) => s.id)).not.toContain(moved.id);
    await expectDense('PERSON', slots.map((s) => s.id));
  });
});
