/**
 * How long after a write's response its effect shows on the other side of a relation (the
 * catalogue and consumers sections): on a table of its own with the stream poller as `npm start`
 * runs it, a probe writes one relation at a time and polls the other side every 10 ms through the
 * gateway — an anime created with a cast → the character's `animes`; a character renamed → its
 * voice actor's `voices/`; a genre renamed → the anime's `genres`.
 */
import { ensureTable } from '../../infra/local/engines.js';
import { startStreamPoller, type StreamPoller } from '../../infra/local/streams.js';
import { signToken } from '../../shared/auth/tokens.js';
import { createBenchUser, type BenchEnv } from './local.js';
import { percentile } from './stats.js';

export interface LagFigures {
  p50: number;
  p99: number;
  max: number;
  samples: number;
}

/**
 * Runs `work` on a fresh table of its own with the stream poller, as an administrator of that
 * table (`headers`); the table's name is TABLE_NAME meanwhile.
 */
export async function onOwnTable<T>(label: string, work: (poller: StreamPoller, headers: Record<string, string>, table: string) => Promise<T>): Promise<T> {
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB!;
  const previous = process.env.TABLE_NAME;
  const table = `bench-${label}-${Date.now()}`;
  await ensureTable(endpoint, table);
  process.env.TABLE_NAME = table;
  const poller = await startStreamPoller({ endpoint, table, idleMs: 20 });
  try {
    const id = await createBenchUser('administrator');
    const headers: Record<string, string> = {};
    // Access tokens live 15 minutes and a run on a busy machine takes longer: the headers are renewed.
    const renew = async () => {
      headers.authorization = `Bearer ${(await signToken('access', { id, token_version: 0 })).token}`;
    };
    await renew();
    const timer = setInterval(() => void renew(), 5 * 60_000);
    try {
      return await work(poller, headers, table);
    } finally {
      clearInterval(timer);
    }
  } finally {
    await poller.stop();
    process.env.TABLE_NAME = previous;
  }
}

/** The probe of the three relations, writing with `headers`; `figures()` sums up the probes made. */
export function relationProbe(env: BenchEnv, headers: Record<string, string>) {
  const post = async <T>(path: string, body: unknown) => (await env.http.expect<T>(201, 'POST', path, { headers, body })).json;
  const patch = async (path: string, body: unknown) => env.http.expect(200, 'PATCH', path, { headers, body });
  const get = async <T>(path: string) => (await env.http.expect<T>(200, 'GET', path)).json;
  const until = async (check: () => Promise<boolean>) => {
    const t0 = performance.now();
    while (!(await check())) {
      if (performance.now() - t0 > 60_000) throw new Error('a relation did not follow within 60 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    return performance.now() - t0;
  };
  const lags: Record<string, number[]> = { 'anime created → character animes': [], 'character renamed → voices/ entry': [], 'genre renamed → anime genres': [] };
  return {
    /** Probe number `i`: each relation once. */
    async probe(i: number): Promise<void> {
      const genre = await post<{ id: string }>('/api/genres/', { name: `Lag genre ${i}` });
      const character = await post<{ id: string }>('/api/characters/', { name: `Lag character ${i}` });
      const person = await post<{ id: string }>('/api/persons/', { name: `Lag person ${i}` });
      const anime = await post<{ id: string }>('/api/animes/', {
        name: `Lag anime ${i}`,
        genre_ids: [genre.id],
        characters: [{ character_id: character.id, role: 'main', voice_actors: [{ person_id: person.id, language: 'japanese' }] }],
      });
      lags['anime created → character animes']!.push(await until(async () => (await get<{ animes: { id: string }[] }>(`/api/characters/${character.id}/`)).animes.some((a) => a.id === anime.id)));
      await patch(`/api/characters/${character.id}/`, { name: `Lag character ${i} renamed` });
      lags['character renamed → voices/ entry']!.push(
        await until(async () => (await get<{ results: { character: { name: string } }[] }>(`/api/persons/${person.id}/voices/`)).results[0]?.character.name === `Lag character ${i} renamed`),
      );
      await patch(`/api/genres/${genre.id}/`, { name: `Lag genre ${i} renamed` });
      lags['genre renamed → anime genres']!.push(await until(async () => (await get<{ genres: { name: string }[] }>(`/api/animes/${anime.id}/`)).genres[0]?.name === `Lag genre ${i} renamed`));
    },
    figures(): Record<string, LagFigures> {
      return Object.fromEntries(
        Object.entries(lags).map(([k, v]) => [k, { p50: percentile(v, 50), p99: percentile(v, 99), max: Math.max(...v), samples: v.length }]),
      );
    },
  };
}
