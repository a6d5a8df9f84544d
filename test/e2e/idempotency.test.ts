/**
 * Safe retries of creations (API.md §8.7): an `Idempotency-Key` on every POST that creates.
 * A creation sent again with its key is answered again (`Idempotent-Replayed: true`) and creates
 * nothing; concurrent requests with one key make one record; the key is the caller's own; a kept
 * refusal is answered again, a 409 is not kept; bad header values are 400; without the header
 * nothing changes. Every creating route but social sign-in (test/e2e/socials.test.ts) is sent a
 * key here, and each stores its answer in the transaction that creates its record. Claims taken
 * over from a request that died, expired items and a request that lost its key are set up in the
 * table directly (shared/db/idempotency.ts).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { claimKey, completionPlan, fingerprint, IdempotencyLost, idempotencyScope, storeOutcome, type Claim, type ClaimResult } from '../../shared/db/idempotency.js';
import { commit, createPlan, getRecord } from '../../shared/db/records.js';
import { genreEntity } from '../../shared/db/taxonomy.js';
import { getUserByEmail } from '../../shared/db/users.js';
import { newId } from '../../shared/ids.js';
import { addressOf, PASSWORD, uniqueUsername } from '../support/accounts.js';
import { expectErrors, expectJson, expectProblem, send, uniqueName, type Sent } from '../support/contract.js';
import { fixture } from '../support/images.js';
import { joinsStoredAnswer, loseNextCommittedAnswer, storedKey, tableCalls, touchesKeys } from '../support/idempotency.js';
import { emailsTo, waitForEmail } from '../support/mail.js';
import { formData } from '../support/multipart.js';
import { useServer } from '../support/server.js';

const server = useServer();
const calls = tableCalls();
type User = Awaited<ReturnType<typeof server.user>>;
let editor: User;
let other: User;
let mod: User;
let fan: User;
let admin: User;
beforeAll(async () => {
  [editor, other, mod, fan, admin] = await Promise.all([server.user('contributor'), server.user('contributor'), server.user('moderator'), server.user('member'), server.user('administrator')]);
});

const key = () => randomUUID();
const post = (path: string, body: unknown, auth: Record<string, string>, idempotencyKey?: string) =>
  send(server, 'POST', path, { body, headers: { ...auth, ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) } });
/** Straight to the gateway (not through the contract proxy), for header values a proxy may not pass on as sent. */
const direct = async (path: string, body: unknown, headers: Record<string, string>) => {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined, text, method: 'POST', path } as Sent;
};
const count = async (path: string) => expectJson(await send(server, 'GET', path), 200).count as number;
const matching = async (segment: string, name: string) => expectJson(await send(server, 'GET', `/api/${segment}/?q=${encodeURIComponent(name)}&limit=100`), 200).results.filter((r: { name: string }) => r.name === name);

/** The first answer and its replay agree, the replay marked and nothing else told apart (ETag and Location included). */
function expectReplay(first: Sent, again: Sent) {
  expect(again.status, again.text).toBe(first.status);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.text).toBe(first.text);
  for (const h of ['location', 'etag', 'content-type', 'cache-control']) expect(again.headers.get(h), h).toBe(first.headers.get(h));
  expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
}

