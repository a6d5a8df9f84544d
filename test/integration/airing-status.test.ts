/**
 * The airing status job (API.md §5.5; functions/jobs/airing-status.ts) on the real engines, run
 * through its handler as EventBridge runs it: the event's time is the run's "now", so the clock
 * is moved by scheduling the runs at later times. Imported titles move upcoming → airing →
 * finished as their dates (in Japan) pass; a status a contributor set is never changed; a run
 * twice over, or two at once, leaves what one leaves; a failed write keeps the previous status
 * and fails the run, and the next run moves the title. A title the source knows neither the end
 * nor the episodes of is finished 26 weeks after it started when it had started less than 26
 * weeks before the data set's release (clarified 2026-11-29); one already running longer then
 * stays airing; the import sets the status the job would have set.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '../../shared/db/client.js';
import { db } from '../../shared/db/sdk.js';
import type { StatusSummary } from '../../shared/domain/catalogue-import.js';
import { importedId, importTitles, sourceCatalogue } from '../../shared/domain/catalogue-import.js';
import { SOURCE_RELEASE } from '../../shared/domain/bangumi.js';
import { item } from '../support/bangumi-sample.js';
import { expectJson, send } from '../support/contract.js';
import { failWritesOf, runJob } from '../support/jobs.js';
import { useServer } from '../support/server.js';
import { scanAll, settled } from '../support/tables.js';

const server = useServer();
const idOf = (bangumiId: string) => importedId(`bangumi:${bangumiId}`);
const get = async (id: string) => expectJson(await send(server, 'GET', `/api/animes/${id}/`), 200) as Record<string, unknown>;
const status = async (id: string) => (await get(id)).status;
const run = (at: string) => runJob<StatusSummary>('airing-status', new Date(at));

// Every test title airs from Friday 2026-07-03 to Friday 2026-09-18 (Japan): begin/end are 15:00/15:30 UTC the day before.
const IMPORTED_AT = new Date('2026-06-20T04:00:00Z');
/** 2026-07-02 23:59 in Japan: still upcoming. */
const EVE = '2026-07-02T14:59:00Z';
/** 2026-07-03 00:00 in Japan (2026-07-02 15:00 UTC): the first day. */
const FIRST_DAY = '2026-07-02T15:00:00Z';
/** 2026-09-18 in Japan: the last day, still airing. */
const LAST_DAY = '2026-09-18T10:00:00Z';
/** 2026-09-19 in Japan. */
const AFTER = '2026-09-18T15:00:00Z';

const IDS = ['901', '902', '903', '904', '905', '906'];

beforeAll(async () => {
  const data = { items: IDS.map((id) => item(id)) };
  const summary = await importTitles(sourceCatalogue(data).titles, { now: IMPORTED_AT });
  expect(summary).toMatchObject({ created: IDS.length, failed: 0 });
}, 120_000);

