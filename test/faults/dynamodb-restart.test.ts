/**
 * DynamoDB Local killed in the middle of a write load, then started again on the same files
 * (API.md §1.4 503; §5.1 exact numbers; §1.8 relations; §8.7 safe retries). 8 clients write through the local
 * gateway — list items created, changed and deleted, reviews written and deleted, helpful votes,
 * animes (some large enough to be staged) and mangas created with genres, themes, producers,
 * demographics, magazines, characters, voice actors, staff and authors, changed and deleted,
 * genres created — while the engine is killed (SIGKILL: a crash) and later stopped (SIGTERM: a
 * clean stop), each time started again a few seconds later. Every answer is a success or a 503
 * problem with Retry-After; none is a 500 or anything else, none hangs (bounded client time);
 * requests succeed again after the restart; and once the stream consumers have caught up, every
 * record, counter and relation agrees with a recount from the items (test/support/recount.ts).
 * A write whose answer was lost counts as whatever the table holds: the recount is the judge.
 * Creations (list items, reviews, animes, mangas, genres) are sent with an Idempotency-Key and
 * retried with it after a 503 or a 409 in progress until they get another answer: every key
 * ends with its record, and made at most one (no two records of one creation's name, and each
 * key's stored answer names the record its client was given).
 *
 * The engine keeps its data on disk in this project (`faults`, test/support/setup.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectJson, send, uniqueName } from '../support/contract.js';
import { dynamoEngine } from '../support/dynamo-engine.js';
import { describeTally, faultRequest, newTally, retriedCreation, type Outcome, type Tally } from '../support/faults.js';
import { storedKey } from '../support/idempotency.js';
import { expectRecount } from '../support/recount.js';
import type { Item } from '../support/tables.js';
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

/** One request of a worker (null: nothing sent this time); a retried creation may span phases (`load.tally` is the current one). */
type Step = (load: Load) => Promise<Outcome | null>;

/** A creation the load sent with an Idempotency-Key: by whom, where, the record's name (titles and genres) and the id its client was given in the end. */
interface Creation {
  userId: string;
  key: string;
  path: string;
  kind?: 'ANIME' | 'MANGA' | 'GENRE';
  name?: string;
  id?: string;
  attempts: number;
}
const creations: Creation[] = [];

/** Sends a creation with a new key, retried with it until it is answered otherwise than 503 or 409 in progress, and notes it. */
async function create(load: Load, userId: string, auth: Auth, path: string, body: Record<string, unknown>, kind?: Creation['kind']): Promise<Outcome> {
  const key = randomUUID();
  const out = await retriedCreation(server, () => load.tally, path, { body, headers: auth, key });
  creations.push({ userId, key, path, attempts: out.attempts, ...(kind ? { kind, name: body.name as string } : {}), ...(out.kind === 'ok' ? { id: out.res.body.id as string } : {}) });
  return out;
}

/** A worker: its steps one after the other while the load runs, pausing a little after a 503 as a client would. */
const worker =
  (step: Step, random: () => number) =>
  async (load: Load): Promise<void> => {
    while (load.running) {
      const out = await step(load);
      if (out?.kind === 'unavailable') await sleep(200 + random() * 200);
    }
  };

/** A member: its list items and reviews of the seeded titles, and votes. Only what it knows to exist is changed. */
function member(userId: string, auth: Auth, c: Catalogue, seed: number): (load: Load) => Promise<void> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const items = new Map<string, string>(); // title id → item id, known to exist
  const reviews = new Map<string, string>(); // title id → review id
  const unknown = new Set<string>(); // an item (`i<title>`) or review (`r<title>`) whose write's answer was lost
  const request = (load: Load, method: string, path: string, body?: unknown) => faultRequest(server, load.tally, method, path, { body, headers: auth });
  return worker(async (load) => {
    const t = pick(c.titles);
    const list = t.segment === 'animes' ? '/api/playlists/animelist/animes/' : '/api/playlists/mangalist/mangas/';
    const values = () => ({ status: pick(STATUSES[t.segment]), score: Math.floor(random() * 11), is_favorite: random() < 0.3 });
    const reviewPath = `/api/${t.segment}/${t.id}/reviews/`;
    const r = random();
    if (r < 0.4) {
      if (unknown.has(`i${t.id}`)) return null;
      const item = items.get(t.id);
      if (!item) {
        const out = await create(load, userId, auth, list, { [t.segment === 'animes' ? 'anime_id' : 'manga_id']: t.id, ...values() });
        if (out.kind === 'ok') items.set(t.id, out.res.body.id);
        else unknown.add(`i${t.id}`);
        return out;
      }
      if (random() < 0.75) return request(load, 'PATCH', `${list}${item}/`, values());
      items.delete(t.id);
      const out = await request(load, 'DELETE', `${list}${item}/`);
      if (out.kind !== 'ok') unknown.add(`i${t.id}`);
      return out;
    }
    if (r < 0.65) {
      if (unknown.has(`r${t.id}`)) return null;
      const review = reviews.get(t.id);
      if (!review) {
        const out = await create(load, userId, auth, `${reviewPath}create/`, { rating: 1 + Math.floor(random() * 10), comment: COMMENT, is_spoiler: random() < 0.3 });
        if (out.kind === 'ok') reviews.set(t.id, out.res.body.id);
        else unknown.add(`r${t.id}`);
        return out;
      }
      if (random() < 0.6) return request(load, 'PATCH', `${reviewPath}${review}/`, { rating: 1 + Math.floor(random() * 10), is_spoiler: random() < 0.3 });
      reviews.delete(t.id);
      const out = await request(load, 'DELETE', `${reviewPath}${review}/`);
      if (out.kind !== 'ok') unknown.add(`r${t.id}`);
      return out;
    }
    const review = pick(c.reviews);
    return request(load, 'PATCH', `/api/${review.segment}/${review.titleId}/reviews/${review.id}/`, { helpful: random() < 0.6 });
  }, random);
}

