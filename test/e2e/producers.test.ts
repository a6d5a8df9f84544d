/**
 * Producer-specific rules (API.md §3.7, §4.11): the write shape's dates, URLs and type, the
 * `type` filter, search over `name_jpn`, and `established` ordering with nulls last.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  create,
  expectErrors,
  expectJson,
  expectedOrder,
  kind,
  send,
  uniqueName,
  walk,
} from '../support/contract.js';
import { useServer } from '../support/server.js';

const server = useServer();
const k = kind('producers');
const TYPES = ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'];
let auth: Record<string, string>;
beforeAll(async () => {
  auth = (await server.user('contributor')).auth;
});

const post = (body: Record<string, unknown>) => send(server, 'POST', '/api/producers/', { body, headers: auth });
const valid = (extra: Record<string, unknown> = {}) => ({ name: uniqueName('Producer'), type: 'studio', ...extra });
const utcDay = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

describe('write shape', () => {
  it.each(TYPES)('type %s is accepted', async (type) => {
    expect(expectJson(await post(valid({ type })), 201).type).toBe(type);
  });

  it.each([
    ['unknown', 'bogus'],
    ['upper case', 'Studio'],
    ['the string "5"', '5'],
    ['a number', 5],
    ['null', null],
    ['empty', ''],
    ['a list', ['studio']],
  ])('type %s → 400', async (_what, type) => {
    expectErrors(await post(valid({ type })), 400, 'validation-error', ['type']);
  });

  it('name_jpn is a single-line string: NFC, trimmed, ≤ 255 code points, null means ""', async () => {
    expect(expectJson(await post(valid({ name_jpn: '  ｶﾞ  ' })), 201).name_jpn).toBe('ｶﾞ');
    expect(expectJson(await post(valid({ name_jpn: ' \u30ab\u3099 ' })), 201).name_jpn).toBe('\u30ac');
    expect(expectJson(await post(valid({ name_jpn: null })), 201).name_jpn).toBe('');
    expect(expectJson(await post(valid({ name_jpn: '\u{20BB7}'.repeat(255) })), 201).name_jpn).toBe('\u{20BB7}'.repeat(255));
    expectErrors(await post(valid({ name_jpn: 'x'.repeat(256) })), 400, 'validation-error', ['name_jpn']);
    expectErrors(await post(valid({ name_jpn: 'a\nb' })), 400, 'validation-error', ['name_jpn']);
    expectErrors(await post(valid({ name_jpn: 12 })), 400, 'validation-error', ['name_jpn']);
  });

  it('about is text of at most 5,000 code points', async () => {
    expect(expectJson(await post(valid({ about: 'é'.repeat(5000) })), 201).about).toBe('é'.repeat(5000));
    expectErrors(await post(valid({ about: 'a'.repeat(5001) })), 400, 'validation-error', ['about']);
    expect(expectJson(await post(valid({ about: null })), 201).about).toBe('');
  });

  it('established: a real date between 1800-01-01 and today, or null', async () => {
    for (const d of ['1800-01-01', '2020-02-29', '1999-12-31', utcDay(-1)]) {
      expect(expectJson(await post(valid({ established: d })), 201).established, d).toBe(d);
    }
    expect(expectJson(await post(valid({ established: null })), 201).established).toBeNull();
    for (const d of ['1799-12-31', '2021-02-29', '2020-13-01', '2020-04-31', '2020-2-3', '20200203', '2020-02-03T00:00:00Z', '', 'today', utcDay(2), '9999-01-01']) {
      expectErrors(await post(valid({ established: d })), 400, 'validation-error', ['established']);
    }
    expectErrors(await post(valid({ established: 20200203 })), 400, 'validation-error', ['established']);
  });

  it('image: an https URL (or null)', async () => {
    for (const url of ['https://img.example.org/a.png', 'https://example.org', 'https://example.org:8443/a?b=c#d']) {
      expect(expectJson(await post(valid({ image: url })), 201).image, url).toBe(url);
    }
    expect(expectJson(await post(valid({ image: null })), 201).image).toBeNull();
    const long = `https://example.org/${'a'.repeat(2048 - 'https://example.org/'.length)}`;
    expect(expectJson(await post(valid({ image: long })), 201).image).toBe(long);
    for (const url of [
      'http://img.example.org/a.png',
      'ftp://example.org/a.png',
      '/relative.png',
      'example.org/a.png',
      'https://user:secret@example.org/a.png',
      'https://user@example.org/a.png',
      'https://exa mple.org/a.png',
      'https://example.org/a b.png',
      `${long}a`,
      '',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
    ]) {
      expectErrors(await post(valid({ image: url })), 400, 'validation-error', ['image']);
    }
  });

  it('website: an http or https URL (or null)', async () => {
    for (const url of ['http://example.org/', 'https://example.org/studio']) {
      expect(expectJson(await post(valid({ website: url })), 201).website, url).toBe(url);
    }
    for (const url of ['ftp://example.org/', 'mailto:a@example.org', 'javascript:alert(1)', 'http://', 'http://a:b@example.org/', 5]) {
      expectErrors(await post(valid({ website: url })), 400, 'validation-error', ['website']);
    }
  });

  it('every field error is reported together', async () => {
    const res = await post({
      name: 'x'.repeat(256),
      name_jpn: 5,
      type: 'bogus',
      about: false,
      established: '2020-02-30',
      image: 'http://example.org/a.png',
      website: 'ftp://example.org',
      anime_count: 3,
    });
    expectErrors(res, 400, 'validation-error', ['name', 'name_jpn', 'type', 'about', 'established', 'image', 'website', 'anime_count']);
  });

  it('PATCH may set nullable fields back to null, and change type while not credited', async () => {
    const p = await create(server, k, auth, { name: uniqueName('Nullable'), ...k.required, ...k.filled });
    const res = await send(server, 'PATCH', `/api/producers/${p.id}/`, { body: { established: null, image: null, website: null, type: 'licensor' }, headers: auth });
    const body = expectJson(res, 200);
    expect(body).toEqual({ ...p, established: null, image: null, website: null, type: 'licensor', updated_at: body.updated_at });
  });
});

describe('list: type filter, search over name_jpn, established ordering', () => {
  const data: { name: string; name_jpn?: string; type: string; established: string | null }[] = [
    { name: 'Ghibli', name_jpn: 'スタジオジブリ', type: 'studio', established: '1985-06-15' },
    { name: 'Madhouse', name_jpn: 'マッドハウス', type: 'studio', established: '1972-10-17' },
    { name: 'Sunrise', name_jpn: 'サンライズ', type: 'studio', established: '1972-10-17' },
    { name: 'Aniplex', type: 'licensor', established: '1995-09-01' },
    { name: 'Crunchyroll', type: 'licensor', established: null },
    { name: 'Kodansha', name_jpn: '講談社', type: 'publisher', established: '1909-11-01' },
    { name: 'Fuji TV', name_jpn: 'フジテレビ', type: 'network', established: null },
    { name: 'Bandai', type: 'sponsor', established: '1950-07-05' },
    { name: 'Netflix', type: 'platform', established: '1997-08-29' },
    { name: 'Studio Trigger', name_jpn: 'トリガー', type: 'studio', established: null },
  ];
  const created: any[] = [];
  const byName = (n: string) => created.find((r) => r.name === n);
  beforeAll(async () => {
    for (const d of data) created.push(await create(server, k, auth, d));
  });
  /** Every page of the list (filtered pages may be short while `next` is set). */
  const list = async (query: string) => {
    const first = await send(server, 'GET', `/api/producers/?limit=100&${query}`);
    if (first.status !== 200) return first;
    const { results } = await walk(server, `/api/producers/?limit=100&${query}`);
    return { ...first, body: { ...first.body, results } };
  };
  const ours = (results: any[]) => results.filter((r) => created.some((c) => c.id === r.id));

  it.each(['studio', 'licensor', 'publisher', 'network', 'distributor'])('type=%s: exactly the producers of that type, count null', async (type) => {
    const res = await list(`type=${type}`);
    const body = expectJson(res, 200);
    expect(body.count).toBeNull();
    for (const r of body.results) expect(r.type).toBe(type);
    const expected = created.filter((r) => r.type === type).map((r) => r.name).sort();
    expect(ours(body.results).map((r) => r.name).sort()).toEqual(expected);
  });

  it('filters and q combine with AND', async () => {
    const res = await list('type=studio&q=studio');
    expect(ours(res.body.results).map((r) => r.name)).toEqual(['Studio Trigger']);
    const jpn = await list('type=studio&q=スタジオ');
    expect(ours(jpn.body.results).map((r) => r.name)).toEqual(['Ghibli']);
    expect((await list('type=licensor&q=ghibli')).body.results).toEqual([]);
  });

  it('q searches name_jpn too (kana and Han start words inside a run)', async () => {
    expect(ours((await list(`q=${encodeURIComponent('ジブリ')}`)).body.results).map((r) => r.name)).toEqual(['Ghibli']);
    expect(ours((await list(`q=${encodeURIComponent('談社')}`)).body.results).map((r) => r.name)).toEqual(['Kodansha']);
    expect(ours((await list(`q=${encodeURIComponent('テレビ')}`)).body.results).map((r) => r.name)).toEqual(['Fuji TV']);
    expect(ours((await list('q=fuji')).body.results).map((r) => r.name)).toEqual(['Fuji TV']);
  });

  it.each(['Studio', 'bogus', 'studio,licensor', ' studio'])('type=%j → 400', async (type) => {
    expectErrors(await list(`type=${encodeURIComponent(type)}`), 400, 'invalid-query', ['type']);
  });

  it('an empty or repeated type → 400', async () => {
    expectErrors(await list('type='), 400, 'invalid-query', ['type']);
    expectErrors(await list('type=studio&type=studio'), 400, 'invalid-query', ['type']);
  });

  it.each(['established', '-established'])('ordering=%s: by date, nulls last in both directions, ties by id', async (ordering) => {
    const res = await list(`ordering=${ordering}`);
    const results = ours(res.body.results);
    expect(results).toEqual(expectedOrder(created, 'established', ordering.startsWith('-')));
    const nulls = results.filter((r) => r.established === null);
    expect(results.slice(-nulls.length)).toEqual(nulls);
    // Madhouse and Sunrise share a date: id ascending in both directions.
    const pair = results.filter((r) => r.established === '1972-10-17').map((r) => r.id);
    expect(pair).toEqual([byName('Madhouse').id, byName('Sunrise').id].sort());
  });

  it('ordering=established with the type filter', async () => {
    const res = await list('type=studio&ordering=-established');
    expect(ours(res.body.results).map((r) => r.name).slice(0, 1)).toEqual(['Ghibli']);
    expect(ours(res.body.results).at(-1).name).toBe('Studio Trigger');
  });

  it.each(['manga_count', 'description'])('ordering=%s is not a producer key → 400', async (key) => {
    expectErrors(await list(`ordering=${key}`), 400, 'invalid-query', ['ordering']);
  });
});
