/**
 * The storage pattern of shared/db/records.ts and the pages of shared/db/index-query.ts on the
 * real engine (DynamoDB Local): every ordering and direction walked with several limits, forwards
 * with `next` and backwards with `previous`, against the order computed from API.md §1.6; search
 * and equality filters with bounded reads; index items that follow updates and deletes;
 * uniqueness; optimistic concurrency; and the cost of a list page.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes as genreRoutes } from '../../functions/genres/routes.js';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import {
  countRecords,
  createRecord,
  deleteRecord,
  getRecord,
  listRecords,
  replaceRecord,
  StaleRecord,
  type BaseRecord,
  type EntityDef,
  type ListRequest,
} from '../../shared/db/records.js';
import type { IndexPage } from '../../shared/db/index-query.js';
import type { Cursor } from '../../shared/db/sort-keys.js';
import { genreEntity, producerEntity, type GenreRecord, type ProducerRecord } from '../../shared/db/taxonomy.js';
import type { OrderValue } from '../../shared/db/sort-keys.js';
import { listOperation } from '../../shared/http/crud.js';
import { createHandler } from '../../shared/http/handler.js';
import { HttpError } from '../../shared/problem.js';
import { genres } from '../../shared/domain/taxonomy.js';
import { newId } from '../../shared/ids.js';
import { queryTerms } from '../../shared/text.js';
import { apiEvent, invokeApi } from '../support/lambda.js';
import { contractMatches, contractOrder } from '../support/list-rules.js';
import { tokenVerification } from '../../shared/auth/verification.js';

const GENRE_NAMES = [
  'Action', 'Adventure', 'Avant Garde', 'Award Winning', 'Boys Love', 'Comedy', 'Drama', 'Fantasy', 'Girls Love', 'Gourmet',
  'Horror', 'Mystery', 'Romance', 'Sci-Fi', 'Slice of Life', 'Sports', 'Supernatural', 'Suspense', 'Ecchi', 'Mecha',
  'Music', 'Isekai', 'Shounen', 'Shoujo', 'Seinen', 'Josei', 'Kids', 'Pokémon', 'Pokemon', 'Café',
  'Cafe', "JoJo's", 'Jojos', 'Straße', 'ab', 'abc', 'AB c', 'a', '進撃の巨人', '巨人',
  'ガンダム', '한국', '😀 Emoji', '\ue000 Private', 'Ｆｕｌｌ', '2001', '10 Count', '9 Lives', 'Ångström', 'Zebra',
  'zeta', 'Éclair', 'Eclairs', "'", '\u2019', '-', 'Ω', 'ω Omega2', 'Ünïcödé', 'Shingeki no Kyojin',
];

type Ordering<R> = { key: string; value: (r: R) => OrderValue; type: 'text' | 'count' | 'plain' };
const GENRE_ORDERINGS: Ordering<GenreRecord>[] = [
  { key: 'name', value: (r) => r.name, type: 'text' },
  { key: 'anime_count', value: (r) => r.anime_count, type: 'count' },
  { key: 'manga_count', value: (r) => r.manga_count, type: 'count' },
  { key: 'created_at', value: (r) => r.created_at, type: 'plain' },
];

const ids = (page: IndexPage<BaseRecord>) => page.items.map((i) => i.value.id);

/** Follows `next` from the first page to the end. */
async function walkForward<R extends BaseRecord>(def: EntityDef<R>, req: Omit<ListRequest, 'cursor'>) {
  const pages: IndexPage<R>[] = [];
  let cursor: ListRequest['cursor'] = null;
  for (let i = 0; i < 2000; i++) {
    const page: IndexPage<R> = await listRecords(def, { ...req, cursor });
    pages.push(page);
    if (i === 0) expect(page.previous).toBeNull(); // a page requested without cursor
    else expect(page.previous).not.toBeNull();
    expect(page.items.length).toBeLessThanOrEqual(req.limit);
    if (!page.next) return pages;
    cursor = page.next;
  }
  throw new Error('too many pages');
}

