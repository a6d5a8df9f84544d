/**
 * The season refresh job (API.md §5.5; functions/jobs/season-refresh.ts) on the real engines:
 * the handler as EventBridge runs it (its event's time is the run's "now") over the bundled
 * bangumi-data, and runSeasonRefresh over data sets written out here, which change from run to
 * run. A refresh adds new titles and updates changed ones but never a contributor's edit; a
 * title a contributor deleted stays deleted; two runs at once make what one makes; a title whose
 * write fails keeps what it had while the others are imported, and the run fails.
 */
import { describe, expect, it } from 'vitest';
import { runSeasonRefresh, type SeasonRefreshSummary } from '../../functions/jobs/season-refresh.js';
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';
import { importedId, inSeasons, sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { animeRead } from '../../shared/domain/animes.js';
import { item } from '../support/bangumi-sample.js';
import { expectJson, send } from '../support/contract.js';
import { failWritesOf, runJob } from '../support/jobs.js';
import { useServer } from '../support/server.js';

const server = useServer();
const contributor = () => server.user('contributor').then((u) => u.auth);
const idOf = (bangumiId: string) => importedId(`bangumi:${bangumiId}`);
const get = async (id: string) => expectJson(await send(server, 'GET', `/api/animes/${id}/`), 200) as Record<string, unknown>;

/** Early summer 2026: the seasons now and upcoming are spring and summer 2026. */
const JUNE = new Date('2026-06-20T04:00:00Z');
const LATER = new Date('2026-06-21T04:00:00Z');

describe('season refresh job (bundled data, through its handler)', () => {
  it('imports the titles of the current and upcoming seasons; a second run changes nothing', async () => {
    const april = new Date('2026-04-10T04:00:00Z');
    const expected = inSeasons(sourceCatalogue(await loadBangumiData()).titles, april);
    expect(expected.length).toBeGreaterThan(50);
    const first = await runJob<SeasonRefreshSummary>('season-refresh', april);
    expect(first).toMatchObject({ seasons: ['spring 2026', 'summer 2026'], titles: expected.length, created: expected.length, updated: 0, failed: 0 });
    const one = await get(importedId(expected[0]!.key));
    expect(one).toMatchObject({ name: expected[0]!.values.name, aired_from: expected[0]!.values.aired_from, season: 'spring', year: 2026 });
    expect((await runJob<SeasonRefreshSummary>('season-refresh', april)).unchanged).toBe(expected.length);
  }, 180_000);

  it('a title whose write fails is left out and the run fails; the others are imported, and the next run imports it', async () => {
    const january = new Date('2026-01-10T04:00:00Z');
    const winter = inSeasons(sourceCatalogue(await loadBangumiData()).titles, january).filter((t) => t.values.aired_from!.startsWith('2026-0') && t.values.aired_from! < '2026-04');
    const failing = winter[3]!;
    const restore = failWritesOf(`ANIME#${importedId(failing.key)}`);
    try {
      await expect(runJob('season-refresh', january)).rejects.toThrow(/season refresh: 1 of \d+ titles not imported/);
    } finally {
      restore();
    }
    expect((await send(server, 'GET', `/api/animes/${importedId(failing.key)}/`)).status).toBe(404);
    expect((await get(importedId(winter[4]!.key))).name).toBe(winter[4]!.values.name);
    const again = await runJob<SeasonRefreshSummary>('season-refresh', january);
    expect(again).toMatchObject({ created: 1, failed: 0 });
    expect((await get(importedId(failing.key))).name).toBe(failing.values.name);
  }, 180_000);
});

describe('season refresh (data sets that change between runs)', () => {
  const v1 = {
    items: [
      item('801'),
      item('802', { begin: '2026-07-09T15:00:00.000Z', broadcast: 'R/2026-07-09T15:00:00.000Z/P7D', end: '2026-09-24T15:30:00.000Z' }),
      // Outside the seasons refreshed in June 2026.
      item('804', { begin: '2025-01-09T15:00:00.000Z', broadcast: 'R/2025-01-09T15:00:00.000Z/P7D', end: '2025-03-27T15:30:00.000Z' }),
    ],
  };
  const v2 = {
    items: [
      item('801', { title: 'テスト作品801 改', broadcast: 'R/2026-07-03T14:00:00.000Z/P7D', officialSite: 'https://example.org/801/new/' }),
      item('802', {
        titleTranslate: { en: ['Test Work 802: Second Cour'] },
        begin: '2026-07-16T15:00:00.000Z',
        broadcast: 'R/2026-07-16T15:00:00.000Z/P7D',
        end: '2026-10-01T15:30:00.000Z',
      }),
      item('803'),
      v1.items[2]!,
    ],
  };

  it('adds new titles and updates changed ones, but keeps what a contributor changed', async () => {
    expect(await runSeasonRefresh(JUNE, v1)).toMatchObject({ titles: 2, created: 2, failed: 0 });
    const a = await get(idOf('801'));
    expect(a).toMatchObject({
      name: 'Test Work 801',
      name_jpn: 'テスト作品801',
      alternative_names: ['测试作品801'],
      media_type: 'tv',
      status: 'upcoming',
      aired_from: '2026-07-03',
      aired_to: '2026-09-18',
      season: 'summer',
      broadcast: { day: 'friday', time: '00:00', timezone: 'Asia/Tokyo' },
      website: 'https://example.org/801/',
      episodes: null,
    });
    // The provenance is never shown.
    expect(Object.keys(a).sort()).toEqual(Object.keys(animeRead.shape).sort());
    expect((await send(server, 'GET', `/api/animes/${importedId('bangumi:804')}/`)).status).toBe(404);

    const auth = await contributor();
    expectJson(await send(server, 'PATCH', `/api/animes/${idOf('801')}/`, { body: { name_jpn: '寄稿者の題名' }, headers: auth }), 200);

    expect(await runSeasonRefresh(LATER, v2)).toMatchObject({ titles: 3, created: 1, updated: 2, unchanged: 0, failed: 0 });
    const a2 = await get(idOf('801'));
    expect(a2).toMatchObject({ name_jpn: '寄稿者の題名', broadcast: { day: 'friday', time: '23:00', timezone: 'Asia/Tokyo' }, website: 'https://example.org/801/new/' });
    expect(a2.updated_at).toBe(LATER.toISOString());
    expect(a2.created_at).toBe(a.created_at);
    expect(await get(idOf('802'))).toMatchObject({ name: 'Test Work 802: Second Cour', alternative_names: [], aired_from: '2026-07-17', aired_to: '2026-10-02', broadcast: { day: 'friday' } });
    expect(await get(idOf('803'))).toMatchObject({ name: 'Test Work 803', status: 'upcoming' });

    // Nothing changed since: nothing written.
    expect(await runSeasonRefresh(JUNE, v2)).toMatchObject({ unchanged: 3, updated: 0, created: 0 });
  });

  it('does not add again a title a contributor deleted', async () => {
    const auth = await contributor();
    expect((await send(server, 'DELETE', `/api/animes/${idOf('803')}/`, { headers: auth })).status).toBe(204);
    expect(await runSeasonRefresh(JUNE, v2)).toMatchObject({ deleted: 1, created: 0, unchanged: 2 });
    expect((await send(server, 'GET', `/api/animes/${idOf('803')}/`)).status).toBe(404);
  });

  it('a title whose write fails keeps what it had; the others are updated; the next run updates it', async () => {
    const v3 = { items: v2.items.map((i) => ({ ...i, officialSite: `${String(i.officialSite)}v3/` })) };
    const restore = failWritesOf(`ANIME#${idOf('802')}`);
    let summary;
    try {
      summary = await runSeasonRefresh(JUNE, v3);
    } finally {
      restore();
    }
    expect(summary).toMatchObject({ updated: 1, failed: 1 });
    expect((await get(idOf('802'))).website).toBe('https://example.org/802/');
    expect((await get(idOf('801'))).website).toBe('https://example.org/801/new/v3/');
    expect(await runSeasonRefresh(JUNE, v3)).toMatchObject({ updated: 1, failed: 0 });
    expect((await get(idOf('802'))).website).toBe('https://example.org/802/v3/');
  });

  it('two runs at once make the titles one run makes', async () => {
    const data = { items: ['811', '812', '813', '814', '815'].map((id) => item(id, { titleTranslate: { en: ['Twin Run'] } })) };
    const runs = await Promise.all([runSeasonRefresh(JUNE, data), runSeasonRefresh(JUNE, data)]);
    expect(runs.map((r) => r.failed)).toEqual([0, 0]);
    expect(runs[0]!.created + runs[1]!.created).toBe(5);
    const page = expectJson(await send(server, 'GET', '/api/animes/?q=twin+run&ordering=name'), 200) as { results: { id: string; name: string }[] };
    expect(page.results.map((r) => r.name).sort()).toEqual(['Twin Run', 'Twin Run (2026)', 'Twin Run (2026, 2)', 'Twin Run (2026, 3)', 'Twin Run (2026, 4)']);
    expect(new Set(page.results.map((r) => r.id))).toEqual(new Set(['811', '812', '813', '814', '815'].map(idOf)));
    expect(await runSeasonRefresh(JUNE, data)).toMatchObject({ unchanged: 5, created: 0 });
  });
});
