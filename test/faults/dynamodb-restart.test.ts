/**
 * DynamoDB Local killed in the middle of a write load, then started again on the same files
 * (API.md §1.4 503; §5.1 exact numbers; §1.8 relations). 8 clients write through the local
 * gateway — list items created, changed and deleted, reviews written and deleted, helpful votes,
 * animes (some large enough to be staged) and mangas created with genres, themes, producers,
 * demographics, magazines, characters, voice actors, staff and authors, changed and deleted,
 * genres created — while the engine is killed (SIGKILL: a crash) and later stopped (SIGTERM: a
 * clean stop), each time started again a few seconds later. Every answer is a success or a 503
 * problem with Retry-After; none is a 500 or anything else, none hangs (bounded client time);
 * requests succeed again after the restart; and once the stream consumers have caught up, every
 * record, counter and relation agrees with a recount from the items (test/support/recount.ts).
 * A write whose answer was lost counts as whatever the table holds: the recount is the judge.
 *
 * The engine keeps its data on disk in this project (`faults`, test/support/setup.ts).
 */
import { describe, expect, it } from 'vitest';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { dynamoEngine } from '../support/dynamo-engine.js';
import { describeTally, faultRequest, newTally, type Outcome, type Tally } from '../support/faults.js';
import { expectRecount } from '../support/recount.js';
import { rng } from '../support/rng.js';
import { useServer } from '../support/server.js';

const server = useServer();
type Auth = Record<string, string>;
type Ref = { id: string };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const COMMENT = 'A long enough comment about this title, written under load.';
const STATUSES = { animes: ['watching', 'completed', 'on_hold', 'dropped', 'plan_to_watch'], mangas: ['reading', 'completed', 'on_hold', 'dropped', 'plan_to_read'] };

interface Catalogue {
  genres: Ref[];
  themes: Ref[];
  studios: Ref[];
  demographics: Ref[];
  magazines: Ref[];
  characters: Ref[];
  persons: Ref[];
  /** Titles members list and review: never deleted, so no request of the load may find one gone. */
  titles: { segment: 'animes' | 'mangas'; id: string }[];
  /** Reviews by authors outside the load: never deleted, so votes on them always find them. */
  reviews: { segment: string; titleId: string; id: string }[];
}

async function seed(): Promise<Catalogue> {
  const editor = (await server.user('contributor')).auth;
  const post = async (path: string, body: Record<string, unknown>) => expectJson(await send(server, 'POST', path, { body, headers: editor }), 201) as Ref;
  const many = (n: number, make: (i: number) => Promise<Ref>) => Promise.all(Array.from({ length: n }, (_, i) => make(i)));
  const genres = await many(5, () => post('/api/genres/', { name: uniqueName('Genre') }));
  const themes = await many(2, () => post('/api/themes/', { name: uniqueName('Theme') }));
  const studios = await many(3, () => post('/api/producers/', { name: uniqueName('Studio'), type: 'studio' }));
  const demographics = await many(2, () => post('/api/demographics/', { name: uniqueName('Demographic') }));
  const magazines = await many(2, () => post('/api/magazines/', { name: uniqueName('Magazine') }));
  const characters = await many(6, () => post('/api/characters/', { name: uniqueName('Character') }));
  const persons = await many(4, () => post('/api/persons/', { name: uniqueName('Person') }));
  const animes = await many(6, (i) => post('/api/animes/', { name: uniqueName('Listed anime'), genre_ids: [genres[i % 5]!.id], studio_ids: [studios[i % 3]!.id], characters: [{ character_id: characters[i]!.id, role: 'main' }] }));
  const mangas = await many(3, (i) => post('/api/mangas/', { name: uniqueName('Listed manga'), genre_ids: [genres[i]!.id], demographic_ids: [demographics[i % 2]!.id] }));
  const titles = [...animes.map((a) => ({ segment: 'animes' as const, id: a.id })), ...mangas.map((m) => ({ segment: 'mangas' as const, id: m.id }))];
  // Each of three reviewers outside the load reviews three titles.
  const reviewers = await Promise.all([0, 1, 2].map(async () => (await server.user('member')).auth));
  const reviews = await Promise.all(
    reviewers.flatMap((auth, i) =>
      titles.slice(i * 3, i * 3 + 3).map(async (t) => {
        const r = expectJson(await send(server, 'POST', `/api/${t.segment}/${t.id}/reviews/create/`, { body: { rating: 8, comment: COMMENT }, headers: auth }), 201);
        return { segment: t.segment, titleId: t.id, id: r.id as string };
      }),
    ),
  );
  return { genres, themes, studios, demographics, magazines, characters, persons, titles, reviews };
}

