/**
 * The README's examples of the typed client (client/index.ts): sign in, search the animes, put
 * the first match on the caller's anime list (safe to retry: an Idempotency-Key); find an anime by its MyAnimeList id and refresh up
 * to 100 held animes in one request. test/e2e/client.test.ts runs them against the local server.
 */
import { bearerAuth, createCatalogueClient } from './index.js';

export async function planToWatch(baseUrl: string, email: string, password: string, search: string) {
  const api = createCatalogueClient({ baseUrl });

  // Sign in: a pair of tokens; every later request sends the access token.
  const signIn = await api.POST('/api/tokens/jwt/create/', { body: { email, password } });
  if (signIn.error) throw new Error(`sign-in failed: ${signIn.error.detail}`);
  api.use(bearerAuth(signIn.data.access));

  // Search: with `fields`, each result has exactly `id` and the keys asked for.
  const found = await api.GET('/api/animes/', { params: { query: { q: search, fields: 'name,episodes', limit: 5 } } });
  if (found.error) throw new Error(`search failed: ${found.error.detail}`);
  const anime = found.data.results[0]; // { id: string; name: string; episodes: number | null } | undefined
  if (!anime) throw new Error(`no anime matches "${search}"`);

  // Add it to the caller's anime list; the item comes back in full. With an Idempotency-Key the
  // request is safe to send again (after a 503, a timeout, a lost connection): a retry gets the
  // first answer and adds nothing more; while the first is still running it gets 409 and Retry-After.
  const key = crypto.randomUUID();
  const add = () => api.POST('/api/playlists/animelist/animes/', { params: { header: { 'Idempotency-Key': key } }, body: { anime_id: anime.id, status: 'plan_to_watch' } });
  let added = await add();
  for (let retry = 1; retry <= 3 && (added.response.status === 503 || added.error?.type === 'urn:problem:idempotency-in-progress'); retry++) {
    await new Promise((r) => setTimeout(r, 1000 * Number(added.response.headers.get('retry-after') ?? 1)));
    added = await add();
  }
  if (added.error) throw new Error(`adding failed: ${added.error.detail}`);
  return { anime, item: added.data };
}

/**
 * A client that keeps MyAnimeList ids and a copy of some animes: the catalogue's anime for a
 * MyAnimeList id (`mal_id`), then the current state of up to 100 held animes in one request
 * (`ids`), explicit titles left out (`sfw`). Ids of animes deleted since are simply absent.
 */
export async function fromMyAnimeList(baseUrl: string, malId: number, held: readonly string[]) {
  const api = createCatalogueClient({ baseUrl });

  const byMal = await api.GET('/api/animes/', { params: { query: { mal_id: malId, fields: 'name,external_ids' } } });
  if (byMal.error) throw new Error(`lookup failed: ${byMal.error.detail}`);

  const current = await api.GET('/api/animes/', { params: { query: { ids: held.join(','), sfw: 'true', limit: 100, fields: 'name,updated_at' } } });
  if (current.error) throw new Error(`refresh failed: ${current.error.detail}`);
  return { anime: byMal.data.results[0] ?? null, current: current.data.results };
}

/**
 * Search as the user types, typos and all: `fuzzy` also matches a word within one typo (two for
 * words of 8 or more letters) and words written together (`rezero`); `ordering=relevance` puts
 * the best matches first (a name that is the query, then names that start with it, …).
 */
export async function searchAsTyped(baseUrl: string, typed: string) {
  const api = createCatalogueClient({ baseUrl });
  const found = await api.GET('/api/animes/', { params: { query: { q: typed, fuzzy: 'true', ordering: 'relevance', fields: 'name', limit: 10 } } });
  if (found.error) throw new Error(`search failed: ${found.error.detail}`);
  return found.data.results.map((r) => r.name);
}

/**
 * Keep a copy of the animes and mangas current (the change feed, §8.5): start from `since` (the
 * time before you read the catalogue whole), then each time from the position this returns (the
 * cursor is bound to `since`, as to every parameter: send both). Each entry names a record
 * written since: fetch it as it is now, or drop it when it was deleted. The feed is caught up
 * when `next` resumes from the same point; poll again later from there. An error `gone` (410)
 * means the position is older than the 30 days kept: read the catalogue whole again.
 */
export async function followChanges(baseUrl: string, copy: Map<string, unknown>, position: { since: string; cursor?: string }) {
  const api = createCatalogueClient({ baseUrl });
  let { cursor } = position;
  for (;;) {
    const page = await api.GET('/api/changes/', { params: { query: { kind: 'anime,manga', limit: 100, since: position.since, ...(cursor ? { cursor } : {}) } } });
    if (page.error) throw new Error(`the feed failed: ${page.error.detail}`);
    for (const e of page.data.results) {
      const key = `${e.kind}/${e.id}`;
      const got = e.change === 'deleted' ? null : e.kind === 'anime' ? await api.GET('/api/animes/{id}/', { params: { path: { id: e.id } } }) : await api.GET('/api/mangas/{id}/', { params: { path: { id: e.id } } });
      if (got?.data) copy.set(key, got.data);
      else if (!got || got.response.status === 404) copy.delete(key);
      else throw new Error(`fetching ${key} failed: ${got.error?.detail}`);
    }
    const next = new URL(page.data.next).searchParams.get('cursor')!;
    if (next === cursor) return { since: position.since, cursor };
    cursor = next;
  }
}