describe('a creation sent again with its key', () => {
  it('is answered again, with Idempotent-Replayed: true, and creates nothing', async () => {
    const k = key();
    const body = { name: uniqueName('Replayed genre') };
    const before = await count('/api/genres/');
    const first = await post('/api/genres/', body, editor.auth, k);
    expectJson(first, 201);
    const again = await post('/api/genres/', body, editor.auth, k);
    expectJson(again, 201);
    expectReplay(first, again);
    expect(await count('/api/genres/')).toBe(before + 1);
    // Without the key, the same body is a new request: the name is taken.
    expectErrors(await post('/api/genres/', body, editor.auth), 409, 'conflict', ['name']);
  });

  it('ten at once with one key: one record; the others wait (409, Retry-After: 1) or are answered again', async () => {
    const k = key();
    const body = { name: uniqueName('Concurrent anime') };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/api/animes/', body, editor.auth, k)));
    const created = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(created, answers.map((a) => `${a.status} ${a.text.slice(0, 80)}`).join('\n')).toHaveLength(1);
    const id = created[0]!.body.id as string;
    for (const a of answers) {
      if (a.status === 201) expect(a.body.id).toBe(id);
      else {
        const problem = expectProblem(a, 409, 'idempotency-in-progress');
        expect(a.headers.get('retry-after')).toBe('1');
        expect(problem.retry_after).toBe(1);
      }
    }
    expect((await matching('animes', body.name)).map((a: { id: string }) => a.id)).toEqual([id]);
    const later = await post('/api/animes/', body, editor.auth, k);
    expectReplay(created[0]!, later);
  });

  it('with another body or another path → 422; the first answer stays', async () => {
    const k = key();
    const body = { name: uniqueName('Reused key') };
    const first = expectJson(await post('/api/themes/', body, editor.auth, k), 201);
    expectProblem(await post('/api/themes/', { ...body, description: 'Not the same.' }, editor.auth, k), 422, 'idempotency-key-reuse');
    expectProblem(await post('/api/genres/', body, editor.auth, k), 422, 'idempotency-key-reuse');
    // The body as bytes: the same object written otherwise is another body.
    expectProblem(await post('/api/themes/', `{"name":  ${JSON.stringify(body.name)}}`, editor.auth, k), 422, 'idempotency-key-reuse');
    const again = await post('/api/themes/', body, editor.auth, k);
    expect(again.body).toEqual(first);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys are the caller\'s own: two users and an anonymous registration with one key each create', async () => {
    const k = key();
    const a = expectJson(await post('/api/magazines/', { name: uniqueName('Mine') }, editor.auth, k), 201);
    const b = await post('/api/magazines/', { name: uniqueName('Yours') }, other.auth, k);
    expect(expectJson(b, 201).id).not.toBe(a.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    const username = uniqueUsername('idem');
    const reg = await post('/api/users/', { email: addressOf(username), username, password: PASSWORD, re_password: PASSWORD }, {}, k);
    expect(expectJson(reg, 201).username).toBe(username);
    expect(reg.headers.get('idempotent-replayed')).toBeNull();
    // Stored under each caller: the users' ids, and the client address of the anonymous one.
    expect((await storedKey({ user: editor.id }, k))?.outcome?.status).toBe(201);
    expect((await storedKey({ user: other.id }, k))?.outcome?.status).toBe(201);
    expect((await storedKey({ ip: '127.0.0.1' }, k))?.outcome?.status).toBe(201);
  });

  it('a request without the header is served as before: nothing is claimed or stored', async () => {
    const read = calls.since();
    const body = { name: uniqueName('Keyless'), type: 'studio' };
    expectJson(await post('/api/producers/', body, editor.auth), 201);
    expectErrors(await post('/api/producers/', body, editor.auth), 409, 'conflict', ['name']);
    const mine = read().filter((c) => c.component === 'producers.create');
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.filter(touchesKeys)).toEqual([]);
  });
});

describe('what is kept', () => {
  it('a 400 (the body) and a 404 (the title) are answered again', async () => {
    const k = key();
    const bad = await post('/api/demographics/', { name: '' }, editor.auth, k);
    expectErrors(bad, 400, 'validation-error', ['name']);
    const again = await post('/api/demographics/', { name: '' }, editor.auth, k);
    expectErrors(again, 400, 'validation-error', ['name']);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.errors).toEqual(bad.body.errors);
    expect(again.body.request_id).toBe(again.headers.get('x-request-id'));

    const unknown = `/api/animes/${newId()}/reviews/create/`;
    const k2 = key();
    const review = { rating: 7, comment: 'A long enough comment about a title that does not exist.' };
    expectProblem(await post(unknown, review, fan.auth, k2), 404, 'not-found');
    const replayed = expectProblem(await post(unknown, review, fan.auth, k2), 404, 'not-found');
    expect(replayed.instance).toBe(unknown);
    expect((await storedKey({ user: fan.id }, k2))?.outcome?.payload).toMatchObject({ problem: { type: 'not-found' } });
  });

  it('a 409 is not kept: a retry is tried again, and succeeds once the conflict is gone', async () => {
    const name = uniqueName('Taken genre');
    const taken = expectJson(await post('/api/genres/', { name }, editor.auth), 201);
    const k = key();
    const clash = await post('/api/genres/', { name }, editor.auth, k);
    expect(expectErrors(clash, 409, 'conflict', ['name']).existing_id).toBe(taken.id);
    expect(await storedKey({ user: editor.id }, k)).toBeNull();
    expectErrors(await post('/api/genres/', { name }, editor.auth, k), 409, 'conflict', ['name']);
    expect((await send(server, 'DELETE', `/api/genres/${taken.id}/`, { headers: editor.auth })).status).toBe(204);
    const created = await post('/api/genres/', { name }, editor.auth, k);
    expect(expectJson(created, 201).id).not.toBe(taken.id);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
  });

  it('what comes before the claim is not kept (401, 403 by role, 415, a malformed body)', async () => {
    const k = key();
    expectProblem(await post('/api/genres/', { name: uniqueName('Anonymous') }, {}, k), 401, 'authentication-required');
    expectProblem(await post('/api/genres/', { name: uniqueName('Member') }, fan.auth, k), 403, 'forbidden');
    expectProblem(await send(server, 'POST', '/api/genres/', { raw: Buffer.from('{"name":'), headers: { ...editor.auth, 'content-type': 'application/json', 'idempotency-key': k } }), 400, 'malformed-request');
    expect(await storedKey({ user: editor.id }, k)).toBeNull();
    expect(await storedKey({ user: fan.id }, k)).toBeNull();
    expectJson(await post('/api/genres/', { name: uniqueName('After all that') }, editor.auth, k), 201);
  });
});