/** The current phase's tally (the workers count into whichever phase is running) and whether to go on. */
interface Load {
  tally: Tally;
  running: boolean;
}

/** One request of a worker (null: nothing sent this time). */
type Step = (tally: Tally) => Promise<Outcome | null>;

/** A worker: its steps one after the other while the load runs, pausing a little after a 503 as a client would. */
const worker =
  (step: Step, random: () => number) =>
  async (load: Load): Promise<void> => {
    while (load.running) {
      const out = await step(load.tally);
      if (out?.kind === 'unavailable') await sleep(200 + random() * 200);
    }
  };

/** A member: its list items and reviews of the seeded titles, and votes. Only what it knows to exist is changed. */
function member(auth: Auth, c: Catalogue, seed: number): (load: Load) => Promise<void> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const items = new Map<string, string>(); // title id → item id, known to exist
  const reviews = new Map<string, string>(); // title id → review id
  const unknown = new Set<string>(); // an item (`i<title>`) or review (`r<title>`) whose write's answer was lost
  const request = (tally: Tally, method: string, path: string, body?: unknown) => faultRequest(server, tally, method, path, { body, headers: auth });
  return worker(async (tally) => {
    const t = pick(c.titles);
    const list = t.segment === 'animes' ? '/api/playlists/animelist/animes/' : '/api/playlists/mangalist/mangas/';
    const values = () => ({ status: pick(STATUSES[t.segment]), score: Math.floor(random() * 11), is_favorite: random() < 0.3 });
    const reviewPath = `/api/${t.segment}/${t.id}/reviews/`;
    const r = random();
    if (r < 0.4) {
      if (unknown.has(`i${t.id}`)) return null;
      const item = items.get(t.id);
      if (!item) {
        const out = await request(tally, 'POST', list, { [t.segment === 'animes' ? 'anime_id' : 'manga_id']: t.id, ...values() });
        if (out.kind === 'ok') items.set(t.id, out.res.body.id);
        else unknown.add(`i${t.id}`);
        return out;
      }
      if (random() < 0.75) return request(tally, 'PATCH', `${list}${item}/`, values());
      items.delete(t.id);
      const out = await request(tally, 'DELETE', `${list}${item}/`);
      if (out.kind !== 'ok') unknown.add(`i${t.id}`);
      return out;
    }
    if (r < 0.65) {
      if (unknown.has(`r${t.id}`)) return null;
      const review = reviews.get(t.id);
      if (!review) {
        const out = await request(tally, 'POST', `${reviewPath}create/`, { rating: 1 + Math.floor(random() * 10), comment: COMMENT, is_spoiler: random() < 0.3 });
        if (out.kind === 'ok') reviews.set(t.id, out.res.body.id);
        else unknown.add(`r${t.id}`);
        return out;
      }
      if (random() < 0.6) return request(tally, 'PATCH', `${reviewPath}${review}/`, { rating: 1 + Math.floor(random() * 10), is_spoiler: random() < 0.3 });
      reviews.delete(t.id);
      const out = await request(tally, 'DELETE', `${reviewPath}${review}/`);
      if (out.kind !== 'ok') unknown.add(`r${t.id}`);
      return out;
    }
    const review = pick(c.reviews);
    return request(tally, 'PATCH', `/api/${review.segment}/${review.titleId}/reviews/${review.id}/`, { helpful: random() < 0.6 });
  }, random);
}

