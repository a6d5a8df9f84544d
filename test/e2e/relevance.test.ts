/**
 * `ordering=relevance` and `fuzzy=true` through the service (API.md §8.4), over records written
 * through it (the deltas of the in-memory index; the property test of test/unit/snapshot.test.ts
 * compares the snapshot's evaluation with a brute force). `ids` keeps each query to the records
 * a test wrote. The four ranks in order and reversed with `-relevance`, paginated both ways;
 * fuzzy-only matches as a fifth rank; typos and words written together; the four other indexed
 * lists; and the 400s: relevance without terms, a `fuzzy` that is not a boolean, relevance on a
 * list that does not rank.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrors, expectJson, send } from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer({ background: false });
type Obj = Record<string, any>;
let auth: Record<string, string>;

const post = async (segment: string, body: Obj) => expectJson(await send(server, 'POST', `/api/${segment}/`, { body, headers: auth }), 201) as Obj;
const get = async (path: string) => expectJson(await send(server, 'GET', path), 200) as Obj;
const names = (page: Obj) => (page.results as Obj[]).map((r) => r.name as string);

/** Every page from `path` following `next`, then back with `previous`: both must give the same list. */
async function walked(path: string): Promise<string[]> {
  const forward: string[] = [];
  let url: string | null = path;
  let last: Obj | null = null;
  while (url) {
    last = await get(url.replace(server.url, ''));
    forward.push(...names(last));
    url = last.next;
  }
  const back: string[] = [];
  url = last!.previous;
  for (let n = 0; url && n < 20; n++) {
    const page = await get(url.replace(server.url, ''));
    if (page.results.length === 0) break;
    back.unshift(...names(page));
    url = page.previous;
  }
  expect(back.length === 0 || back.concat(names(last!)).join('|') === forward.join('|') || back.join('|') === forward.slice(0, back.length).join('|'), 'previous walks the same list back').toBe(true);
  return forward;
}

beforeAll(async () => {
  auth = (await server.user('moderator')).auth;
});

describe('GET /api/animes/?ordering=relevance', () => {
  const made: Obj[] = [];
  let ids = '';
  beforeAll(async () => {
    for (const body of [
      { name: 'Titans', alternative_names: ['Shingeki no Kyojin Gaiden'] }, // (4) a match outside `name`
      { name: 'Kyojin Shingeki' }, // (3) every term starts a word of `name`, not the first term its first word
      { name: 'Shingeki no Kyojin' }, // (2) and the first term starts its first word
      { name: 'Attack', alternative_names: ['Shingeki Kyojin'] }, // (1) a field equal to the terms
      { name: 'Shingeky Kyojin' }, // (5) only with fuzzy: one typo in a word of 8 letters
      { name: 'Re:Zero kara Hajimeru Isekai Seikatsu' },
      { name: 'Full Metal Panic!' },
    ]) {
      made.push(await post('animes', body));
    }
    ids = made.map((r) => r.id).join(',');
  });

  it('orders the four ranks best first, and -relevance is the exact reverse, page by page both ways', async () => {
    const ranked = ['Attack', 'Shingeki no Kyojin', 'Kyojin Shingeki', 'Titans'];
    expect(await walked(`/api/animes/?ids=${ids}&q=Shingeki+Kyojin&ordering=relevance&limit=2`)).toEqual(ranked);
    expect(await walked(`/api/animes/?ids=${ids}&q=Shingeki+Kyojin&ordering=-relevance&limit=3`)).toEqual([...ranked].reverse());
    // The default ordering (name) gives the same matches in another order.
    expect(await walked(`/api/animes/?ids=${ids}&q=Shingeki+Kyojin`)).toEqual([...ranked].sort());
  });

  it('with fuzzy=true, matches through a typo come after every exact match (a fifth rank)', async () => {
    expect(await walked(`/api/animes/?ids=${ids}&q=Shingeki+Kyojin&ordering=relevance&fuzzy=true&limit=2`)).toEqual(['Attack', 'Shingeki no Kyojin', 'Kyojin Shingeki', 'Titans', 'Shingeky Kyojin']);
    // Two typos in a word of 9 letters: every title with a word within distance 2 (of its first 8–10 letters), all of them fuzzy-only.
    expect(names(await get(`/api/animes/?ids=${ids}&q=Shignekii&fuzzy=true&ordering=relevance`)).sort()).toEqual(['Attack', 'Kyojin Shingeki', 'Shingeki no Kyojin', 'Titans']);
    expect(names(await get(`/api/animes/?ids=${ids}&q=Shignekii`))).toEqual([]);
  });

  it('words written together match with fuzzy=true only: rezero, fullmetal', async () => {
    expect(names(await get(`/api/animes/?ids=${ids}&q=rezero&fuzzy=true`))).toEqual(['Re:Zero kara Hajimeru Isekai Seikatsu']);
    expect(names(await get(`/api/animes/?ids=${ids}&q=fullmetal&fuzzy=true`))).toEqual(['Full Metal Panic!']);
    expect(names(await get(`/api/animes/?ids=${ids}&q=rezero`))).toEqual([]);
    // Terms of 1–3 characters match as without fuzzy.
    expect(names(await get(`/api/animes/?ids=${ids}&q=ful&fuzzy=true`))).toEqual(['Full Metal Panic!']);
    expect(names(await get(`/api/animes/?ids=${ids}&q=fll&fuzzy=true`))).toEqual([]);
  });

  it('400 for relevance without terms, a fuzzy that is not a boolean, and relevance where a list does not rank', async () => {
    expectErrors(await send(server, 'GET', '/api/animes/?ordering=relevance'), 400, 'invalid-query', ['ordering']);
    expectErrors(await send(server, 'GET', '/api/animes/?ordering=-relevance&q=%21%21'), 400, 'invalid-query', ['ordering']);
    expectErrors(await send(server, 'GET', '/api/animes/?q=naruto&fuzzy=yes'), 400, 'invalid-query', ['fuzzy']);
    expectErrors(await send(server, 'GET', '/api/genres/?q=action&ordering=relevance'), 400, 'invalid-query', ['ordering']);
    expectErrors(await send(server, 'GET', '/api/genres/?q=action&fuzzy=true'), 400, 'invalid-query', ['fuzzy']);
  });
});

describe.each([
  { segment: 'mangas', body: {} },
  { segment: 'characters', body: {} },
  { segment: 'persons', body: {} },
  { segment: 'news', body: { description: 'A short article.', content: 'What the article says.' } },
])('GET /api/$segment/?ordering=relevance', ({ segment, body }) => {
  it('ranks a name that starts with the terms before one that only contains them, and finds a typo with fuzzy=true only', async () => {
    const made = [await post(segment, { ...body, name: 'Story of Frieren' }), await post(segment, { ...body, name: 'Frieren Story' })];
    const ids = made.map((r) => r.id).join(',');
    expect(names(await get(`/api/${segment}/?ids=${ids}&q=frieren&ordering=relevance`))).toEqual(['Frieren Story', 'Story of Frieren']);
    // Both through a typo only: one rank (5), whose order is the list's relevance ordering (favorites, members or the date) then the id.
    expect(names(await get(`/api/${segment}/?ids=${ids}&q=freiren&fuzzy=true&ordering=relevance`)).sort()).toEqual(['Frieren Story', 'Story of Frieren']);
    expect(names(await get(`/api/${segment}/?ids=${ids}&q=freiren`))).toEqual([]);
  });
});
