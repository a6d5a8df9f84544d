/**
 * Cursor pagination (API.md §1.5) over the taxonomy lists: walking forwards and backwards,
 * links, `limit`, cursor binding, ties and filtered (possibly short) pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  create,
  expectErrors,
  expectJson,
  expectedOrder,
  kind,
  minimal,
  relative,
  send,
  walk,
  type Sent,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
const magazines: any[] = [];
const NAMES = ['Afternoon', 'Big Comic', 'Comic Beam', 'Dengeki', 'Evening', 'Feel Young', 'Gangan', 'Hana to Yume', 'Ikki', 'Jump', 'Kiss', 'LaLa'];

beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
  // Created out of order, so that creation order and name order differ.
  for (const name of [...NAMES].reverse()) magazines.push(await create(server, kind('magazines'), auth, { name }));
  magazines.sort((a, b) => NAMES.indexOf(a.name) - NAMES.indexOf(b.name));
});

const get = (url: string) => send(server, 'GET', url);
const names = (res: Sent) => res.body.results.map((r: any) => r.name);
const params = (url: string) => [...new URL(url).searchParams.entries()];
const cursorOf = (url: string) => new URL(url).searchParams.get('cursor')!;

describe('walking a list', () => {
  it('forwards with limit=5: every record exactly once, in order; previous null only on the first page', async () => {
    const { results, pages } = await walk(server, '/api/magazines/?limit=5');
    expect(results.map((r) => r.name)).toEqual(NAMES);
    expect(results).toEqual(magazines);
    expect(pages.map((p) => p.body.results.length)).toEqual([5, 5, 2]);
    expect(pages[0]!.body.previous).toBeNull();
    for (const p of pages.slice(1)) expect(p.body.previous).toBeTypeOf('string');
    for (const p of pages) expect(p.body.count).toBe(12);
    for (const p of pages.slice(0, -1)) {
      const next = p.body.next as string;
      expect(next.startsWith(`${server.url}/api/magazines/?`)).toBe(true);
      expect(new URL(next).searchParams.get('limit')).toBe('5');
    }
    expect(pages.at(-1)!.body.next).toBeNull();
  });

  it('a page that ends exactly at the end of the list has next null', async () => {
    const { pages } = await walk(server, '/api/magazines/?limit=6');
    expect(pages.map((p) => p.body.results.length)).toEqual([6, 6]);
    const whole = await get('/api/magazines/?limit=12');
    expect(whole.body.next).toBeNull();
    expect(whole.body.results).toHaveLength(12);
  });

  it('backwards with previous from the last page, down to an empty page before the first record', async () => {
    const { pages } = await walk(server, '/api/magazines/?limit=5');
    const last = pages.at(-1)!;
    const p2 = await get(last.body.previous);
    expect(names(p2)).toEqual(NAMES.slice(5, 10));
    expect(p2.body.previous).toBeTypeOf('string');
    expect(p2.body.next).toBeTypeOf('string');
    const p1 = await get(p2.body.previous);
    expect(names(p1)).toEqual(NAMES.slice(0, 5));
    expect(p1.body.previous).toBeTypeOf('string');
    const p0 = await get(p1.body.previous);
    expect(p0.status).toBe(200);
    expect(p0.body.results).toEqual([]);
    expect(p0.body.previous).toBeTypeOf('string');
    // Records follow the empty page: its next leads to the start of the list.
    expect(p0.body.next).toBeTypeOf('string');
    expect(names(await get(p0.body.next))).toEqual(NAMES.slice(0, 5));
    // next of a page reached through previous continues right after it.
    expect(names(await get(p1.body.next))).toEqual(NAMES.slice(5, 10));
    expect(names(await get(p2.body.next))).toEqual(NAMES.slice(10));
  });

  it('previous of the second page is the first page', async () => {
    const first = await get('/api/magazines/?limit=4');
    const second = await get(first.body.next);
    expect(names(second)).toEqual(NAMES.slice(4, 8));
    const back = await get(second.body.previous);
    expect(names(back)).toEqual(NAMES.slice(0, 4));
  });

  it('descending: ordering=-name walks the reverse order', async () => {
    const { results, pages } = await walk(server, '/api/magazines/?ordering=-name&limit=5');
    expect(results.map((r) => r.name)).toEqual([...NAMES].reverse());
    const back = await get(pages.at(-1)!.body.previous);
    expect(names(back)).toEqual([...NAMES].reverse().slice(5, 10));
  });

  it('created_at ordering, both directions', async () => {
    for (const ordering of ['created_at', '-created_at']) {
      const { results } = await walk(server, `/api/magazines/?ordering=${ordering}&limit=5`);
      expect(results).toEqual(expectedOrder(magazines, 'created_at', ordering.startsWith('-')));
    }
  });

  it('ties (every manga_count is 0) are walked by id ascending, forwards and backwards, in both directions', async () => {
    const byId = [...magazines].sort((a, b) => (a.id < b.id ? -1 : 1));
    for (const ordering of ['manga_count', '-manga_count']) {
      const { results, pages } = await walk(server, `/api/magazines/?ordering=${ordering}&limit=5`);
      expect(results).toEqual(byId);
      const back = await get(pages.at(-1)!.body.previous);
      expect(back.body.results).toEqual(byId.slice(5, 10));
      const back2 = await get(back.body.previous);
      expect(back2.body.results).toEqual(byId.slice(0, 5));
    }
  });

  it('q with pagination: matching records only, count null on every page', async () => {
    const { results, pages } = await walk(server, '/api/magazines/?q=comic&limit=1');
    expect(results.map((r) => r.name)).toEqual(['Big Comic', 'Comic Beam']);
    for (const p of pages) expect(p.body.count).toBeNull();
  });
});

describe('links', () => {
  it('next and previous are absolute URLs repeating every query parameter and setting cursor', async () => {
    const query = 'q=comic&ordering=-name&fields=name&limit=1';
    const first = await get(`/api/magazines/?${query}`);
    const sent = params(`${server.url}/api/magazines/?${query}`);
    for (const link of [first.body.next]) {
      expect(link.startsWith(`${server.url}/api/magazines/?`)).toBe(true);
      const got = params(link);
      expect(got.filter(([k]) => k !== 'cursor').sort()).toEqual([...sent].sort());
      expect(got.filter(([k]) => k === 'cursor')).toHaveLength(1);
    }
    const second = await get(first.body.next);
    expect(names(second)).toEqual(['Big Comic']);
    for (const link of [second.body.previous]) {
      const got = params(link);
      expect(got.filter(([k]) => k !== 'cursor').sort()).toEqual([...sent].sort());
    }
    for (const r of second.body.results) expect(Object.keys(r).sort()).toEqual(['id', 'name']);
  });

  it('a cursor keeps working when only limit changes', async () => {
    const first = await get('/api/magazines/?limit=5');
    const cursor = cursorOf(first.body.next);
    const res = await get(`/api/magazines/?limit=3&cursor=${encodeURIComponent(cursor)}`);
    expect(names(res)).toEqual(NAMES.slice(5, 8));
    expect(new URL(res.body.next).searchParams.get('limit')).toBe('3');
    const noLimit = await get(`/api/magazines/?cursor=${encodeURIComponent(cursor)}`);
    expect(names(noLimit)).toEqual(NAMES.slice(5));
  });

  it('the order of query parameters does not matter to a cursor', async () => {
    const first = await get('/api/magazines/?ordering=-name&q=comic&limit=1');
    const cursor = encodeURIComponent(cursorOf(first.body.next));
    const res = await get(`/api/magazines/?limit=1&q=comic&cursor=${cursor}&ordering=-name`);
    expect(names(res)).toEqual(['Big Comic']);
  });
});

describe('invalid limit and cursor → 400 invalid-query', () => {
  it.each(['0', '101', 'abc', '-1', '1.5', '+5', '1e2', ' 5'])('limit=%j', async (limit) => {
    expectErrors(await get(`/api/magazines/?limit=${encodeURIComponent(limit)}`), 400, 'invalid-query', ['limit']);
  });

  it('limit=1 and limit=100 are accepted', async () => {
    expect((await get('/api/magazines/?limit=1')).body.results).toHaveLength(1);
    expect((await get('/api/magazines/?limit=100')).body.results).toHaveLength(12);
  });

  it('a tampered or invented cursor', async () => {
    const first = await get('/api/magazines/?limit=5');
    const cursor = cursorOf(first.body.next);
    const mid = Math.floor(cursor.length / 2);
    const flipped = `${cursor.slice(0, mid)}${cursor[mid] === 'A' ? 'B' : 'A'}${cursor.slice(mid + 1)}`;
    for (const bad of [flipped, `${cursor}x`, cursor.slice(0, -1), 'abc', 'eyJkIjoibiIsImsiOiIifQ', '.']) {
      expectErrors(await get(`/api/magazines/?limit=5&cursor=${encodeURIComponent(bad)}`), 400, 'invalid-query', ['cursor']);
    }
  });

  it('a cursor reused on another path', async () => {
    const first = await get('/api/magazines/?limit=5');
    const cursor = encodeURIComponent(cursorOf(first.body.next));
    for (const path of ['/api/genres/', '/api/themes/', '/api/demographics/', '/api/producers/']) {
      expectErrors(await get(`${path}?limit=5&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
    }
  });

  it('a cursor reused with changed q, ordering or fields, or with one of them added or dropped', async () => {
    const first = await get('/api/magazines/?q=comic&ordering=-name&limit=1');
    const cursor = encodeURIComponent(cursorOf(first.body.next));
    const changed = ['q=beam&ordering=-name', 'q=COMIC&ordering=-name', 'q=comic&ordering=name', 'q=comic&ordering=-created_at', 'q=comic&ordering=-name&fields=name', 'ordering=-name', 'q=comic', ''];
    for (const query of changed) {
      const res = await get(`/api/magazines/?${query}${query ? '&' : ''}limit=1&cursor=${cursor}`);
      expectErrors(res, 400, 'invalid-query', ['cursor']);
    }
    const plain = await get('/api/magazines/?limit=2');
    const plainCursor = encodeURIComponent(cursorOf(plain.body.next));
    for (const query of ['q=a', 'ordering=name', 'fields=name', 'ordering=-name']) {
      expectErrors(await get(`/api/magazines/?${query}&limit=2&cursor=${plainCursor}`), 400, 'invalid-query', ['cursor']);
    }
  });

  it('a previous cursor is bound the same way', async () => {
    const { pages } = await walk(server, '/api/magazines/?limit=5');
    const cursor = encodeURIComponent(cursorOf(pages.at(-1)!.body.previous));
    expectErrors(await get(`/api/magazines/?ordering=-name&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
    expectErrors(await get(`/api/genres/?cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
  });
});

describe('filtered pages (producers type filter)', () => {
  const producers = kind('producers');
  const types = ['studio', 'licensor', 'network', 'studio', 'publisher', 'licensor', 'studio', 'sponsor', 'platform', 'studio', 'network', 'studio', 'distributor'];
  const created: any[] = [];
  beforeAll(async () => {
    for (const [i, type] of types.entries()) created.push(await create(server, producers, auth, { ...minimal(producers, `Producer ${String.fromCharCode(65 + i)}`), type }));
  });

  it('type=studio&limit=2: following next yields every studio exactly once in order (short pages allowed)', async () => {
    const { results, pages } = await walk(server, '/api/producers/?type=studio&limit=2');
    const studios = created.filter((p) => p.type === 'studio');
    expect(results).toEqual(studios);
    for (const p of pages) {
      expect(p.body.count).toBeNull();
      expect(p.body.results.length).toBeLessThanOrEqual(2);
      for (const r of p.body.results) expect(r.type).toBe('studio');
      if (p.body.next !== null) {
        const q = new URL(p.body.next).searchParams;
        expect(q.get('type')).toBe('studio');
        expect(q.get('limit')).toBe('2');
      }
    }
  });

  it('walking back with previous from the last page yields the studios in reverse page order', async () => {
    const { pages } = await walk(server, '/api/producers/?type=studio&limit=2');
    const studios = created.filter((p) => p.type === 'studio');
    const seen: any[] = [];
    let page = pages.at(-1)!;
    seen.unshift(...page.body.results);
    for (let i = 0; i < 20 && seen.length < studios.length; i++) {
      page = await get(relative(server, page.body.previous));
      expect(page.status).toBe(200);
      seen.unshift(...page.body.results);
    }
    expect(seen).toEqual(studios);
  });

  it('a filtered cursor is bound to the filter', async () => {
    const first = await get('/api/producers/?type=studio&limit=2');
    const cursor = encodeURIComponent(cursorOf(first.body.next));
    expectErrors(await get(`/api/producers/?type=licensor&limit=2&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
    expectErrors(await get(`/api/producers/?limit=2&cursor=${cursor}`), 400, 'invalid-query', ['cursor']);
    expect(expectJson(await get(`/api/producers/?type=studio&limit=4&cursor=${cursor}`), 200).results.length).toBeGreaterThan(0);
  });
});