describe('airing status job', () => {
  it('moves imported titles upcoming → airing → finished as their dates pass (dates in Japan)', async () => {
    expect(await status(idOf('901'))).toBe('upcoming');
    expect(await run(EVE)).toEqual({});
    expect(await status(idOf('901'))).toBe('upcoming');

    // 902 and 903 are the contributor test's; the others move.
    const auth = (await server.user('contributor')).auth;
    expectJson(await send(server, 'PATCH', `/api/animes/${idOf('902')}/`, { body: { status: 'finished' }, headers: auth }), 200);
    expectJson(await send(server, 'PATCH', `/api/animes/${idOf('903')}/`, { body: { name: 'Renamed By A Contributor' }, headers: auth }), 200);

    expect(await run(FIRST_DAY)).toEqual({ moved: IDS.length - 1 });
    const a = await get(idOf('901'));
    expect(a).toMatchObject({ status: 'airing', updated_at: new Date(FIRST_DAY).toISOString() });
    // The list filter (the index) follows at once.
    const airing = expectJson(await send(server, 'GET', '/api/animes/?status=airing&limit=50'), 200) as { results: { id: string }[] };
    expect(airing.results.map((r) => r.id)).toContain(idOf('901'));

    expect(await run(LAST_DAY)).toEqual({});
    expect(await status(idOf('901'))).toBe('airing');
    expect(await run(AFTER)).toEqual({ moved: IDS.length - 1 });
    expect(await status(idOf('901'))).toBe('finished');
    const finished = expectJson(await send(server, 'GET', '/api/animes/?status=finished&limit=50'), 200) as { results: { id: string }[] };
    expect(finished.results.map((r) => r.id)).toContain(idOf('901'));
  }, 180_000);

  it('never changes a status a contributor set; a contributor edit of another field does not stop the moves', async () => {
    // 902: set to finished by a contributor before its first day; left finished throughout.
    expect(await status(idOf('902'))).toBe('finished');
    // 903: renamed by a contributor; its status is still the import's, so it moved.
    expect(await get(idOf('903'))).toMatchObject({ name: 'Renamed By A Contributor', status: 'finished' });

    // A contributor sets "airing" on a finished title: the job keeps it (it is theirs now).
    const auth = (await server.user('contributor')).auth;
    expectJson(await send(server, 'PATCH', `/api/animes/${idOf('904')}/`, { body: { status: 'airing' }, headers: auth }), 200);
    expect(await run('2026-12-01T00:00:00Z')).toEqual({});
    expect(await status(idOf('904'))).toBe('airing');
  }, 180_000);

  it('is idempotent: a second run at the same time writes nothing', async () => {
    const table = process.env.TABLE_NAME!;
    // Back to a state with work: a new import of an upcoming title.
    await importTitles(sourceCatalogue({ items: [item('907')] }).titles, { now: IMPORTED_AT });
    expect(await run(FIRST_DAY)).toEqual({ moved: 1 });
    const before = await settled(table);
    expect(await run(FIRST_DAY)).toEqual({});
    const after = await scanAll(table);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [k, v] of before) expect(after.get(k), k).toEqual(v);
  }, 180_000);

  it('two runs at once move each title once', async () => {
    await importTitles(sourceCatalogue({ items: ['911', '912', '913'].map((id) => item(id)) }).titles, { now: IMPORTED_AT });
    const runs = await Promise.all([run(FIRST_DAY), run(FIRST_DAY)]);
    expect(runs.map((r) => r.failed ?? 0)).toEqual([0, 0]);
    expect(runs.reduce((n, r) => n + (r.moved ?? 0), 0)).toBe(3);
    for (const id of ['911', '912', '913']) expect(await get(idOf(id))).toMatchObject({ status: 'airing', updated_at: new Date(FIRST_DAY).toISOString() });
  }, 180_000);

  it('a title whose write fails keeps its status and the run fails; the next run moves it', async () => {
    await importTitles(sourceCatalogue({ items: ['921', '922'].map((id) => item(id)) }).titles, { now: IMPORTED_AT });
    const restore = failWritesOf(`ANIME#${idOf('921')}`);
    try {
      await expect(run(FIRST_DAY)).rejects.toThrow(/airing status: 1 titles not moved/);
    } finally {
      restore();
    }
    expect(await status(idOf('921'))).toBe('upcoming');
    expect(await status(idOf('922'))).toBe('airing');
    expect(await run(FIRST_DAY)).toEqual({ moved: 1 });
    expect(await status(idOf('921'))).toBe('airing');
  }, 180_000);
});

