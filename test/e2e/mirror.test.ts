/**
 * A mirror kept by the change feed (API.md §8.5; README "Mirror the catalogue"): a client starts
 * from an empty copy and follows `/api/changes/` — fetching each record an entry names, dropping
 * each deleted one — while 20 writers make 2,000 random catalogue writes (creations, renames and
 * deletions of all ten kinds, titles linking taxonomy records that others delete meanwhile). Once
 * the writers are done and the stream consumers have refreshed what those deletions and renames
 * change in other records (those refreshes are writes too, with entries), the copy equals the
 * catalogue read whole, list by list — but for what the feed does not follow: derived numbers
 * (§5.1) and reverse views.
 */
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../support/contract.js';
import { call, relative, type Res } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { feedProblems } from '../support/feed-check.js';
import { rng } from '../support/rng.js';
import { scanAll } from '../support/tables.js';
import { useServer } from '../support/server.js';

const server = useServer();
const WRITERS = 20;
const WRITES = 2_000;

const SEGMENTS = {
  anime: 'animes',
  manga: 'mangas',
  character: 'characters',
  person: 'persons',
  news: 'news',
  genre: 'genres',
  theme: 'themes',
  demographic: 'demographics',
  producer: 'producers',
  magazine: 'magazines',
} as const;
type Kind = keyof typeof SEGMENTS;
const KINDS = Object.keys(SEGMENTS) as Kind[];

