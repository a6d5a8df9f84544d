/**
 * The numbers "exact immediately" (API.md §5.1) under concurrency: 50 users create, change and
 * delete list items of the same three titles and vote on their reviews all at once (450+
 * requests in flight in two waves); afterwards every number — the titles' members, scored_by,
 * score, favorites and statistics, every list's counts and every review's helpful_count —
 * equals a recount from the items and votes (test/support/recount.ts: as the API shows them, and
 * every counter and derived item of the table). Then 100 users edit one title's items at once.
 * A request the service refuses with 503 (transactions that kept conflicting) is retried after
 * its Retry-After, as a client would; none may fail otherwise.
 */
import { describe, expect, it } from 'vitest';
import { expectJson, send, uniqueName, type Sent } from '../support/contract.js';
import { useServer } from '../support/server.js';
import { expectApiRecount, expectRecount, publishedVectors, recount } from '../support/recount.js';
import type { Item } from '../support/tables.js';
import { rng } from '../support/rng.js';

const server = useServer();
type Auth = Record<string, string>;
const ITEMS = '/api/playlists/animelist/animes/';
const STATUSES = ['watching', 'completed', 'on_hold', 'dropped', 'plan_to_watch'];

/** A request, retried while the service answers 503 (at most 20 times). */
async function insist(auth: Auth, method: string, path: string, body?: unknown): Promise<Sent> {
  for (let i = 0; ; i++) {
    const res = await send(server, method, path, { body, headers: auth });
    if (res.status !== 503 || i >= 20) return res;
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 100 * (1 + Math.random())));
  }
}