/** A contributor: animes and mangas with relations created, changed and deleted, genres created. */
function contributor(userId: string, auth: Auth, c: Catalogue, seed: number): (load: Load) => Promise<void> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const some = (xs: readonly Ref[], most: number) => [...new Set(Array.from({ length: 1 + Math.floor(random() * most) }, () => pick(xs).id))];
  const cast = () =>
    some(c.characters, 3).map((id) => ({ character_id: id, role: random() < 0.5 ? 'main' : 'supporting', voice_actors: some(c.persons, 2).map((p) => ({ person_id: p, language: 'japanese' })) }));
  const animes: string[] = []; // created by this worker, known to exist
  const request = (load: Load, method: string, path: string, body?: unknown) => faultRequest(server, load.tally, method, path, { body, headers: auth });
  return worker(async (load) => {
    const r = random();
    if (r < 0.35 || animes.length === 0) {
      // One in five is staged (more index items than a transaction holds): every kanji of its Japanese name starts a word.
      const staged = random() < 0.2;
      const out = await create(load, userId, auth, '/api/animes/', {
        name: uniqueName(`Load anime ${seed}`),
        ...(staged ? { name_jpn: Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + ((seed * 131 + i * 7) % 2000))).join('') } : {}),
        genre_ids: some(c.genres, 3),
        theme_ids: some(c.themes, 2),
        studio_ids: some(c.studios, 2),
        characters: cast(),
        staff: some(c.persons, 2).map((p) => ({ person_id: p, positions: ['Director'] })),
      }, 'ANIME');
      if (out.kind === 'ok') animes.push(out.res.body.id);
      return out;
    }
    if (r < 0.6) return request(load, 'PATCH', `/api/animes/${pick(animes)}/`, { genre_ids: some(c.genres, 3), characters: cast() });
    if (r < 0.7) return request(load, 'DELETE', `/api/animes/${animes.splice(Math.floor(random() * animes.length), 1)[0]!}/`);
    if (r < 0.9) {
      return create(load, userId, auth, '/api/mangas/', {
        name: uniqueName(`Load manga ${seed}`),
        genre_ids: some(c.genres, 2),
        theme_ids: some(c.themes, 1),
        demographic_ids: some(c.demographics, 1),
        magazine_ids: some(c.magazines, 1),
        authors: some(c.persons, 2).map((p) => ({ person_id: p, role: 'story' })),
        characters: some(c.characters, 2).map((id) => ({ character_id: id, role: 'main' })),
      }, 'MANGA');
    }
    return create(load, userId, auth, '/api/genres/', { name: uniqueName(`Load genre ${seed}`) }, 'GENRE');
  }, random);
}

/**
 * Every key made at most one record: no two title or genre records bear the name of one
 * creation (names are unique per creation), a record that bears it is the one its client was
 * given, and each key's stored answer (opened with the key) names that record.
 */
async function duplicates(items: ReadonlyMap<string, Item>): Promise<string[]> {
  const named = new Map<string, string[]>();
  for (const i of items.values()) {
    const m = /^(ANIME|MANGA|GENRE)#([A-Za-z0-9_-]+)$/.exec(String(i.pk));
    if (!m || i.sk !== 'R') continue;
    const at = `${m[1]} ${(i.rec as { name: string }).name}`;
    named.set(at, [...(named.get(at) ?? []), m[2]!]);
  }
  const problems: string[] = [];
  for (const c of creations) {
    const ids = c.kind ? (named.get(`${c.kind} ${c.name}`) ?? []) : [];
    if (ids.length > 1 || (ids.length === 1 && ids[0] !== c.id)) problems.push(`${c.path} ${c.name}: records ${ids.join(', ')}, its client was given ${c.id}`);
    const stored = await storedKey({ user: c.userId }, c.key);
    const given = (stored?.outcome?.payload as { reply?: { body?: { id?: string } } } | undefined)?.reply?.body?.id;
    if (c.id !== undefined && given !== c.id) problems.push(`${c.path} key ${c.key}: stored ${stored?.item.state ?? 'nothing'} (${String(given)}), its client was given ${c.id}`);
  }
  return problems;
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
      ...(await Promise.all(Array.from({ length: 6 }, async (_, i) => {
        const u = await server.user('member');
        return member(u.id, u.auth, catalogue, 100 + i);
      }))),
      ...(await Promise.all(Array.from({ length: 2 }, async (_, i) => {
        const u = await server.user('contributor');
        return contributor(u.id, u.auth, catalogue, 200 + i);
      }))),
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
        for (const k of ['sent', 'ok', 'replayed', 'unavailable', 'inProgress', 'otherCount', 'hung'] as const) totals[k] += t[k];
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
    const retried = creations.filter((c) => c.attempts > 1);
    report.push(`${creations.length} creations with an Idempotency-Key, ${retried.length} retried (at most ${Math.max(0, ...creations.map((c) => c.attempts))} attempts), ${totals.replayed} answers given again`);
    console.log(report.join('\n'));
    expect(totals.other, describeTally(totals)).toEqual([]);
    expect(totals.hung).toBe(0);
    expect(creations.filter((c) => c.id === undefined).map((c) => `${c.path} after ${c.attempts} attempts`), 'creations never answered').toEqual([]);
    expect(await duplicates(items), 'keys that made more than one record').toEqual([]);
  });
});