/** A contributor: animes and mangas with relations created, changed and deleted, genres created. */
function contributor(auth: Auth, c: Catalogue, seed: number): (load: Load) => Promise<void> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const some = (xs: readonly Ref[], most: number) => [...new Set(Array.from({ length: 1 + Math.floor(random() * most) }, () => pick(xs).id))];
  const cast = () =>
    some(c.characters, 3).map((id) => ({ character_id: id, role: random() < 0.5 ? 'main' : 'supporting', voice_actors: some(c.persons, 2).map((p) => ({ person_id: p, language: 'japanese' })) }));
  const animes: string[] = []; // created by this worker, known to exist
  const request = (tally: Tally, method: string, path: string, body?: unknown) => faultRequest(server, tally, method, path, { body, headers: auth });
  return worker(async (tally) => {
    const r = random();
    if (r < 0.35 || animes.length === 0) {
      // One in five is staged (more index items than a transaction holds): every kanji of its Japanese name starts a word.
      const staged = random() < 0.2;
      const out = await request(tally, 'POST', '/api/animes/', {
        name: uniqueName(`Load anime ${seed}`),
        ...(staged ? { name_jpn: Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + ((seed * 131 + i * 7) % 2000))).join('') } : {}),
        genre_ids: some(c.genres, 3),
        theme_ids: some(c.themes, 2),
        studio_ids: some(c.studios, 2),
        characters: cast(),
        staff: some(c.persons, 2).map((p) => ({ person_id: p, positions: ['Director'] })),
      });
      if (out.kind === 'ok') animes.push(out.res.body.id);
      return out;
    }
    if (r < 0.6) return request(tally, 'PATCH', `/api/animes/${pick(animes)}/`, { genre_ids: some(c.genres, 3), characters: cast() });
    if (r < 0.7) return request(tally, 'DELETE', `/api/animes/${animes.splice(Math.floor(random() * animes.length), 1)[0]!}/`);
    if (r < 0.9) {
      return request(tally, 'POST', '/api/mangas/', {
        name: uniqueName(`Load manga ${seed}`),
        genre_ids: some(c.genres, 2),
        theme_ids: some(c.themes, 1),
        demographic_ids: some(c.demographics, 1),
        magazine_ids: some(c.magazines, 1),
        authors: some(c.persons, 2).map((p) => ({ person_id: p, role: 'story' })),
        characters: some(c.characters, 2).map((id) => ({ character_id: id, role: 'main' })),
      });
    }
    return request(tally, 'POST', '/api/genres/', { name: uniqueName(`Load genre ${seed}`) });
  }, random);
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(50);
}

describe('DynamoDB Local killed and started again during a write load', () => {
  it('every answer is 2xx or 503 with Retry-After, none hangs; afterwards every number and relation agrees with a recount', { timeout: 900_000 }, async () => {
    const engine = dynamoEngine();
    const seeding = Date.now();
    const catalogue = await seed();
    const workers = [
      ...(await Promise.all(Array.from({ length: 6 }, async (_, i) => member((await server.user('member')).auth, catalogue, 100 + i)))),
      ...(await Promise.all(Array.from({ length: 2 }, async (_, i) => contributor((await server.user('contributor')).auth, catalogue, 200 + i)))),
    ];
    const report: string[] = [`seed: ${((Date.now() - seeding) / 1000).toFixed(1)} s`];
    const totals = newTally();

    for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
      const phases = { before: newTally(), down: newTally(), after: newTally() };
      const load: Load = { tally: phases.before, running: true };
      const running = workers.map((work) => work(load));
      const started = Date.now();
      await until(() => phases.before.ok >= 40, 60_000);
      const stopping = Date.now();
      load.tally = phases.down;
      await engine.kill(signal);
      const stopped = Date.now();
      await until(() => phases.down.unavailable >= 20, 10_000);
      await engine.start();
      const restarted = Date.now();
      load.tally = phases.after;
      await until(() => phases.after.ok >= 40, 120_000);
      load.running = false;
      await Promise.all(running);
      const ended = Date.now();
      for (const t of Object.values(phases)) {
        for (const k of ['sent', 'ok', 'unavailable', 'otherCount', 'hung'] as const) totals[k] += t[k];
        totals.other.push(...t.other);
      }
      report.push(
        `${signal}: before ${((stopping - started) / 1000).toFixed(1)} s, ${describeTally(phases.before)}; ` +
          `engine down ${((restarted - stopping) / 1000).toFixed(1)} s (stop ${stopped - stopping} ms, start ${restarted - stopped} ms), ${describeTally(phases.down)}; ` +
          `after ${((ended - restarted) / 1000).toFixed(1)} s, ${describeTally(phases.after)}`,
      );
      expect(phases.down.unavailable, 'the engine was down').toBeGreaterThan(0);
      expect(phases.after.ok, 'requests succeed again after the restart').toBeGreaterThanOrEqual(40);
    }
    const settling = Date.now();
    await server.background!.streams!.caughtUp();
    // A record a consumer gave up on would show below only as a stale derived item: say so first.
    expect(server.background!.streams!.deadLetters(), 'records a stream consumer gave up on').toEqual([]);
    const recounting = Date.now();
    const items = await expectRecount(server.background!.streams);
    report.push(`consumers caught up ${((recounting - settling) / 1000).toFixed(1)} s after the load; the recount of ${items.size} items agrees (${((Date.now() - recounting) / 1000).toFixed(1)} s)`);
    console.log(report.join('\n'));
    expect(totals.other, describeTally(totals)).toEqual([]);
    expect(totals.hung).toBe(0);
  });
});
