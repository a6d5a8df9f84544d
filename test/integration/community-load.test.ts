/**
 * The community loader (test/bench/load-community.ts) leaves the items the API's writes leave:
 * a small generated community (accounts, list items with a heavy user, reviews, helpful votes)
 * over a small catalogue is written into one table by committing each write as the API does —
 * every plan in its own transaction, in the API's order, each vote read-then-written as the
 * review PATCH does (DynamoDB applying the increments) — and into another by the loader (the
 * increments added up in memory, written once). The two tables must hold the same items, the
 * votes' `at` aside (the API stamps it with the time of the vote).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { commit } from '../../shared/db/records.js';
import { getReview, reviewPlan } from '../../shared/db/reviews.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { catalogue, type Kind } from '../bench/catalogue-data.js';
import { community } from '../bench/community-data.js';
import { LOADABLE_KINDS, loadCatalogue } from '../bench/load-catalogue.js';
import { communityWrites, loadCommunity, type TitleLookup } from '../bench/load-community.js';
import { scanAll, sortKeys, type Item } from '../support/tables.js';

const cat = catalogue({
  scale: { genre: 8, theme: 5, demographic: 2, producer: 12, magazine: 2, person: 50, character: 60, anime: 16, manga: 12, news: 0 },
  seed: 11,
  today: '2025-06-01',
  lean: true,
});
const comm = community(cat, { users: 12, items: 90, reviews: 14 });
const HASH = '$scrypt$bench';

/**
 * The table's items without what is random per write: title records' `write` (staged.ts), media
 * ids, votes' `at`, and the index pointers' names and times (both tables' catalogues are loaded
 * by the same loader: the same snapshots, each under a name of its own).
 */
function comparable(items: Map<string, Item>): Map<string, Item> {
  const out = new Map<string, Item>();
  for (const [key, item] of items) {
    const copy = structuredClone(item);
    if (/^[A-Z]+#IX$/.test(String(copy.pk)) && copy.sk === 'P') {
      delete copy.name;
      delete copy.at;
    }
    if (copy.sk === 'R') delete copy.write;
    // The ids media.ts gives new pictures and videos of the catalogue (as bulk-load.test.ts).
    if (/^C#(videos|pictures)#/.test(String(copy.sk))) copy.entries = (copy.entries as Item[]).map(({ id: _id, ...rest }) => ({ ...rest, id: '<new id>' }));
    if (String(copy.sk).startsWith('V#')) copy.at = '<at>';
    out.set(key, copy);
  }
  return out;
}

/** Loads the catalogue into `table` and returns the titles' lookup. */
async function withCatalogue(): Promise<TitleLookup> {
  const records: Record<string, BaseRecord[]> = { anime: [], manga: [] };
  await loadCatalogue({ cat, kinds: LOADABLE_KINDS, inFlight: 4, onRecord: (kind: Kind, i, r) => void (kind in records && (records[kind]![i] = r)) });
  return (kind, i) => ({ id: records[kind]![i]!.id, rec: records[kind]![i] as unknown as Record<string, unknown> });
}

const viaWrites = new Map<string, Item>();
const viaLoader = new Map<string, Item>();
let votes = 0;

beforeAll(async () => {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
  const table = process.env.TABLE_NAME!;
  try {
    // One by one, as the API commits them.
    const titles = await withCatalogue();
    for (const w of communityWrites({ comm, titles, passwordHash: HASH })) {
      if (w.what === 'plan') {
        await commit(w.plan);
        continue;
      }
      await commit(reviewPlan({ kind: w.kind, before: null, after: w.stored }));
      for (const v of w.votes) {
        // As the review PATCH `{"helpful": true}`: the review as read, its count plus one, the vote.
        const before = (await getReview(w.stored.record.id))!;
        await commit(reviewPlan({ kind: w.kind, before, after: { ...before, helpful: before.helpful + 1 }, vote: { voter: v.voter, helpful: true } }));
        votes++;
      }
    }
    for (const [k, v] of comparable(await scanAll(table))) viaWrites.set(k, v);

    // The loader, into a table of its own.
    const loaderTable = `community-${randomBytes(6).toString('hex')}`;
    await ensureTable(endpoint, loaderTable);
    process.env.TABLE_NAME = loaderTable;
    const loaderTitles = await withCatalogue();
    const report = await loadCommunity({ comm, titles: loaderTitles, passwordHash: HASH, inFlight: 4 });
    expect(report.votes).toBe(votes);
    for (const [k, v] of comparable(await scanAll(loaderTable))) viaLoader.set(k, v);
  } finally {
    process.env.TABLE_NAME = table;
  }
}, 600_000);

describe('community loader', () => {
  it('writes the items the API writes leave, item by item', () => {
    expect(viaWrites.size).toBeGreaterThan(500);
    const missing = [...viaWrites.keys()].filter((k) => !viaLoader.has(k));
    const extra = [...viaLoader.keys()].filter((k) => !viaWrites.has(k));
    expect(missing, 'items the writes left and the loader did not').toEqual([]);
    expect(extra, 'items the loader wrote and the writes did not').toEqual([]);
    const differing = [...viaWrites.keys()].filter((k) => JSON.stringify(sortKeys(viaWrites.get(k))) !== JSON.stringify(sortKeys(viaLoader.get(k))));
    for (const k of differing.slice(0, 3)) expect(viaLoader.get(k), k).toEqual(viaWrites.get(k));
    expect(differing).toEqual([]);
  });

  it('covers the counters the API keeps by increments', () => {
    const items = [...viaWrites.values()];
    const of = (re: RegExp) => items.filter((i) => re.test(`${String(i.pk)} ${String(i.sk)}`));
    const listItems = of(/^(ANIME|MANGA)LIST#[^#]+ I#/);
    expect(listItems.length).toBe(comm.counts.reduce((n, c) => n + c, 0));
    // A heavy user, and titles with several members.
    expect(Math.max(...comm.counts)).toBeGreaterThanOrEqual(15);
    const members = (t: Item) => Object.entries(t).filter(([k]) => /^st_(watching|reading|completed|on_hold|dropped|plan_to_watch|plan_to_read)$/.test(k)).reduce((n, [, v]) => n + Number(v), 0);
    const titles = of(/^(ANIME|MANGA)#[^#]+ R$/);
    expect(titles.reduce((n, t) => n + members(t), 0)).toBe(listItems.length);
    expect(titles.some((t) => Object.keys(t).some((k) => /^st_s\d+$/.test(k)))).toBe(true);
    // Lists with their counts, review counts, users' counter, votes and the top partition at the final counts.
    expect(of(/^(ANIME|MANGA)LIST#[^#]+ R$/).every((l) => Object.keys(l).some((k) => k.startsWith('n_')))).toBe(true);
    expect(of(/^USER#N N$/)[0]?.n).toBe(comm.sizes.users);
    expect(of(/^REVIEWS#USER#[^#]+ N$/).reduce((n, c) => n + Number(c.n), 0)).toBe(comm.sizes.reviews);
    expect(votes).toBeGreaterThan(0);
    expect(of(/^REVIEW#[^#]+ V#/).length).toBe(votes);
    expect(of(/^REVIEWS#TOP /).length).toBe(comm.sizes.reviews);
    expect(of(/^REVIEW#[^#]+ R$/).reduce((n, r) => n + Number(r.hc), 0)).toBe(votes);
  });
});