describe('titles without an end or an episode count (§5.5, clarified 2026-11-29)', () => {
  // The data set's release is the pinned package's (2026-04-25); 26 weeks before it is 2025-10-25.
  // Each begins at 00:00 in Japan (15:00 UTC the day before) and airs weekly; none has an end.
  const open = (id: string, begin: string) => item(id, { begin: `${begin}T15:00:00.000Z`, broadcast: `R/${begin}T15:00:00.000Z/P7D`, end: '' });
  /** The release day, in Japan. */
  const IMPORTED = new Date('2026-04-25T03:00:00Z');
  /** 2026-03-01 in Japan: new at the release; finished from 2026-08-30 (26 weeks on) in Japan. */
  const NEW = open('931', '2026-02-28');
  /** 2025-10-26 in Japan: started 26 weeks less a day before the release: new. */
  const EDGE_NEW = open('932', '2025-10-25');
  /** 2025-10-25 in Japan: started 26 weeks before the release, not less: it stays airing. */
  const EDGE_OLD = open('933', '2025-10-24');
  /** 1996-01-08: a long-running series. */
  const LONG = open('934', '1996-01-07');
  /** 2026-07-03 in Japan: upcoming at the release, finished 26 weeks after it starts (2027-01-01). */
  const LATER = open('935', '2026-07-02');
  /** New at the release, but a contributor gives its episode count: the rule is no longer the 26 weeks. */
  const COUNTED = open('936', '2026-02-28');
  const ids = ['931', '932', '933', '934', '935', '936'];

  it('are finished 26 weeks after aired_from when new at the release; long-running ones stay airing', async () => {
    expect(SOURCE_RELEASE.date).toBe('2026-04-25');
    const summary = await importTitles(sourceCatalogue({ items: [NEW, EDGE_NEW, EDGE_OLD, LONG, LATER, COUNTED] }).titles, { now: IMPORTED });
    expect(summary).toMatchObject({ created: 6, failed: 0 });
    expect(await Promise.all(ids.map((id) => status(idOf(id))))).toEqual(['airing', 'airing', 'airing', 'airing', 'upcoming', 'airing']);
    const auth = (await server.user('contributor')).auth;
    expectJson(await send(server, 'PATCH', `/api/animes/${idOf('936')}/`, { body: { episodes: 40 }, headers: auth }), 200);

    // 2026-08-29 in Japan: the last day of NEW's 26 weeks; 2026-08-30: finished.
    await run('2026-08-29T10:00:00Z');
    expect(await status(idOf('931'))).toBe('airing');
    await run('2026-08-29T15:00:00Z');
    // EDGE_NEW (2025-10-26 + 26 weeks = 2026-04-26) is finished too; EDGE_OLD and LONG stay airing;
    // COUNTED is left to its episodes (its 40th weekly slot is in December).
    expect(await Promise.all(ids.map((id) => status(idOf(id))))).toEqual(['finished', 'finished', 'airing', 'airing', 'airing', 'airing']);
    // LATER: airing from 2026-07-03, finished on 2027-01-01 in Japan.
    await run('2026-12-31T10:00:00Z');
    expect(await status(idOf('935'))).toBe('airing');
    await run('2026-12-31T15:00:00Z');
    expect(await status(idOf('935'))).toBe('finished');
    await run('2031-01-01T00:00:00Z');
    const uncounted = ids.slice(0, 5);
    expect(await Promise.all(uncounted.map((id) => status(idOf(id))))).toEqual(['finished', 'finished', 'airing', 'airing', 'finished']);
    // The schedule lists the long-running ones, not the finished ones.
    const listed = (expectJson(await send(server, 'GET', '/api/schedules/'), 200) as { results: { anime: { id: string } }[] }).results.map((r) => r.anime.id);
    expect(uncounted.filter((id) => listed.includes(idOf(id)))).toEqual(['933', '934']);
  }, 180_000);

  it('a title imported before provenance recorded the release follows that of 0.3.208, where it came from', async () => {
    await importTitles(sourceCatalogue({ items: [open('961', '2026-02-28')] }).titles, { now: IMPORTED });
    const Key = { pk: `ANIME#${idOf('961')}`, sk: 'R' };
    const before = (await db().send(new GetCommand({ TableName: tableName(), Key }))).Item!;
    expect((before.priv as { import: { release?: string } }).import.release).toBe('2026-04-25');
    await db().send(new UpdateCommand({ TableName: tableName(), Key, UpdateExpression: 'REMOVE priv.#import.#release', ExpressionAttributeNames: { '#import': 'import', '#release': 'release' } }));
    await run('2026-08-29T10:00:00Z');
    expect(await status(idOf('961'))).toBe('airing');
    await run('2026-08-29T15:00:00Z');
    expect(await status(idOf('961'))).toBe('finished');
  }, 60_000);

  it('the import sets the status the job would have set', async () => {
    const again = ['941', '942', '943'];
    const titles = sourceCatalogue({ items: [open('941', '2026-02-28'), open('942', '1996-01-07'), open('943', '2026-07-02')] }).titles;
    await importTitles(titles, { now: new Date('2026-11-29T03:00:00Z') });
    expect(await Promise.all(again.map((id) => status(idOf(id))))).toEqual(['finished', 'airing', 'airing']);
  }, 60_000);
});