/** Follows `previous` from `page` until a page comes back empty; returns the pages in list order. */
async function walkBackward<R extends BaseRecord>(def: EntityDef<R>, req: Omit<ListRequest, 'cursor'>, from: IndexPage<R>) {
  const pages: IndexPage<R>[] = [];
  if (from.previous === null) return pages; // `from` is the first page
  let cursor: Cursor | null = from.previous;
  for (let i = 0; i < 2000 && cursor; i++) {
    const page: IndexPage<R> = await listRecords(def, { ...req, cursor });
    expect(page.previous).not.toBeNull(); // requested with a cursor
    expect(page.next).not.toBeNull(); // `from` follows it
    expect(page.items.length).toBeLessThanOrEqual(req.limit);
    if (page.items.length === 0) {
      // Nothing precedes: the page's `next` leads back to where we came from.
      return pages.reverse();
    }
    pages.push(page);
    cursor = page.previous;
  }
  throw new Error('no empty page at the start');
}

/** Number of items in an ordering partition (every record has exactly one per partition). */
async function partitionSize(kind: string, ordering: string, dir: 'A' | 'D'): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${kind}#O#${ordering}#${dir}` }, Select: 'COUNT', ExclusiveStartKey: start }),
    );
    n += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

function genre(name: string, over: Partial<GenreRecord> = {}): GenreRecord {
  const at = new Date().toISOString();
  return { id: newId(), name, description: '', explicit: false, anime_count: 0, manga_count: 0, created_at: at, updated_at: at, ...over };
}

async function conflictOf(p: Promise<unknown>): Promise<HttpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HttpError && err.type === 'conflict') return err;
    throw err;
  }
  throw new Error('no conflict');
}