describe('the header', () => {
  it('1–255 visible ASCII characters; anything else → 400 malformed-request', async () => {
    for (const bad of ['', 'a b', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await direct('/api/genres/', { name: uniqueName('Bad key') }, { ...editor.auth, 'idempotency-key': bad });
      expect(expectProblem(res, 400, 'malformed-request').detail).toMatch(/Idempotency-Key/);
    }
    for (const good of ['a', '~'.repeat(255), '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']) {
      expectJson(await post('/api/genres/', { name: uniqueName('Good key') }, editor.auth, good), 201);
    }
  });

  it('is checked with the request\'s form (§1.4 #7): after 415, before the 404 of a record', async () => {
    expectProblem(await send(server, 'POST', '/api/genres/', { raw: Buffer.from('name=x'), headers: { ...editor.auth, 'content-type': 'text/plain', 'idempotency-key': 'a b' } }), 415, 'unsupported-media-type');
    const res = await direct(`/api/animes/${newId()}/reviews/create/`, { rating: 5 }, { ...fan.auth, 'idempotency-key': 'a b' });
    expectProblem(res, 400, 'malformed-request');
  });

  it('is ignored by operations that create nothing', async () => {
    const g = expectJson(await post('/api/genres/', { name: uniqueName('Patched') }, editor.auth), 201);
    const res = await send(server, 'PATCH', `/api/genres/${g.id}/`, { body: { description: 'x' }, headers: { ...editor.auth, 'idempotency-key': 'a b' } });
    expect(expectJson(res, 200).description).toBe('x');
  });
});

describe('every creation stores its answer in the transaction that creates its record', () => {
  /** Sends the request twice with one key: the replay, and the call that committed the first. */
  async function both(component: string, request: (k: string) => Promise<Sent>): Promise<any> {
    const k = key();
    const read = calls.since();
    const first = await request(k);
    expectJson(first, 201);
    const committed = read().filter((c) => c.component === component);
    expect(committed.filter(joinsStoredAnswer), `${component}: ${JSON.stringify(committed.map((c) => c.operation))}`).toHaveLength(1);
    const replaying = calls.since();
    const again = await request(k);
    expectReplay(first, again);
    // A replay reads the claim and writes nothing else.
    const replayCalls = replaying().filter((c) => c.component === component);
    expect(replayCalls.map((c) => c.operation)).toEqual(['PutItem']);
    expect(replayCalls[0]!.touches.every((t) => t.pk?.startsWith('IDEM#'))).toBe(true);
    return first.body;
  }

  it('the five taxonomies (records.ts createRecord)', async () => {
    for (const [segment, extra] of [['genres', {}], ['themes', {}], ['demographics', {}], ['magazines', {}], ['producers', { type: 'studio' }]] as const) {
      const name = uniqueName(`Stored ${segment}`);
      await both(`${segment}.create`, (k) => post(`/api/${segment}/`, { name, ...extra }, editor.auth, k));
      expect(await matching(segment, name)).toHaveLength(1);
    }
  });

  it('the titles (writeTitle): animes, mangas, characters, persons, news', async () => {
    const titled = (segment: string, body: Record<string, unknown>, auth = editor.auth) => both(`${segment}.create`, (k) => post(`/api/${segment}/`, body, auth, k));
    const character = await titled('characters', { name: uniqueName('Stored character') });
    const person = await titled('persons', { name: uniqueName('Stored person') });
    const anime = await titled('animes', { name: uniqueName('Stored anime'), characters: [{ character_id: character.id, role: 'main', voice_actors: [{ person_id: person.id, language: 'japanese' }] }] });
    await titled('mangas', { name: uniqueName('Stored manga') });
    await titled('news', { name: uniqueName('Stored news'), content: 'The article.' }, mod.auth);
    expect(await matching('animes', anime.name)).toHaveLength(1);
  });

  it('a person\'s picture: the same form with a new boundary is the same body; one picture, one file', async () => {
    const person = expectJson(await post('/api/persons/', { name: uniqueName('Pictured') }, editor.auth), 201);
    let n = 0;
    const upload = (k: string) => {
      const { body, contentType } = formData([{ name: 'image', filename: 'photo.png', type: 'image/png', data: fixture('rgba.png') }, { name: 'name', value: 'Portrait' }], `----boundary-${++n}-${randomUUID()}`);
      return send(server, 'POST', `/api/persons/${person.id}/create-picture/`, { raw: body, headers: { ...editor.auth, 'content-type': contentType, 'idempotency-key': k } });
    };
    const picture = await both('persons.create-picture', upload);
    const pictures = expectJson(await send(server, 'GET', `/api/persons/${person.id}/pictures/`), 200);
    expect(pictures.results.map((p: { id: string }) => p.id)).toEqual([picture.id]);
  });

  it('list items and reviews: the counters move once', async () => {
    const anime = expectJson(await post('/api/animes/', { name: uniqueName('Listed once') }, editor.auth), 201);
    const manga = expectJson(await post('/api/mangas/', { name: uniqueName('Listed once') }, editor.auth), 201);
    const item = await both('playlists.animelist-add', (k) => post('/api/playlists/animelist/animes/', { anime_id: anime.id, status: 'completed', score: 8 }, fan.auth, k));
    // The card shows the counters as this item leaves them.
    expect(item.anime).toMatchObject({ id: anime.id, score: 8 });
    await both('playlists.mangalist-add', (k) => post('/api/playlists/mangalist/mangas/', { manga_id: manga.id, status: 'reading' }, fan.auth, k));
    expect(expectJson(await send(server, 'GET', `/api/animes/${anime.id}/`), 200)).toMatchObject({ members: 1, scored_by: 1, score: 8 });
    const comment = 'A long enough comment about this title, sent twice.';
    await both('reviews.anime-create', (k) => post(`/api/animes/${anime.id}/reviews/create/`, { rating: 9, comment }, fan.auth, k));
    await both('reviews.manga-create', (k) => post(`/api/mangas/${manga.id}/reviews/create/`, { rating: 6, comment }, fan.auth, k));
    expect(await count(`/api/animes/${anime.id}/reviews/`)).toBe(1);
    expect(await count(`/api/mangas/${manga.id}/reviews/`)).toBe(1);
  });

  it('a profile (administrators)', async () => {
    const target = await server.user('member');
    const profile = await both('profiles.create', (k) => post('/api/profiles/', { user_id: target.id, bio: 'Once.' }, admin.auth, k));
    expect(profile.user.id).toBe(target.id);
  });

  it('a registration: one account, one e-mail', async () => {
    const username = uniqueUsername('once');
    const email = addressOf(username);
    const body = { email, username, password: PASSWORD, re_password: PASSWORD };
    const registered = await both('users.create', (k) => post('/api/users/', body, {}, k));
    expect((await getUserByEmail(email))?.record.id).toBe(registered.id);
    await waitForEmail(email);
    // The same address registered again (another username): E2, sent once however often the answer is given.
    const k = key();
    const again = { ...body, username: uniqueUsername('twice') };
    const first = expectJson(await post('/api/users/', again, {}, k), 201);
    expect(first.id).not.toBe(registered.id);
    expect((await post('/api/users/', again, {}, k)).body).toEqual(first);
    await waitForEmail(email, { count: 2 });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await emailsTo(email)).toHaveLength(2);
  });
});

