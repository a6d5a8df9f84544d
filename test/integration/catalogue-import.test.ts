/**
 * The catalogue import's bulk path (shared/domain/catalogue-import.ts bulkImport, what `npm
 * start` uses on its first start) writes exactly the items its write path leaves (importTitles,
 * the API's own writeTitle): the same real items of bangumi-data are imported both ways, at the
 * same "now", into two tables — the write path's with the stream consumers running, as deployed
 * — and once the consumers have settled the tables must hold the same items, but for the `write`
 * id of title records (staged.ts: random per write). So the counter and the list sizes the
 * bulk path computes are the ones the API keeps by increments and by its consumer.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/engines.js';
import { BulkWriter } from '../../shared/db/batch.js';
import { bulkImport, importedId, importTitles, sourceCatalogue, type ImportSummary } from '../../shared/domain/catalogue-import.js';
import { item, realSample } from '../support/bangumi-sample.js';
import { expectJson, send } from '../support/contract.js';
import { useServer } from '../support/server.js';
import { scanAll, settled, sortKeys, type Item } from '../support/tables.js';
import { indexViews } from '../support/recount.js';
import type { Vector } from '../../shared/db/catalogue-index.js';
import { indexesToRebuild, rebuildIndexes } from '../../shared/domain/index-rebuild.js';

const server = useServer();
const NOW = new Date('2026-04-15T03:00:00.000Z');

/**
 * The items as compared: without the `write` id of title records, and without the order of the
 * random-pick slots (the write path imports titles concurrently, so which title takes which slot
 * differs; slotsConsistent checks each store's slots name its records). The animes' index is
 * compared apart: the write path leaves deltas, the bulk path none (its index is built from the
 * records: index-rebuild.ts). Nor does the bulk path make change-feed entries (the first import
 * predates every client: decision EX10).
 */
const comparable = (items: Map<string, Item>) =>
  new Map(
    [...items].filter(([, item]) => !/^[A-Z]+#IX$/.test(String(item.pk)) && !/^FEED(#P)?$/.test(String(item.pk))).map(([key, item]) => {
      const copy = structuredClone(item);
      if (copy.sk === 'R') delete copy.write;
      if (copy.sk === 'R') delete copy.slot;
      if (String(copy.pk).endsWith('#SLOT')) return [`${copy.pk} → ${copy.id}`, sortKeys({ pk: copy.pk, id: copy.id }) as Item];
      return [key, sortKeys(copy) as Item];
    }),
  );

/** Slots 1..n of the animes name each record once, and each record names its slot. */
function slotsConsistent(items: Map<string, Item>): void {
  const records = [...items.values()].filter((i) => String(i.pk).startsWith('ANIME#') && i.sk === 'R' && String(i.pk).split('#').length === 2 && i.rec);
  const slots = new Map([...items.values()].filter((i) => i.pk === 'ANIME#SLOT').map((i) => [Number(i.sk), String(i.id)]));
  expect([...slots.keys()].sort((a, b) => a - b)).toEqual(records.map((_, i) => i + 1));
  for (const r of records) expect(slots.get(Number(r.slot)), String(r.pk)).toBe(String(r.pk).slice('ANIME#'.length));
}

let titles: ReturnType<typeof sourceCatalogue>['titles'];
let summary: ImportSummary;
let written: number;
const viaWritePath = new Map<string, Item>();
const viaBulk = new Map<string, Item>();
let indexViaWritePath: Map<string, Vector>;
let indexViaBulk: Map<string, Vector>;

beforeAll(async () => {
  titles = sourceCatalogue(await realSample()).titles;
  const table = process.env.TABLE_NAME!;
  summary = await importTitles(titles, { now: NOW });
  const written1 = await settled(table);
  slotsConsistent(written1);
  for (const [k, v] of comparable(written1)) viaWritePath.set(k, v);
  indexViaWritePath = (await indexViews(written1)).get('ANIME')!;

  const bulkTable = `bulk-${randomBytes(6).toString('hex')}`;
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, bulkTable);
  process.env.TABLE_NAME = bulkTable;
  try {
    written = await bulkImport(titles, { now: NOW, writer: new BulkWriter(4) });
    // What `npm start` does next: the index from the records.
    await rebuildIndexes(await indexesToRebuild());
  } finally {
    process.env.TABLE_NAME = table;
  }
  const written2 = await scanAll(bulkTable);
  slotsConsistent(written2);
  for (const [k, v] of comparable(written2)) viaBulk.set(k, v);
  indexViaBulk = (await indexViews(written2)).get('ANIME')!;
}, 300_000);