describe('genres: 60 records, every ordering and direction', () => {
  const records: GenreRecord[] = [];

  beforeAll(async () => {
    expect(new Set(GENRE_NAMES).size).toBe(60);
    for (const [i, name] of GENRE_NAMES.entries()) {
      // Ties are the norm: most counts are 0, and created_at repeats every 10 records.
      const r = genre(name, {
        anime_count: i % 7 === 0 ? (i % 3) + 1 : 0,
        manga_count: i % 5 === 0 ? 10 : i % 11 === 0 ? 2 : 0,
        created_at: `2025-01-${String(1 + (i % 10)).padStart(2, '0')}T00:00:00.000Z`,
      });
      await createRecord(genreEntity, r);
      records.push(r);
    }
  });

  it('counts them', async () => {
    expect(await countRecords(genreEntity)).toBe(60);
  });

  for (const o of GENRE_ORDERINGS) {
    for (const descending of [false, true]) {
      const label = `${descending ? '-' : ''}${o.key}`;

      it(`ordering=${label}: next walks every record once, in order; previous walks back`, async () => {
        const expected = contractOrder(records, o.value, o.type, descending).map((r) => r.id);
        for (const limit of [1, 7, 25, 59, 60, 100]) {
          const req = { ordering: o.key, descending, limit };
          const pages = await walkForward(genreEntity, req);
          expect(pages.flatMap(ids), `limit ${limit}`).toEqual(expected);
          // Unfiltered: every page is full but the last, which is not empty; next is null only there.
          expect(pages.length).toBe(Math.ceil(60 / limit));
          for (const p of pages.slice(0, -1)) expect(p.items).toHaveLength(limit);
          expect(pages.at(-1)!.items.length).toBeGreaterThan(0);

          // Backwards from the last page: the records before it, in order, then an empty page.
          const back = await walkBackward(genreEntity, req, pages.at(-1)!);
          expect([...back.flatMap(ids), ...ids(pages.at(-1)!)], `limit ${limit} backwards`).toEqual(expected);

          // previous of page i is page i-1 exactly (pages before it are full).
          for (let i = 1; i < Math.min(pages.length, 4); i++) {
            const prev = await listRecords(genreEntity, { ...req, cursor: pages[i]!.previous });
            expect(ids(prev)).toEqual(ids(pages[i - 1]!));
            // …and next of that page is page i again.
            const again = await listRecords(genreEntity, { ...req, cursor: prev.next });
            expect(ids(again)).toEqual(ids(pages[i]!));
          }
        }
      });
    }
  }

  it('a cursor keeps working with another limit (limit is not part of the position)', async () => {
    const expected = contractOrder(records, (r) => r.name, 'text', false).map((r) => r.id);
    const first = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 10, cursor: null });
    const second = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 3, cursor: first.next });
    expect(ids(second)).toEqual(expected.slice(10, 13));
    const back = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 4, cursor: second.previous });
    expect(ids(back)).toEqual(expected.slice(6, 10));
  });

  for (const q of ['s', 'shingeki KYO', 'pokemon', 'jojos', 'cafe', '巨人', 'ab', 'geki', 'zzz', '2001', '한']) {
    it(`q=${q}: next yields exactly the matching records once each, in order`, async () => {
      const out = queryTerms(q);
      if ('error' in out) throw new Error(out.error);
      const matching = records.filter((r) => contractMatches([r.name], out.terms));
      for (const o of [GENRE_ORDERINGS[0]!, GENRE_ORDERINGS[1]!]) {
        for (const descending of [false, true]) {
          const expected = contractOrder(matching, o.value, o.type, descending).map((r) => r.id);
          for (const limit of [1, 4, 100]) {
            const req = { ordering: o.key, descending, limit, terms: out.terms };
            const pages = await walkForward(genreEntity, req);
            expect(pages.flatMap(ids), `${o.key} ${descending} ${limit}`).toEqual(expected);
            const back = await walkBackward(genreEntity, req, pages.at(-1)!);
            expect([...back.flatMap(ids), ...ids(pages.at(-1)!)]).toEqual(expected);
          }
        }
      }
    });
  }

  it('the contract examples of §1.6 on the engine', async () => {
    const names = async (q: string) => {
      const out = queryTerms(q) as { terms: string[] };
      const page = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 100, cursor: null, terms: out.terms });
      return page.items.map((i) => i.value.name);
    };
    expect(await names('shingeki KYO')).toEqual(['Shingeki no Kyojin']);
    expect((await names('pokemon')).sort()).toEqual(['Pokemon', 'Pokémon']);
    expect((await names('巨人')).sort()).toEqual(['巨人', '進撃の巨人'].sort());
    expect((await names('jojos')).sort()).toEqual(["JoJo's", 'Jojos']);
    expect(await names('geki')).toEqual([]);
  });
});