describe('an answer lost after the commit (the function dies, the database goes away)', () => {
  it('the client gets 503, its retry the stored answer: one record, for a taxonomy and a title written in stages', async () => {
    const k = key();
    const body = { name: uniqueName('Lost answer') };
    loseNextCommittedAnswer('genres.create');
    const lost = await post('/api/genres/', body, editor.auth, k);
    expectProblem(lost, 503, 'service-unavailable');
    const retried = await post('/api/genres/', body, editor.auth, k);
    expect(expectJson(retried, 201).name).toBe(body.name);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await matching('genres', body.name)).map((g: { id: string }) => g.id)).toEqual([retried.body.id]);

    // An anime whose index items do not fit one transaction: its main transaction commits, the rest is a journal.
    const k2 = key();
    const anime = { name: uniqueName('Lost staged'), name_jpn: Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7)).join('') };
    loseNextCommittedAnswer('animes.create');
    expectProblem(await post('/api/animes/', anime, editor.auth, k2), 503, 'service-unavailable');
    const again = await post('/api/animes/', anime, editor.auth, k2);
    expect(expectJson(again, 201).name).toBe(anime.name);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await matching('animes', anime.name)).map((a: { id: string }) => a.id)).toEqual([again.body.id]);
    expectJson(await send(server, 'GET', `/api/animes/${again.body.id}/`), 200);
  });
});

