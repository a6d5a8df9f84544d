/**
 * `ids` on every catalogue and taxonomy list (API.md §8.1): a filter like the others — combined
 * with `q` and the list's filters, in the list's ordering, paginated with full pages — whose ids
 * of no record (never written, or deleted) are simply absent, never an error; `count` is `null`
 * as for any filtered query. A page of 100 ids takes at most 2 rounds of DynamoDB calls (the
 * SDK middleware of test/bench/sdk-calls.ts). Malformed, repeated or more than 100 ids: 400.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../shared/ids.js';
import { instrumentSdk, rounds } from '../bench/sdk-calls.js';
import { expectJson, expectProblem, send, uniqueName } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
const recorder = instrumentSdk();
type Obj = Record<string, any>;
let auth: Record<string, string>;

/** The ten lists, with what creating a record of each needs besides its name. */
const LISTS: { segment: string; body?: Obj; indexed: boolean }[] = [
  { segment: 'animes', indexed: true },
  { segment: 'mangas', indexed: true },
  { segment: 'characters', indexed: true },
  { segment: 'persons', indexed: true },
  { segment: 'news', body: { description: 'A short article.', content: 'What the article says.' }, indexed: true },
  { segment: 'genres', indexed: false },
  { segment: 'themes', indexed: false },
  { segment: 'demographics', indexed: false },
  { segment: 'producers', body: { type: 'studio' }, indexed: false },
  { segment: 'magazines', indexed: false },
];

const post = async (segment: string, body: Obj) => expectJson(await send(server, 'POST', `/api/${segment}/`, { body, headers: auth }), 201) as Obj;
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200) as Obj;
const idsOf = (page: Obj) => (page.results as Obj[]).map((r) => r.id as string);

/** Every page of a list from `path`, following `next`; then the same pages back with `previous`. */
async function walk(path: string): Promise<{ pages: string[][]; back: string[][] }> {
  const pages: string[][] = [];
  let url: string | null = path;
  let last: Obj | null = null;
  while (url) {
    last = await get(url.replace(server.url, ''));
    expect(last.count, url).toBeNull();
    pages.push(idsOf(last));
    url = last.next;
  }
  // Back with `previous` until the empty page that says nothing precedes (§1.5).
  const back: string[][] = [];
  url = last!.previous;
  for (let n = 0; url && n < 20; n++) {
    const page = await get(url.replace(server.url, ''));
    if (page.results.length === 0) break;
    back.unshift(idsOf(page));
    url = page.previous;
  }
  return { pages, back };
}

beforeAll(async () => {
  // A moderator writes news as well as the rest of the catalogue.
  auth = (await server.user('moderator')).auth;
});

describe.each(LISTS)('GET /api/$segment/?ids=', ({ segment, body = {} }) => {
  const tag = uniqueName('Batch').replace(/\W/g, '');
  let made: Obj[];
  let deleted: Obj;
  beforeAll(async () => {
    // Names in a known order; the odd ones share a word that `q` finds.
    made = [];
    for (const [i, letter] of ['b', 'e', 'a', 'd', 'c', 'f'].entries()) made.push(await post(segment, { ...body, name: `${tag} ${letter}${i % 2 ? ' Odd' : ''}` }));
    deleted = await post(segment, { ...body, name: `${tag} gone` });
    expect((await send(server, 'DELETE', `/api/${segment}/${deleted.id}/`, { headers: auth })).status).toBe(204);
  });
  const byName = (records: Obj[]) => [...records].sort((a, b) => (a.name < b.name ? -1 : 1)).map((r) => r.id as string);

  it('gives the records it names in the list’s order, leaving out a deleted one and an id of no record; count null', async () => {
    const ids = [...made.map((r) => r.id), deleted.id, newId()];
    const page = await get(`/api/${segment}/?ids=${ids.join(',')}&ordering=name`);
    expect(idsOf(page)).toEqual(byName(made));
    expect(page.count).toBeNull();
    expect((await get(`/api/${segment}/?ids=${ids.join(',')}&ordering=-name`)).results.map((r: Obj) => r.id)).toEqual(byName(made).reverse());
  });

  it('pages are full but the last, ceil(m/limit) requests, and previous walks them back', async () => {
    const { pages, back } = await walk(`/api/${segment}/?ids=${made.map((r) => r.id).join(',')}&ordering=name&limit=4`);
    expect(pages).toEqual([byName(made).slice(0, 4), byName(made).slice(4)]);
    expect(back.flat()).toEqual(byName(made).slice(0, 4));
  });

  it('combines with q (AND) and names only what matches both', async () => {
    const some = made.slice(0, 4);
    const page = await get(`/api/${segment}/?ids=${some.map((r) => r.id).join(',')}&q=odd&ordering=name`);
    expect(idsOf(page)).toEqual(byName(some.filter((r) => r.name.endsWith('Odd'))));
  });

  it('an id of no record alone: an empty page, not an error', async () => {
    const page = await get(`/api/${segment}/?ids=${newId()}`);
    expect(page).toMatchObject({ count: null, next: null, previous: null, results: [] });
  });

  it.each([
    ['101 ids', () => Array.from({ length: 101 }, () => newId()).join(',')],
    ['a repeated id', () => `${made[0]!.id},${made[1]!.id},${made[0]!.id}`],
    ['a malformed id', () => `${made[0]!.id},not an id`],
    ['an empty id', () => `${made[0]!.id},`],
    ['nothing', () => ''],
  ])('%s → 400 under errors.ids', async (_what, value) => {
    const res = await send(server, 'GET', `/api/${segment}/?ids=${encodeURIComponent(value())}`);
    expect(Object.keys(expectProblem(res, 400, 'invalid-query').errors)).toEqual(['ids']);
  });
});

describe('a page of 100 ids', () => {
  it.each([
    ['characters', {}],
    ['genres', {}],
  ])('/api/%s/: at most 2 rounds of DynamoDB calls, 60 records and 40 ids of none', async (segment, body) => {
    const tag = uniqueName('Hundred').replace(/\W/g, '');
    const records: Obj[] = [];
    for (let i = 0; i < 60; i++) records.push(await post(segment, { ...body, name: `${tag} ${String(i).padStart(2, '0')}` }));
    const ids = [...records.map((r) => r.id), ...Array.from({ length: 40 }, () => newId())];
    const path = `/api/${segment}/?ids=${ids.join(',')}&limit=100`;
    await get(path); // The function's first request of the kind loads its snapshot: one round more, once.
    recorder.take();
    const page = await get(path);
    const calls = recorder.take().filter((c) => c.service === 'dynamodb');
    expect(idsOf(page)).toEqual(records.map((r) => r.id));
    expect(rounds(calls).length, calls.map((c) => c.operation).join(' ')).toBeLessThanOrEqual(2);
  });
});