describe('producers: equality filter and bounded reads', () => {
  const TYPES = ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'] as const;
  const records: ProducerRecord[] = [];
  const N = 300; // more than one read budget (260 items for limit 25) per filtered page

  beforeAll(async () => {
    const all: ProducerRecord[] = [];
    for (let i = 0; i < N; i++) {
      const at = `2024-${String(1 + (i % 12)).padStart(2, '0')}-01T00:00:00.000Z`;
      // `platform` is rare and sits at the far end of the name order; `studio` is common.
      const type = i % 150 === 7 ? 'platform' : i % 3 === 0 ? 'studio' : TYPES[1 + (i % 5)]!;
      const name = type === 'platform' ? `Zz Platform ${i}` : `Producer ${String(i).padStart(3, '0')}${i % 4 === 0 ? ' Animation' : ''}`;
      all.push({
        id: newId(), name, name_jpn: i % 10 === 0 ? 'アニメーション' : '', type, about: '',
        established: i % 4 === 0 ? null : `19${String(50 + (i % 50)).padStart(2, '0')}-01-01`,
        image: null, website: null, anime_count: i % 9 === 0 ? i % 4 : 0, created_at: at, updated_at: at,
      });
    }
    // A few writers at a time: every create also updates the entity's counter item.
    for (let i = 0; i < all.length; i += 4) await Promise.all(all.slice(i, i + 4).map((r) => createRecord(producerEntity, r)));
    records.push(...all);
    expect(await countRecords(producerEntity)).toBe(N);
  }, 240_000);

  const cases: { label: string; equals?: Record<string, string>; q?: string }[] = [
    { label: 'type=studio', equals: { type: 'studio' } },
    { label: 'type=platform (rare, far away)', equals: { type: 'platform' } },
    { label: 'type=sponsor', equals: { type: 'sponsor' } },
    { label: 'q=animation (name or name_jpn)', q: 'animation' },
    { label: 'q=アニメ', q: 'アニメ' },
    { label: 'q=animation & type=studio', q: 'animation', equals: { type: 'studio' } },
    { label: 'q=nothing', q: 'nothingmatches' },
  ];

  for (const c of cases) {
    it(`${c.label}: every match once, in order, forwards and backwards`, async () => {
      const terms = c.q ? (queryTerms(c.q) as { terms: string[] }).terms : [];
      const matching = records.filter(
        (r) => Object.entries(c.equals ?? {}).every(([k, v]) => (r as unknown as Record<string, unknown>)[k] === v) && contractMatches([r.name, r.name_jpn], terms),
      );
      for (const [key, value, type] of [
        ['name', (r: ProducerRecord) => r.name, 'text'],
        ['established', (r: ProducerRecord) => r.established, 'plain'],
      ] as const) {
        for (const descending of [false, true]) {
          const expected = contractOrder(matching, value, type, descending).map((r) => r.id);
          for (const limit of [7, 100]) {
            const req = { ordering: key, descending, limit, terms, equals: c.equals };
            const pages = await walkForward(producerEntity, req);
            expect(pages.flatMap(ids), `${key} ${descending} ${limit}`).toEqual(expected);
            const back = await walkBackward(producerEntity, req, pages.at(-1)!);
            expect([...back.flatMap(ids), ...ids(pages.at(-1)!)]).toEqual(expected);
          }
        }
      }
    });
  }

  it('a filtered page reads a bounded number of items and may come back short with next set', async () => {
    // The platforms have the last names: the first page reads one budget (260 items) and finds none.
    const first = await listRecords(producerEntity, { ordering: 'name', descending: false, limit: 25, cursor: null, equals: { type: 'platform' } });
    expect(first.items).toHaveLength(0);
    expect(first.next).not.toBeNull();
    const second = await listRecords(producerEntity, { ordering: 'name', descending: false, limit: 25, cursor: first.next, equals: { type: 'platform' } });
    const platforms = records.filter((r) => r.type === 'platform').length;
    expect(platforms).toBeGreaterThan(0);
    expect(second.items.map((i) => i.value.type)).toEqual(Array(platforms).fill('platform'));
  });
});