describe('catalogue import, bulk and through the write path', () => {
  it('imports every title of the sample once', () => {
    expect(titles.length).toBeGreaterThanOrEqual(20);
    expect(summary).toEqual({ created: titles.length, updated: 0, unchanged: 0, deleted: 0, failed: 0 });
    expect(written).toBe(viaBulk.size);
  });

  it('the bulk path writes the items the write path leaves, item by item', () => {
    const missing = [...viaWritePath.keys()].filter((k) => !viaBulk.has(k));
    const extra = [...viaBulk.keys()].filter((k) => !viaWritePath.has(k));
    expect(missing, 'items the write path left and the bulk path did not write').toEqual([]);
    expect(extra, 'items the bulk path wrote and the write path did not').toEqual([]);
    const differing = [...viaWritePath.keys()].filter((k) => JSON.stringify(viaWritePath.get(k)) !== JSON.stringify(viaBulk.get(k)));
    for (const k of differing.slice(0, 3)) expect(viaBulk.get(k), k).toEqual(viaWritePath.get(k));
    expect(differing).toEqual([]);
  });

  it('the index built from the bulk path’s records holds what the write path’s deltas give', () => {
    expect(indexViaBulk.size).toBe(titles.length);
    expect(new Map([...indexViaBulk].sort())).toEqual(new Map([...indexViaWritePath].sort()));
  });

  it('covers the counter, name claims and source links', () => {
    const of = (re: RegExp) => [...viaWritePath.entries()].filter(([k]) => re.test(k)).map(([, v]) => v);
    expect(of(/^ANIME#N N$/)[0]?.n).toBe(titles.length);
    expect(of(/^ANIME#U#name#/)).toHaveLength(titles.length);
    expect(of(/^SOURCE#bangumi-data#/)).toHaveLength(titles.length);
    expect(of(/ J#/)).toEqual([]);
  });

  it('fills external ids and streaming links from the source (§8.2): a title is found by each of its ids', async () => {
    const withIds = titles.filter((t) => Object.keys(t.values.external_ids).length > 0);
    expect(withIds.length).toBeGreaterThan(titles.length / 2);
    expect(titles.some((t) => t.values.streaming.length > 0)).toBe(true);
    for (const t of withIds.slice(0, 5)) {
      const [site, id] = Object.entries(t.values.external_ids)[0]!;
      const page = expectJson(await send(server, 'GET', `/api/animes/?${site}_id=${id}`), 200) as { results: { id: string; external_ids: object; streaming: object[] }[] };
      expect(page.results.map((r) => r.id), `${site}_id=${id}`).toEqual([importedId(t.key)]);
      expect(page.results[0]).toMatchObject({ external_ids: t.values.external_ids, streaming: t.values.streaming });
    }
    const of = (re: RegExp) => [...viaWritePath.keys()].filter((k) => re.test(k));
    expect(of(/^ANIME#U#external_ids\.mal#/)).toHaveLength(titles.filter((t) => t.values.external_ids.mal !== undefined).length);
  });

  it('serves the imported titles through the API, names made distinct by year, then a counter', async () => {
    const page = expectJson(await send(server, 'GET', '/api/animes/?q=cardfight&ordering=aired_from&limit=20'), 200) as { results: { name: string; aired_from: string }[] };
    expect(page.results.map((r) => r.name)).toEqual([
      'CARDFIGHT!! Vanguard',
      'CARDFIGHT!! Vanguard (2012)',
      'CARDFIGHT!! Vanguard (2013)',
      'CARDFIGHT!! Vanguard (2014)',
      'CARDFIGHT!! Vanguard (2018)',
      'CARDFIGHT!! Vanguard (2019)',
      'CARDFIGHT!! Vanguard (2019, 2)',
    ]);
    const kitaro = expectJson(await send(server, 'GET', `/api/animes/?q=${encodeURIComponent('鬼太郎')}&ordering=aired_from`), 200) as { results: { name: string }[] };
    expect(kitaro.results.map((r) => r.name)).toEqual(['ゲゲゲの鬼太郎', 'ゲゲゲの鬼太郎 (1968)']);
    const atom = expectJson(await send(server, 'GET', `/api/animes/?q=${encodeURIComponent('鉄腕アトム')}`), 200) as { results: Record<string, unknown>[] };
    expect(atom.results[0]).toMatchObject({ name_jpn: '鉄腕アトム', media_type: 'tv', aired_from: '1963-01-01', broadcast: { day: 'tuesday', time: '01:00', timezone: 'Asia/Tokyo' }, status: 'finished' });
  });
});

describe('the status an import sets', () => {
  it('is the airing status job\'s, both ways: a title without an end new at the release finished 26 weeks after it started, a long-running one airing (§5.5)', async () => {
    // The release of the pinned data set is 2026-04-25; 26 weeks before it, 2025-10-25.
    const open = (id: string, begin: string) => item(id, { begin: `${begin}T15:00:00.000Z`, broadcast: `R/${begin}T15:00:00.000Z/P7D`, end: '' });
    const sample = sourceCatalogue({ items: [open('951', '2026-02-28'), open('952', '1996-01-07'), open('953', '2026-07-02'), open('954', '2025-10-24')] }).titles;
    const at = new Date('2026-11-29T03:00:00Z');
    const statuses = async (table: string) => {
      const items = await scanAll(table);
      return ['951', '952', '953', '954'].map((id) => (items.get(`ANIME#${importedId(`bangumi:${id}`)} R`)?.rec as { status?: string } | undefined)?.status);
    };
    const table = process.env.TABLE_NAME!;
    expect(await importTitles(sample, { now: at })).toMatchObject({ created: 4, failed: 0 });
    const bulkTable = `bulk-${randomBytes(6).toString('hex')}`;
    await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, bulkTable);
    process.env.TABLE_NAME = bulkTable;
    try {
      await bulkImport(sample, { now: at, writer: new BulkWriter(4) });
    } finally {
      process.env.TABLE_NAME = table;
    }
    // 2026-03-01 + 26 weeks = 2026-08-30: finished; since 1996: airing; 2026-07-03 + 26 weeks = 2027-01-01: airing;
    // 2025-10-25, exactly 26 weeks before the release (not less): airing.
    expect(await statuses(table)).toEqual(['finished', 'airing', 'airing', 'airing']);
    expect(await statuses(bulkTable)).toEqual(['finished', 'airing', 'airing', 'airing']);
  }, 120_000);
});