describe('a creation whose main transaction is full (an anime at the maxima of links)', () => {
  it('its answer follows in the staged rest: given again, and after a loss between the two, the retry gets it once the journal is applied; one record', { timeout: 120_000 }, async () => {
    const many = async (segment: string, n: number, extra: Record<string, unknown> = {}) =>
      Promise.all(Array.from({ length: n }, async () => expectJson(await post(`/api/${segment}/`, { name: uniqueName(segment), ...extra }, editor.auth), 201).id as string));
    const links = {
      genre_ids: await many('genres', 20),
      theme_ids: await many('themes', 20),
      studio_ids: await many('producers', 10, { type: 'studio' }),
      producer_ids: await many('producers', 30, { type: 'network' }),
      licensor_ids: await many('producers', 10, { type: 'licensor' }),
    };
    const n = () => 1 + Math.floor(Math.random() * 999_999_999);
    // 90 gained links, 6 claims (the name and five external ids), the slot and the delta: 100 items already.
    const body = () => ({ name: uniqueName('Full main'), ...links, external_ids: { mal: n(), anilist: n(), anidb: n(), kitsu: n(), bangumi: n() } });
    const fullMain = (c: { touches: { pk: string | null }[] }) => c.touches.length === 100 && c.touches.some((t) => /^ANIME#[^#]+$/.test(t.pk ?? ''));

    const k = key();
    const first = body();
    const read = calls.since();
    const created = await post('/api/animes/', first, editor.auth, k);
    expectJson(created, 201);
    const mine = read().filter((c) => c.component === 'animes.create' && c.operation === 'TransactWriteItems');
    expect(mine.filter(fullMain), 'the main transaction').toHaveLength(1);
    expect(mine.filter(joinsStoredAnswer), 'the answer applied with the rest').toHaveLength(1);
    expectReplay(created, await post('/api/animes/', first, editor.auth, k));

    // Lost after the main transaction, before the rest: the journal is left, and the relations consumer applies it.
    const k2 = key();
    const second = body();
    loseNextCommittedAnswer('animes.create', fullMain);
    expectProblem(await post('/api/animes/', second, editor.auth, k2), 503, 'service-unavailable');
    await server.background!.streams!.caughtUp();
    const again = await post('/api/animes/', second, editor.auth, k2);
    expect(expectJson(again, 201).name).toBe(second.name);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await matching('animes', second.name)).map((a: { id: string }) => a.id)).toEqual([again.body.id]);
  });
});