describe('exact numbers under concurrency', () => {
  it('450+ concurrent list edits and helpful votes by 50 users on 3 titles leave every number equal to a recount', { timeout: 900_000 }, async () => {
    const random = rng(2026);
    const editor = (await server.user('contributor')).auth;
    const titles = await Promise.all([0, 1, 2].map(async () => expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Contended') }, headers: editor }), 201)));
    const users = await Promise.all(Array.from({ length: 50 }, async () => (await server.user('member')).auth));
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const values = () => ({ status: pick(STATUSES), score: Math.floor(random() * 11), is_favorite: random() < 0.3 });
    // A review of each title by one of the users; the others vote on it below.
    const reviews = await Promise.all(
      titles.map(async (t, i) => expectJson(await send(server, 'POST', `/api/animes/${t.id}/reviews/create/`, { body: { rating: 7, comment: 'A review everyone votes on, all at once.' }, headers: users[i]! }), 201)),
    );
    const helpful = new Map(reviews.map((r) => [r.id, 0]));
    /** Each other user votes on a review: yes; yes then no; yes, no, yes; or not at all — its last vote counts. */
    const votes = reviews.flatMap((review, i) =>
      users.flatMap((auth, u) => {
        if (u === i) return [];
        const n = Math.floor(random() * 4);
        if (n % 2 === 1) helpful.set(review.id, helpful.get(review.id)! + 1);
        return n === 0 ? [] : [{ auth, path: `/api/animes/${titles[i]!.id}/reviews/${review.id}/`, sequence: [true, false, true].slice(0, n) }];
      }),
    );

    // Wave 1: every user adds every title, all at once.
    const created = await Promise.all(users.flatMap((auth) => titles.map(async (t) => ({ auth, item: expectJson(await insist(auth, 'POST', ITEMS, { anime_id: t.id, ...values() }), 201) }))));
    // Wave 2: each item is changed twice, or deleted, or deleted and added again, and the votes — all at once.
    let requests = created.length;
    await Promise.all([
      ...votes.map(async ({ auth, path, sequence }) => {
        for (const vote of sequence) {
          expect((await insist(auth, 'PATCH', path, { helpful: vote })).status).toBe(200);
          requests += 1;
        }
      }),
      ...created.map(async ({ auth, item }) => {
        const path = `${ITEMS}${item.id}/`;
        const r = random();
        if (r < 0.6) {
          for (let i = 0; i < 2; i++) expect((await insist(auth, 'PATCH', path, values())).status).toBe(200);
          requests += 2;
        } else if (r < 0.8) {
          expect((await insist(auth, 'DELETE', path)).status).toBe(204);
          requests += 1;
        } else {
          expect((await insist(auth, 'DELETE', path)).status).toBe(204);
          expect((await insist(auth, 'POST', ITEMS, { anime_id: item.anime.id, ...values() })).status).toBe(201);
          requests += 2;
        }
      }),
    ]);
    expect(requests).toBeGreaterThanOrEqual(450);

    // The recount: every user's items, as the user reads them back, and the whole table.
    await expectApiRecount(server, users, titles.map((t) => t.id));
    await expectRecount(server.background!.streams);
    for (const t of titles) {
      // The review's helpful_count: the voters whose last vote was yes.
      const [review] = expectJson(await send(server, 'GET', `/api/animes/${t.id}/reviews/`), 200).results;
      expect(review.helpful_count).toBe(helpful.get(review.id));
    }
  });

  it('100 simultaneous list edits of one title, then 100 more, leave its numbers equal to a recount', { timeout: 600_000 }, async () => {
    const random = rng(100);
    const editor = (await server.user('contributor')).auth;
    const title = expectJson(await send(server, 'POST', '/api/animes/', { body: { name: uniqueName('Hot') }, headers: editor }), 201);
    const users = await Promise.all(Array.from({ length: 100 }, async () => (await server.user('member')).auth));
    const values = () => ({ status: STATUSES[Math.floor(random() * STATUSES.length)], score: Math.floor(random() * 11), is_favorite: random() < 0.3 });
    const started = Date.now();
    const items = await Promise.all(users.map(async (auth) => ({ auth, item: expectJson(await insist(auth, 'POST', ITEMS, { anime_id: title.id, ...values() }), 201) })));
    await Promise.all(
      items.map(async ({ auth, item }) => {
        if (random() < 0.2) expect((await insist(auth, 'DELETE', `${ITEMS}${item.id}/`)).status).toBe(204);
        else expect((await insist(auth, 'PATCH', `${ITEMS}${item.id}/`, values())).status).toBe(200);
      }),
    );
    console.log(`200 edits of one title: ${Date.now() - started} ms`);
    await expectApiRecount(server, users, [title.id]);
    const table = await expectRecount(server.background!.streams);

    // The recount can fail: each of these changes to a copy of the items read is reported.
    const key = (re: RegExp) => [...table.keys()].find((k) => re.test(k))!;
    const corruptions: Record<string, (m: Map<string, Item>) => void> = {
      'a title counter one too high': (m) => void (m.get(`ANIME#${title.id} R`)!.st_dropped = Number(m.get(`ANIME#${title.id} R`)!.st_dropped ?? 0) + 1),
      'a listed posting gone': (m) => void m.delete(key(new RegExp(`^ANIME#${title.id}#L `))),
      "a list's count wrong": (m) => void (m.get(key(/^ANIMELIST#[^#]+ R$/))!.n_watching = 99),
      "an item's vector gone": (m) => void m.delete(key(/^ANIMELIST#[^#]+#V /)),
      // A delta after the last one saying the title is deleted, while its record is there.
      'the index missing a record': (m) => {
        const deltas = [...m.values()].filter((i) => i.pk === 'ANIME#IX' && String(i.sk).startsWith('D#'));
        const last = Math.max(Number(m.get('ANIME#IX P')?.seq ?? 0), ...deltas.map((d) => Number(String(d.sk).slice(2))));
        const sk = `D#${String(last + 1).padStart(12, '0')}`;
        m.set(`ANIME#IX ${sk}`, { pk: 'ANIME#IX', sk, id: title.id, v: null });
      },
      'a name claim gone': (m) => void m.delete(key(/^ANIME#U#name#/)),
      'a slot naming another record': (m) => void (m.get(key(/^ANIME#SLOT /))!.id = 'someone-else'),
      'a journal of the current write left': (m) => {
        const t = m.get(`ANIME#${title.id} R`)!;
        m.set(`ANIME#${title.id} J#x`, { pk: `ANIME#${title.id}`, sk: 'J#x', rev: t.rev, write: t.write, ops: [] });
      },
    };
    const published = await publishedVectors(table);
    for (const [what, change] of Object.entries(corruptions)) {
      const copy = new Map([...table].map(([k, v]) => [k, structuredClone(v)]));
      change(copy);
      expect(recount(copy, published), what).not.toEqual([]);
    }
  });
});