describe('writes keep the index in step', () => {
  it('a rename moves the name index items; the old position is gone', async () => {
    const a = genre('Kappa Rename');
    const b = genre('Lambda Rename');
    await createRecord(genreEntity, a);
    await createRecord(genreEntity, b);
    const before = await getRecord(genreEntity, a.id);
    const renamed = { ...a, name: 'Omega Rename', updated_at: new Date().toISOString() };
    const after = await replaceRecord(genreEntity, before!, renamed);
    expect(after.rev).toBe(2);
    const list = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 100, cursor: null, terms: ['rename'] });
    expect(list.items.map((i) => i.value.name)).toEqual(['Lambda Rename', 'Omega Rename']);
    const total = await countRecords(genreEntity);
    for (const ordering of ['name', 'anime_count', 'manga_count', 'created_at']) {
      for (const dir of ['A', 'D'] as const) expect(await partitionSize('GENRE', ordering, dir), `${ordering} ${dir}`).toBe(total);
    }
    // Every index item carries the new representation (served by list pages without a read of the record).
    const byCount = await listRecords(genreEntity, { ordering: 'anime_count', descending: true, limit: 100, cursor: null, terms: ['omega', 'rename'] });
    expect(byCount.items.map((i) => i.value.name)).toEqual(['Omega Rename']);
    expect((await getRecord(genreEntity, a.id))!.record.name).toBe('Omega Rename');
    // The old name is free again; the new one is taken.
    await createRecord(genreEntity, genre('kappa rename'));
    const clash = await conflictOf(createRecord(genreEntity, genre('OMEGA RENAME')));
    expect(clash.extras.existing_id).toBe(a.id);
  });

  it('a delete removes every item: the count goes down, lists and uniqueness forget it', async () => {
    const r = genre('Delete Me');
    await createRecord(genreEntity, r);
    const total = await countRecords(genreEntity);
    await deleteRecord(genreEntity, (await getRecord(genreEntity, r.id))!);
    expect(await countRecords(genreEntity)).toBe(total - 1);
    expect(await getRecord(genreEntity, r.id)).toBeNull();
    for (const ordering of ['name', 'anime_count', 'manga_count', 'created_at']) {
      for (const dir of ['A', 'D'] as const) expect(await partitionSize('GENRE', ordering, dir)).toBe(total - 1);
    }
    const found = await listRecords(genreEntity, { ordering: 'name', descending: false, limit: 100, cursor: null, terms: ['delete'] });
    expect(found.items).toHaveLength(0);
    await createRecord(genreEntity, genre('DELETE ME')); // deleted records never cause clashes
  });

  it('uniqueness: 409 with existing_id from the engine, case-insensitively and after NFC', async () => {
    const first = genre('Unique Name');
    await createRecord(genreEntity, first);
    for (const name of ['UNIQUE NAME', 'unique name']) {
      const e = await conflictOf(createRecord(genreEntity, genre(name)));
      expect(e.status).toBe(409);
      expect(e.extras.existing_id).toBe(first.id);
      expect(Object.keys(e.extras.errors!)).toEqual(['name']);
    }
    const cafe = genre('Caf\u00e9 Unique');
    await createRecord(genreEntity, cafe);
    expect((await conflictOf(createRecord(genreEntity, genre('CAFE\u0301 UNIQUE')))).extras.existing_id).toBe(cafe.id);
    const strasse = genre('Große Straße');
    await createRecord(genreEntity, strasse);
    expect((await conflictOf(createRecord(genreEntity, genre('GROSSE STRASSE')))).extras.existing_id).toBe(strasse.id);
    // A failed create leaves nothing behind.
    const total = await countRecords(genreEntity);
    await conflictOf(createRecord(genreEntity, genre('Unique Name')));
    expect(await countRecords(genreEntity)).toBe(total);
    // A rename onto a taken name is refused the same way.
    const other = genre('Other Unique');
    await createRecord(genreEntity, other);
    const stored = (await getRecord(genreEntity, other.id))!;
    const e = await conflictOf(replaceRecord(genreEntity, stored, { ...other, name: 'unique NAME' }));
    expect(e.extras.existing_id).toBe(first.id);
    expect((await getRecord(genreEntity, other.id))!.record.name).toBe('Other Unique');
    // Kinds do not clash with each other.
    await createRecord(producerEntity, { id: newId(), name: 'Unique Name', name_jpn: '', type: 'studio', about: '', established: null, image: null, website: null, anime_count: 0, created_at: first.created_at, updated_at: first.updated_at });
  });

  it('the longest names make sort keys the engine accepts', async () => {
    const at = new Date().toISOString();
    const producer = (name: string): ProducerRecord => ({ id: newId(), name, name_jpn: name, type: 'studio', about: '', established: null, image: null, website: null, anime_count: 0, created_at: at, updated_at: at });
    // 255 four-byte characters; 255 characters that NFKD expands eighteen-fold.
    for (const name of ['𠀀'.repeat(255), '\ufdfa'.repeat(255)]) {
      const r = producer(name);
      await createRecord(producerEntity, r);
      const stored = (await getRecord(producerEntity, r.id))!;
      await replaceRecord(producerEntity, stored, { ...r, name: `${name.slice(0, -2)}x` });
      await deleteRecord(producerEntity, (await getRecord(producerEntity, r.id))!);
    }
  });

  it('a replace or delete at a stale revision → StaleRecord, nothing written', async () => {
    const r = genre('Stale Check');
    await createRecord(genreEntity, r);
    const read = (await getRecord(genreEntity, r.id))!;
    await replaceRecord(genreEntity, read, { ...r, description: 'first' });
    await expect(replaceRecord(genreEntity, read, { ...r, description: 'second', name: 'Stale Renamed' })).rejects.toBeInstanceOf(StaleRecord);
    await expect(deleteRecord(genreEntity, read)).rejects.toBeInstanceOf(StaleRecord);
    const now = (await getRecord(genreEntity, r.id))!;
    expect(now.rev).toBe(2);
    expect(now.record.description).toBe('first');
    expect(now.record.name).toBe('Stale Check');
    // The failed rename did not claim the name.
    await createRecord(genreEntity, genre('Stale Renamed'));
  });
});

