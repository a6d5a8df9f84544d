/**
 * An anime write at the contract's maxima of links (20 genres, 20 themes, 10 studios, 30
 * producers, 10 licensors) with a 255-character Japanese title (≈ 250 word postings): more than
 * one transaction, so it goes through the staged write (shared/db/staged.ts); with every external
 * id and 20 streaming links (API.md §8.2), and an Idempotency-Key (§8.7: its answer given
 * again). It must read back completely, keep every count exact when it returns, and move them
 * all on a replace.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectJson, send, uniqueName, walk } from '../support/contract.js';
import { storedKey } from '../support/idempotency.js';
import { useServer } from '../support/server.js';

const server = useServer();
let auth: Record<string, string>;
let userId: string;
beforeAll(async () => {
  ({ auth, id: userId } = await server.user('contributor'));
});

async function many(segment: string, n: number, extra: Record<string, unknown> = {}): Promise<{ id: string; name: string }[]> {
  return Promise.all(
    Array.from({ length: n }, async () => expectJson(await send(server, 'POST', `/api/${segment}/`, { body: { name: uniqueName(segment), ...extra }, headers: auth }), 201)),
  );
}

async function links() {
  return {
    genres: await many('genres', 20),
    themes: await many('themes', 20),
    studios: await many('producers', 10, { type: 'studio' }),
    producers: await many('producers', 30, { type: 'network' }),
    licensors: await many('producers', 10, { type: 'licensor' }),
  };
}
type Links = Awaited<ReturnType<typeof links>>;
const ids = (l: Links) => ({
  genre_ids: l.genres.map((g) => g.id),
  theme_ids: l.themes.map((g) => g.id),
  studio_ids: l.studios.map((g) => g.id),
  producer_ids: l.producers.map((g) => g.id),
  licensor_ids: l.licensors.map((g) => g.id),
});
const count = async (segment: string, id: string) => expectJson(await send(server, 'GET', `/api/${segment}/${id}/`), 200).anime_count as number;

describe('a write at the maxima of links', () => {
  it('creates, reads back, replaces and deletes with every count exact when each write returns', { timeout: 400_000 }, async () => {
    const first = await links();
    // 255 distinct-ish kanji and kana: every character starts a word (§1.6), so ~250 word postings.
    const kana = [...'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん'];
    const kanji = [...'進撃巨人魔法少女学園物語鋼錬金術師銀魂鬼滅刃呪術廻戦東京喰種寄生獣蟲師攻殻機動隊新世紀福音戦士'];
    const name_jpn = Array.from({ length: 255 }, (_, i) => (i % 3 === 0 ? kanji[i % kanji.length] : kana[(i * 7) % kana.length])).join('');
    // Every external id (five claims in the record's transaction, §8.2) and the most streaming links.
    const n = () => 1 + Math.floor(Math.random() * 999_999_999);
    const external_ids = { mal: n(), anilist: n(), anidb: n(), kitsu: n(), bangumi: n() };
    const streaming = Array.from({ length: 20 }, (_, i) => ({ site: `Site ${i}`, url: `https://watch${i}.example.org/${n()}` }));
    // And a cast and staff: their chunks too (over 100 items in the main transaction: the chunks follow with the rest).
    const [character] = await many('characters', 1);
    const [person] = await many('persons', 1);
    const cast = { characters: [{ character_id: character!.id, role: 'main', voice_actors: [{ person_id: person!.id, language: 'japanese' }] }], staff: [{ person_id: person!.id, positions: ['Director'] }] };
    const body = { name: uniqueName('Maximal'), name_jpn, ...ids(first), external_ids, streaming, ...cast };
    // Sent with an Idempotency-Key (§8.7): the main transaction is full (100 items), so the stored answer follows with the rest (staged.ts).
    const key = randomUUID();
    const a = expectJson(await send(server, 'POST', '/api/animes/', { body, headers: { ...auth, 'idempotency-key': key } }), 201);
    const again = await send(server, 'POST', '/api/animes/', { body, headers: { ...auth, 'idempotency-key': key } });
    expect(expectJson(again, 201)).toEqual(a);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const stored = (await storedKey({ user: userId }, key))!;
    // The answer, sealed, stays far under DynamoDB's 400 KB item (gzip: names repeat in its Refs).
    expect(Buffer.from(stored.item.sealed as Uint8Array).length).toBeLessThan(64 * 1024);
    expect(a.genres).toEqual(first.genres.map(({ id, name }) => ({ id, name })));
    expect(a.licensors).toHaveLength(10);
    expect(expectJson(await send(server, 'GET', `/api/animes/${a.id}/`), 200)).toEqual(a);
    for (const g of [...first.genres, ...first.themes.slice(0, 1)]) expect(await count(g === first.themes[0] ? 'themes' : 'genres', g.id)).toBe(1);
    for (const p of [...first.studios, ...first.producers, ...first.licensors]) expect(await count('producers', p.id)).toBe(1);
    // Every index item was written before the write returned: filters and a search in the middle of the title find it.
    const byGenre = await walk(server, `/api/animes/?genre=${first.genres[19]!.id}&theme=${first.themes[7]!.id}`);
    expect(byGenre.results.map((r: { id: string }) => r.id)).toEqual([a.id]);
    const middle = name_jpn.slice(120, 123);
    const searched = await walk(server, `/api/animes/?q=${encodeURIComponent(middle)}&studio=${first.studios[9]!.id}`);
    expect(searched.results.map((r: { id: string }) => r.id)).toEqual([a.id]);

    const second = await links();
    // Every link and every external id changes: 90 gained links, 5 claims moved (10 items).
    const moved = { mal: n(), anilist: n(), anidb: n(), kitsu: n(), bangumi: n() };
    const put = expectJson(await send(server, 'PUT', `/api/animes/${a.id}/`, { body: { name: a.name, name_jpn: 'ちがう', ...ids(second), external_ids: moved }, headers: auth }), 200);
    expect(put.producers).toEqual(second.producers.map(({ id, name }) => ({ id, name })));
    expect(put.external_ids).toEqual(moved);
    expect((await walk(server, `/api/animes/?mal_id=${moved.mal}`)).results.map((r: { id: string }) => r.id)).toEqual([a.id]);
    expect((await walk(server, `/api/animes/?mal_id=${external_ids.mal}`)).results).toEqual([]);
    for (const g of first.genres) expect(await count('genres', g.id)).toBe(0);
    for (const p of first.licensors) expect(await count('producers', p.id)).toBe(0);
    for (const p of second.licensors) expect(await count('producers', p.id)).toBe(1);
    expect((await walk(server, `/api/animes/?genre=${first.genres[0]!.id}`)).results).toEqual([]);
    expect((await walk(server, `/api/animes/?q=${encodeURIComponent(middle)}`)).results.map((r: { id: string }) => r.id)).not.toContain(a.id);

    expect((await send(server, 'DELETE', `/api/animes/${a.id}/`, { headers: auth })).status).toBe(204);
    for (const g of second.genres) expect(await count('genres', g.id)).toBe(0);
    for (const p of second.studios) expect(await count('producers', p.id)).toBe(0);
    expect((await walk(server, `/api/animes/?genre=${second.genres[0]!.id}`)).results).toEqual([]);
  });
});