/** What the feed does not follow: derived numbers (§5.1) and reverse views (a character's appearances and voices, a person's credits). */
const DERIVED = ['score', 'scored_by', 'rank', 'popularity', 'members', 'favorites', 'anime_count', 'manga_count', 'next_episode'];
const REVERSE: Partial<Record<Kind, string[]>> = { character: ['animes', 'mangas', 'voices'], person: ['staff_credits'] };
const followed = (kind: Kind, record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([k]) => !DERIVED.includes(k) && !(REVERSE[kind] ?? []).includes(k)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a mirror that follows /api/changes/', () => {
  it(`ends equal to the catalogue read whole, after ${WRITES} random writes by ${WRITERS} writers`, async () => {
    const auths = await Promise.all(Array.from({ length: WRITERS }, async () => (await server.user('moderator')).auth));
    const live: Record<Kind, string[]> = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<Kind, string[]>;
    const copy = new Map<string, Record<string, unknown>>();
    const key = (kind: Kind, id: string) => `${kind}/${id}`;
    const outcomes: Record<number, number> = {};

    // The mirror: from an empty copy, every entry in order; a changed record is fetched as it is now.
    let writing = true;
    let entries = 0;
    let next = '/api/changes/';
    const catchUp = async (): Promise<boolean> => {
      const res = await call(server, 'GET', next);
      expect(res.status, res.text).toBe(200);
      for (const e of res.body.results as { kind: Kind; id: string; change: string }[]) {
        entries++;
        if (e.change === 'deleted') {
          copy.delete(key(e.kind, e.id));
          continue;
        }
        const got = await call(server, 'GET', `/api/${SEGMENTS[e.kind]}/${e.id}/`);
        if (got.status === 200) copy.set(key(e.kind, e.id), followed(e.kind, got.body));
        else if (got.status === 404) copy.delete(key(e.kind, e.id));
        else throw new Error(`GET ${e.kind} ${e.id}: ${got.status} ${got.text}`);
      }
      next = relative(server, res.body.next);
      return res.body.results.length === 0;
    };
    const mirror = (async () => {
      while (writing) if (await catchUp()) await sleep(50);
    })();

    // The writers: random creations, renames and deletions of every kind.
    const pick = (random: () => number, kind: Kind) => live[kind][Math.floor(random() * live[kind].length)];
    const some = (random: () => number, kind: Kind) => {
      const id = pick(random, kind);
      return id ? [id] : [];
    };
    const bodyOf = (random: () => number, kind: Kind): Record<string, unknown> => {
      const name = uniqueName(`Mirror ${kind}`);
      switch (kind) {
        case 'anime':
          return { name, genre_ids: some(random, 'genre'), theme_ids: some(random, 'theme'), studio_ids: some(random, 'producer'), characters: some(random, 'character').map((id) => ({ character_id: id, role: 'main' })) };
        case 'manga':
          return { name, genre_ids: some(random, 'genre'), demographic_ids: some(random, 'demographic'), magazine_ids: some(random, 'magazine') };
        case 'news':
          return { name, content: 'Mirrored.', anime_ids: some(random, 'anime') };
        case 'producer':
          return { name, type: 'studio' };
        default:
          return { name };
      }
    };
    let done = 0;
    await Promise.all(
      auths.map(async (headers, w) => {
        const random = rng(2100 + w);
        for (let i = 0; i < WRITES / WRITERS; i++) {
          const kind = KINDS[Math.floor(random() * KINDS.length)]!;
          const roll = random();
          const target = pick(random, kind);
          // A 503 (writes that kept losing their turn, decision Z2) is retried after Retry-After, as clients do.
          const retried = async (method: string, path: string, body?: Record<string, unknown>) => {
            for (;;) {
              const res = await call(server, method, path, { body, headers });
              outcomes[res.status] = (outcomes[res.status] ?? 0) + 1;
              if (res.status !== 503) return res;
              await sleep(Number(res.headers.get('retry-after')) * 1000);
            }
          };
          let res;
          if (!target || roll < 0.45) {
            res = await retried('POST', `/api/${SEGMENTS[kind]}/`, bodyOf(random, kind));
            if (res.status === 201) live[kind].push(res.body.id);
          } else if (roll < 0.8) {
            res = await retried('PATCH', `/api/${SEGMENTS[kind]}/${target}/`, { name: uniqueName(`Renamed ${kind}`) });
          } else {
            res = await retried('DELETE', `/api/${SEGMENTS[kind]}/${target}/`);
            live[kind] = live[kind].filter((id) => id !== target);
          }
          // A record deleted by another writer meanwhile (404), or a reference to one (400): what a real client meets.
          expect([200, 201, 204, 400, 404], res.text).toContain(res.status);
          done++;
        }
      }),
    );
    expect(done).toBe(WRITES);
    expect((outcomes[200] ?? 0) + (outcomes[201] ?? 0) + (outcomes[204] ?? 0)).toBeGreaterThan(WRITES * 0.8);

    // The catalogue read whole, list by list, every record's detail.
    const whole = async () => {
      const out = new Map<string, Record<string, unknown>>();
      for (const kind of KINDS) {
        let url: string | null = `/api/${SEGMENTS[kind]}/?limit=100`;
        while (url) {
          const page: Res = await call(server, 'GET', url);
          expect(page.status, page.text).toBe(200);
          for (const r of page.body.results as { id: string }[]) {
            const got = await call(server, 'GET', `/api/${SEGMENTS[kind]}/${r.id}/`);
            if (got.status === 200) out.set(key(kind, r.id), followed(kind, got.body));
          }
          url = page.body.next && relative(server, page.body.next);
        }
      }
      return out;
    };
    writing = false;
    await mirror;
    // The consumers refresh the titles that embed a renamed or deleted record: writes with entries, followed too.
    await eventually(async () => {
      while (!(await catchUp()));
      const all = await whole();
      expect(copy.size).toBe(all.size);
      expect(Object.fromEntries(copy)).toEqual(Object.fromEntries(all));
    }, 120_000);
    // The feed's items: every change numbered, 1..head without a gap, times in order.
    await server.background!.streams!.caughtUp();
    expect(feedProblems(await scanAll(process.env.TABLE_NAME!))).toEqual([]);
    // One entry per write that succeeded, and one per consumer refresh.
    expect(entries).toBeGreaterThanOrEqual((outcomes[200] ?? 0) + (outcomes[201] ?? 0) + (outcomes[204] ?? 0));
    console.log(`mirror: ${WRITES} writes (${JSON.stringify(outcomes)}), ${entries} entries followed, ${copy.size} records mirrored`);
  }, 600_000);
});