describe('cost of a list page', () => {
  const commands: string[] = [];
  const handler = createHandler(genreRoutes.list, listOperation(genres), { tokens: tokenVerification });

  beforeAll(() => {
    db().middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
  });

  async function page(rawQueryString: string) {
    commands.length = 0;
    const res = await invokeApi(handler, apiEvent('api/genres-list.json', { rawQueryString }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { body: res.body, commands: [...commands].sort() };
  }

  // Taxonomy pages read the page's records too: their counts change without their ordering entries (decision 76).
  it('one Query, one GetItem (the count) and one BatchGetItem (the records) without filters; no count with q', async () => {
    const first = await page('limit=7');
    expect(first.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect(first.body.count).toBe(await countRecords(genreEntity));
    expect(first.body.previous).toBeNull();
    expect(first.body.results).toHaveLength(7);

    const next = new URL(first.body.next);
    expect(`${next.origin}${next.pathname}`).toBe('http://localhost/api/genres/');
    expect(next.searchParams.get('limit')).toBe('7');
    const second = await page(next.search.slice(1));
    expect(second.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand']);
    expect(second.body.previous).not.toBeNull();

    const searched = await page('q=rename&ordering=-name');
    expect(searched.commands).toEqual(searched.body.results.length > 0 ? ['BatchGetItemCommand', 'QueryCommand'] : ['QueryCommand']);
    expect(searched.body.count).toBeNull();
  });

  it('following next through the handler walks the whole list once', async () => {
    const all = await listRecords(genreEntity, { ordering: 'anime_count', descending: true, limit: 100, cursor: null });
    const expected: string[] = [];
    let cursor = all.next;
    expected.push(...ids(all));
    while (cursor) {
      const more = await listRecords(genreEntity, { ordering: 'anime_count', descending: true, limit: 100, cursor });
      expected.push(...ids(more));
      cursor = more.next;
    }
    const seen: string[] = [];
    let qs: string | null = 'ordering=-anime_count&limit=9';
    let pages = 0;
    while (qs !== null) {
      const p = await page(qs);
      pages++;
      expect(p.commands).toEqual(p.body.results.length > 0 ? ['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand'] : ['GetItemCommand', 'QueryCommand']);
      seen.push(...p.body.results.map((r: { id: string }) => r.id));
      qs = p.body.next === null ? null : new URL(p.body.next).search.slice(1);
    }
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 9));
  });
});
