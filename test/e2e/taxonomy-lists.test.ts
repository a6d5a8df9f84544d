/**
 * The list operations of the taxonomy resources (API.md §1.5, §1.6, §4.3, §4.4, §4.6, §4.11,
 * §4.18): search, count, ordering, sparse fieldsets and query parameter rules.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KINDS,
  create,
  expectErrors,
  expectJson,
  expectProblem,
  expectedOrder,
  minimal,
  send,
  walk,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();

/** Names of the data set, in the order of `ordering=name` (N(name) by code point); ties share a group. */
const NAME_ORDER = [
  ['alpha'],
  ['Élan', 'Elan'],
  ['ＦＵＬＬ Width'],
  ["JoJo's Bizarre"],
  ['Kyoto Animation'],
  ['Pokémon'],
  ['Shingeki no Kyojin'],
  ['Straße'],
  ['Zeta'],
  ['Zeta Gundam'],
  ['Ωmega'],
  ['進撃の巨人'],
  // Code point order, not UTF-16 order: U+FFFD sorts before U+1F600.
  ['\uFFFD Mark'],
  ['\u{1F600} Smile'],
];
const NAMES = NAME_ORDER.flat();

describe.each(KINDS.map((k) => [k.segment, k] as const))('GET /api/%s/', (_segment, k) => {
  const collection = `/api/${k.segment}/`;
  const records = new Map<string, any>();
  const byName = (name: string) => records.get(name)!;
  const names = (res: { body: { results: { name: string }[] } }) => res.body.results.map((r) => r.name);
  const byId = (a: any, b: any) => (a.id < b.id ? -1 : 1);

  beforeAll(async () => {
    const contributor = (await server.user('contributor')).auth;
    for (const name of NAMES) records.set(name, await create(server, k, contributor, minimal(k, name)));
  });

  describe('count and default ordering', () => {
    it('without q or filters: every record, ordered by name, with an exact count', async () => {
      const res = await send(server, 'GET', collection);
      const body = expectJson(res, 200);
      expect(body.count).toBe(NAMES.length);
      expect(body.next).toBeNull();
      expect(body.previous).toBeNull();
      const expected = NAME_ORDER.flatMap((group) => group.map(byName).sort(byId));
      expect(body.results).toEqual(expected);
    });
  });

  describe('search q (§1.6)', () => {
    const cases: [string, string[]][] = [
      ['shingeki KYO', ['Shingeki no Kyojin']],
      ['kyo', ['Kyoto Animation', 'Shingeki no Kyojin']],
      ['no kyo shin', ['Shingeki no Kyojin']],
      ['pokemon', ['Pokémon']],
      ['POKÉMON', ['Pokémon']],
      ['巨人', ['進撃の巨人']],
      ['撃の', ['進撃の巨人']],
      ['進撃の巨人', ['進撃の巨人']],
      ['jojos', ["JoJo's Bizarre"]],
      ["jojo's biz", ["JoJo's Bizarre"]],
      ['JOJO\u2019S', ["JoJo's Bizarre"]],
      ['strasse', ['Straße']],
      ['STRAẞE', ['Straße']],
      ['full', ['ＦＵＬＬ Width']],
      ['ｆｕｌ', ['ＦＵＬＬ Width']],
      ['ΩMEGA', ['Ωmega']],
      ['smile', ['\u{1F600} Smile']],
      ['zeta', ['Zeta', 'Zeta Gundam']],
      ['geki', []],
      ['kyojin animation', []],
      ['shingeki no kyojin x', []],
      ['zz', []],
    ];

    it.each(cases)('q=%s', async (q, expected) => {
      const res = await send(server, 'GET', `${collection}?q=${encodeURIComponent(q)}`);
      const body = expectJson(res, 200);
      expect(names(res)).toEqual(expected);
      expect(body.count).toBeNull();
    });

    it('matches both records of a tie, in list order', async () => {
      const res = await send(server, 'GET', `${collection}?q=ELAN`);
      expect(res.body.results).toEqual([byName('Élan'), byName('Elan')].sort(byId));
    });

    it('q does not change the ordering', async () => {
      const res = await send(server, 'GET', `${collection}?q=kyo&ordering=-name`);
      expect(names(res)).toEqual(['Shingeki no Kyojin', 'Kyoto Animation']);
    });

    it.each(['', '   ', "!!! '' ---", '\u2019'])('a q without letters or digits (%j) is ignored', async (q) => {
      const res = await send(server, 'GET', `${collection}?q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(res.body.results).toHaveLength(NAMES.length);
      // An ignored q is as good as none; the contract does not say which count then applies.
      expect([NAMES.length, null]).toContain(res.body.count);
    });

    it('10 terms and 100 characters are accepted; 11 terms or 101 characters → 400', async () => {
      const ten = 'a b c d e f g h i j';
      expect((await send(server, 'GET', `${collection}?q=${encodeURIComponent(ten)}`)).status).toBe(200);
      expectErrors(await send(server, 'GET', `${collection}?q=${encodeURIComponent(`${ten} k`)}`), 400, 'invalid-query', ['q']);
      expect((await send(server, 'GET', `${collection}?q=${'x'.repeat(100)}`)).status).toBe(200);
      expectErrors(await send(server, 'GET', `${collection}?q=${'x'.repeat(101)}`), 400, 'invalid-query', ['q']);
    });
  });

  describe('ordering (§1.6)', () => {
    it.each(k.orderings.flatMap((key) => [key, `-${key}`]))('ordering=%s: by the key, then by id ascending', async (ordering) => {
      const key = ordering.replace(/^-/, '');
      const res = await send(server, 'GET', `${collection}?ordering=${ordering}`);
      const body = expectJson(res, 200);
      expect(body.count).toBe(NAMES.length);
      expect(body.results).toEqual(expectedOrder([...records.values()], key, ordering.startsWith('-')));
    });

    it('ordering=-name is the reverse order of names, ties still by id ascending', async () => {
      const res = await send(server, 'GET', `${collection}?ordering=-name`);
      const expected = [...NAME_ORDER].reverse().flatMap((group) => group.map(byName).sort(byId));
      expect(res.body.results).toEqual(expected);
    });

    it.each(['bogus', 'id', 'name,created_at', '--name', '+name', 'Name', 'name ', '-'])('ordering=%j → 400', async (ordering) => {
      const res = await send(server, 'GET', `${collection}?ordering=${encodeURIComponent(ordering)}`);
      expectErrors(res, 400, 'invalid-query', ['ordering']);
    });

    it('a key of another list → 400', async () => {
      const foreign = ['established', 'anime_count', 'score', 'title'].find((key) => !k.orderings.includes(key))!;
      expectErrors(await send(server, 'GET', `${collection}?ordering=${foreign}`), 400, 'invalid-query', ['ordering']);
    });
  });

  describe('sparse fieldsets (§1.6)', () => {
    it('fields=name: only name and id in each result; the envelope is unaffected', async () => {
      const res = await send(server, 'GET', `${collection}?fields=name`);
      const body = expectJson(res, 200);
      expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results']);
      expect(body.count).toBe(NAMES.length);
      for (const r of body.results) expect(Object.keys(r).sort()).toEqual(['id', 'name']);
      expect(body.results.map((r: any) => r.id)).toEqual(NAME_ORDER.flatMap((g) => g.map(byName).sort(byId)).map((r) => r.id));
    });

    it('fields with several keys, and with id alone', async () => {
      const keys = k.keys.filter((x) => x !== 'id').slice(-2);
      const res = await send(server, 'GET', `${collection}?fields=${keys.join(',')}`);
      for (const r of res.body.results) {
        expect(Object.keys(r).sort()).toEqual(['id', ...keys].sort());
        const stored = [...records.values()].find((x) => x.id === r.id);
        for (const key of keys) expect(r[key]).toEqual(stored[key]);
      }
      const ids = await send(server, 'GET', `${collection}?fields=id`);
      for (const r of ids.body.results) expect(Object.keys(r)).toEqual(['id']);
    });

    it('fields on a detail GET, with its own ETag', async () => {
      const record = byName('Zeta');
      const res = await send(server, 'GET', `${collection}${record.id}/?fields=name,created_at`);
      expect(expectJson(res, 200)).toEqual({ id: record.id, name: 'Zeta', created_at: record.created_at });
      const whole = await send(server, 'GET', `${collection}${record.id}/`);
      expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
      expect(res.headers.get('etag')).not.toBe(whole.headers.get('etag'));
      const again = await send(server, 'GET', `${collection}${record.id}/?fields=name,created_at`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    });

    it.each(['bogus', 'name,bogus', 'name,', ',name', 'results', 'count'])('fields=%s → 400', async (fields) => {
      expectErrors(await send(server, 'GET', `${collection}?fields=${encodeURIComponent(fields)}`), 400, 'invalid-query', ['fields']);
      expectErrors(await send(server, 'GET', `${collection}${byName('alpha').id}/?fields=${encodeURIComponent(fields)}`), 400, 'invalid-query', ['fields']);
    });
  });

  describe('query parameters (§1.6)', () => {
    it.each([
      ['an unknown parameter', '?foo=1', 'foo'],
      ['a repeated parameter', '?ordering=name&ordering=name', 'ordering'],
      ['a repeated q', '?q=a&q=b', 'q'],
      ['an empty ordering', '?ordering=', 'ordering'],
      ['an empty limit', '?limit=', 'limit'],
      ['an empty cursor', '?cursor=', 'cursor'],
      ['an empty fields', '?fields=', 'fields'],
      ['a parameter without value', '?ordering', 'ordering'],
      ['a misspelt parameter', '?search=x', 'search'],
    ])('%s → 400 invalid-query naming it', async (_what, query, key) => {
      expectErrors(await send(server, 'GET', `${collection}${query}`), 400, 'invalid-query', [key]);
    });

    it.each(['offset=5', 'page=2', 'p=2'])('%s → 400 invalid-query (use cursor)', async (query) => {
      const body = expectProblem(await send(server, 'GET', `${collection}?${query}`), 400, 'invalid-query');
      expect(Object.keys(body.errors)).toEqual([query.split('=')[0]]);
      expect(body.detail).toMatch(/cursor/);
    });

    it('list parameters on a detail GET → 400', async () => {
      const id = byName('alpha').id;
      for (const p of ['q=a', 'ordering=name', 'limit=5', 'cursor=abc', 'foo=bar']) {
        expectErrors(await send(server, 'GET', `${collection}${id}/?${p}`), 400, 'invalid-query', [p.split('=')[0]!]);
      }
    });

    it('query parameters on writes are checked too', async () => {
      const contributor = (await server.user('contributor')).auth;
      const res = await send(server, 'POST', `${collection}?foo=1`, { body: minimal(k, 'Query write'), headers: contributor });
      expectErrors(res, 400, 'invalid-query', ['foo']);
      const list = await send(server, 'GET', collection);
      expect(list.body.count).toBe(NAMES.length);
      const id = byName('alpha').id;
      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const r = await send(server, method, `${collection}${id}/?fields=name`, { body: method === 'DELETE' ? undefined : minimal(k, 'alpha'), headers: contributor });
        expectErrors(r, 400, 'invalid-query', ['fields']);
      }
      expect((await send(server, 'GET', `${collection}${id}/`)).body).toEqual(byName('alpha'));
    });

    it('every page of the data set is reachable with the defaults', async () => {
      const { results } = await walk(server, collection);
      expect(results).toHaveLength(NAMES.length);
    });
  });
});