describe('claims', () => {
  const scopeOf = (userId: string, k: string) => idempotencyScope(`user:${userId}`, k);
  const held = (r: ClaimResult): Claim => {
    if (typeof r === 'string' || !('claimed' in r)) throw new Error(`not claimed: ${JSON.stringify(r)}`);
    return r.claimed;
  };

  it('a claim held by a request still running → 409 with Retry-After: 1; one whose lease ran out is taken over', async () => {
    const k = key();
    const body = { name: uniqueName('Held') };
    const scope = scopeOf(editor.id, k);
    const fp = fingerprint(scope, 'POST', '/api/genres/', Buffer.from(JSON.stringify(body)));
    // A request holding the key (as if it were running now), then one that died 20 s ago with a 15 s lease.
    held(await claimKey(scope, fp, Date.now(), 60_000));
    const busy = await post('/api/genres/', body, editor.auth, k);
    expect(expectProblem(busy, 409, 'idempotency-in-progress').retry_after).toBe(1);
    expect(busy.headers.get('retry-after')).toBe('1');
    const k2 = key();
    const scope2 = scopeOf(editor.id, k2);
    held(await claimKey(scope2, fingerprint(scope2, 'POST', '/api/genres/', Buffer.from(JSON.stringify(body))), Date.now() - 20_000, 15_000));
    expectJson(await post('/api/genres/', body, editor.auth, k2), 201);
  });

  it('an item past its 24 hours counts as absent (TTL deletes late)', async () => {
    const k = key();
    const scope = scopeOf(editor.id, k);
    const dayAgo = Date.now() - 25 * 3600_000;
    const old = held(await claimKey(scope, 'another request', dayAgo, 15_000));
    await storeOutcome(old, { status: 400, payload: { problem: { type: 'validation-error', detail: 'old' } } }, dayAgo);
    expectJson(await post('/api/genres/', { name: uniqueName('Fresh') }, editor.auth, k), 201);
  });

  it('a request that lost its key (taken over after its lease) commits nothing', async () => {
    const k = key();
    const scope = scopeOf(editor.id, k);
    const slow = held(await claimKey(scope, 'fp', Date.now() - 20_000, 15_000));
    const taker = held(await claimKey(scope, 'fp', Date.now(), 15_000));
    const at = new Date().toISOString();
    const record = { id: newId(), name: uniqueName('Lost'), description: '', explicit: false, anime_count: 0, manga_count: 0, created_at: at, updated_at: at };
    await expect(commit(createPlan(genreEntity, record), completionPlan(slow, { status: 201, payload: {} }))).rejects.toBeInstanceOf(IdempotencyLost);
    expect(await getRecord(genreEntity, record.id)).toBeNull();
    expect((await storedKey({ user: editor.id }, k))?.item).toMatchObject({ state: 'pending', lease: taker.lease });
  });
});
