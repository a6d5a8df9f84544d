/**
 * Catalogue churn: a seeded, randomized program of creates, updates, renames and deletes of every
 * catalogue and taxonomy kind with their relations (genres, themes, demographics, magazines and
 * producers linked from animes and mangas; characters cast with voice actors; staff and authors;
 * news naming titles), run through the HTTP API with several requests in flight at once, so that
 * writes race each other and the stream consumers' work on them. Used by the convergence test
 * (test/e2e/convergence.test.ts: the table must then agree with the recount) and the bench (the lag
 * of reverse views under this load). Does not import the test runner.
 *
 * The program is drawn by fast-check from a seed: each step names a kind, an action and abstract
 * picks (indexes into the ids alive when the step runs), so one seed is one program.
 */
import fc from 'fast-check';
import { send, type Server, type Sent } from './http.js';

export const CHURN_KINDS = ['genre', 'theme', 'demographic', 'magazine', 'producer', 'character', 'person', 'anime', 'manga', 'news'] as const;
export type ChurnKind = (typeof CHURN_KINDS)[number];
export const CHURN_ACTIONS = ['create', 'update', 'rename', 'delete'] as const;
export type ChurnAction = (typeof CHURN_ACTIONS)[number];

export interface ChurnStep {
  kind: ChurnKind;
  action: ChurnAction;
  /** Abstract choices: indexes into the live ids of the kinds a body names, and of variants. */
  picks: number[];
}

const COLLECTION: Record<ChurnKind, string> = {
  genre: 'genres',
  theme: 'themes',
  demographic: 'demographics',
  magazine: 'magazines',
  producer: 'producers',
  character: 'characters',
  person: 'persons',
  anime: 'animes',
  manga: 'mangas',
  news: 'news',
};

/** Creations are twice as likely as each other action at first, so the catalogue grows while it churns. */
export const churnStep: fc.Arbitrary<ChurnStep> = fc.record({
  kind: fc.constantFrom(...CHURN_KINDS),
  action: fc.oneof({ weight: 4, arbitrary: fc.constant<ChurnAction>('create') }, { weight: 2, arbitrary: fc.constantFrom<ChurnAction>('update', 'rename') }, { weight: 1, arbitrary: fc.constant<ChurnAction>('delete') }),
  picks: fc.array(fc.nat({ max: 1_000_000 }), { minLength: 12, maxLength: 12 }),
});

/** A program of `length` steps drawn from `seed` (the same seed, the same program). */
export function churnProgram(seed: number, length: number): ChurnStep[] {
  return fc.sample(fc.array(churnStep, { minLength: length, maxLength: length }), { seed, numRuns: 1 })[0]!;
}

export interface ChurnOutcome {
  step: ChurnStep;
  method: string;
  path: string;
  status: number;
  /** Set when the answer is not one this step may get (a bug). */
  unexpected?: string;
  /** When the response arrived (ms since the epoch), and what it returned. */
  at: number;
  body?: any;
}

export interface ChurnReport {
  outcomes: ChurnOutcome[];
  /** Ids alive at the end, by kind (as the responses said). */
  alive: Record<ChurnKind, string[]>;
  /** Answers by status. */
  statuses: Record<number, number>;
}

export interface ChurnOptions {
  server: Server;
  /** Headers of a caller who may write every kind (a moderator: news needs one). */
  auth: Record<string, string>;
  program: readonly ChurnStep[];
  /** Requests in flight at once. */
  concurrency: number;
  /** A label mixed into every name (unique per run). */
  label: string;
  /** Called with each outcome as it arrives. */
  onOutcome?(o: ChurnOutcome): void;
}

const LANGUAGES = ['japanese', 'english', 'french'];

/** Runs a program; every response is checked against what its step may answer. */
export async function runChurn(opts: ChurnOptions): Promise<ChurnReport> {
  const alive = Object.fromEntries(CHURN_KINDS.map((k) => [k, [] as string[]])) as Record<ChurnKind, string[]>;
  const producerType = new Map<string, string>();
  const outcomes: ChurnOutcome[] = [];
  const statuses: Record<number, number> = {};
  let names = 0;
  const name = (kind: string) => `${opts.label} ${kind} ${++names}`;

  /** Up to `n` distinct live ids of `kind`, chosen by `picks` from index `from`. */
  const choose = (kind: ChurnKind, picks: number[], from: number, n: number, where: (id: string) => boolean = () => true): string[] => {
    const pool = alive[kind].filter(where);
    const out = new Set<string>();
    for (let i = 0; i < n && pool.length > 0; i++) out.add(pool[picks[(from + i) % picks.length]! % pool.length]!);
    return [...out];
  };
  const count = (p: number, max: number) => p % (max + 1);

  function relations(step: ChurnStep): Record<string, unknown> {
    const p = step.picks;
    switch (step.kind) {
      case 'anime': {
        const characters = choose('character', p, 3, count(p[0]!, 3));
        const persons = alive.person.length;
        return {
          genre_ids: choose('genre', p, 1, count(p[1]!, 2)),
          theme_ids: choose('theme', p, 2, count(p[2]!, 2)),
          studio_ids: choose('producer', p, 4, count(p[4]!, 1), (id) => producerType.get(id) === 'studio'),
          producer_ids: choose('producer', p, 5, count(p[5]!, 2)),
          licensor_ids: choose('producer', p, 6, count(p[6]!, 1), (id) => producerType.get(id) === 'licensor'),
          characters: characters.map((c, i) => ({
            character_id: c,
            role: i === 0 ? 'main' : 'supporting',
            voice_actors: persons === 0 ? [] : choose('person', p, 7 + i, count(p[7 + i]!, 2)).map((person, j) => ({ person_id: person, language: LANGUAGES[j % LANGUAGES.length] })),
          })),
          staff: choose('person', p, 10, count(p[10]!, 2)).map((person) => ({ person_id: person, positions: ['Director'] })),
        };
      }
      case 'manga':
        return {
          genre_ids: choose('genre', p, 1, count(p[1]!, 2)),
          theme_ids: choose('theme', p, 2, count(p[2]!, 2)),
          demographic_ids: choose('demographic', p, 3, count(p[3]!, 1)),
          magazine_ids: choose('magazine', p, 4, count(p[4]!, 2)),
          authors: choose('person', p, 5, count(p[5]!, 2)).map((person, i) => ({ person_id: person, role: i === 0 ? 'story' : 'art' })),
          characters: choose('character', p, 7, count(p[7]!, 3)).map((c, i) => ({ character_id: c, role: i === 0 ? 'main' : 'supporting' })),
        };
      case 'news':
        return { anime_ids: choose('anime', p, 1, count(p[1]!, 2)), manga_ids: choose('manga', p, 2, count(p[2]!, 2)) };
      case 'producer':
        return { type: ['studio', 'licensor', 'publisher'][p[1]! % 3] };
      default:
        return {};
    }
  }

  const REQUIRED: Partial<Record<ChurnKind, Record<string, unknown>>> = { news: { content: 'Churned.' } };

  async function run(step: ChurnStep): Promise<void> {
    const collection = COLLECTION[step.kind];
    let method: string;
    let path: string;
    let body: Record<string, unknown> | undefined;
    if (step.action === 'create' || alive[step.kind].length === 0) {
      method = 'POST';
      path = `/api/${collection}/`;
      body = { name: name(step.kind), ...REQUIRED[step.kind], ...relations(step) };
    } else {
      const [id] = choose(step.kind, step.picks, 11, 1);
      path = `/api/${collection}/${id}/`;
      if (step.action === 'delete') method = 'DELETE';
      else {
        method = 'PATCH';
        body = step.action === 'rename' ? { name: name(step.kind) } : relations(step);
        // A kind without relations changes a plain field.
        if (Object.keys(body).length === 0) body = step.kind === 'character' || step.kind === 'person' ? { about: `v${step.picks[0]}` } : { name: name(step.kind) };
      }
    }
    let res: Sent;
    // A client retries a 503 after its Retry-After (the write lost its races, or the table was busy).
    for (let attempt = 0; ; attempt++) {
      res = await send(opts.server, method, path, { body, headers: opts.auth });
      if (res.status !== 503 || attempt >= 3) break;
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
    }
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    const outcome: ChurnOutcome = { step, method, path, status: res.status, at: Date.now(), ...(res.status < 300 ? { body: res.body } : {}) };
    outcome.unexpected = unexpected(method, res);
    if (res.status === 201) {
      alive[step.kind].push(res.body.id);
      if (step.kind === 'producer') producerType.set(res.body.id, res.body.type);
    } else if (res.status === 204 || res.status === 404) {
      const id = path.split('/')[3]!;
      alive[step.kind] = alive[step.kind].filter((x) => x !== id);
    } else if (res.status === 200 && step.kind === 'producer') producerType.set(res.body.id, res.body.type);
    outcomes.push(outcome);
    opts.onOutcome?.(outcome);
  }

  const queue = [...opts.program];
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      for (let step = queue.shift(); step; step = queue.shift()) await run(step);
    }),
  );
  return { outcomes, alive, statuses };
}

/**
 * What a step may answer when other writers race it: its success; 404 when the record it changes
 * was deleted meanwhile; 400 only for references (an id deleted between the step's choice and its
 * write, or a producer whose type changed) — never for the body's own fields; 409 only for a
 * producer's type while it is credited in that role (API.md §3.7).
 */
function unexpected(method: string, res: Sent): string | undefined {
  const ok = { POST: 201, PATCH: 200, DELETE: 204 }[method];
  if (res.status === ok) return undefined;
  if (res.status === 404 && method !== 'POST') return undefined;
  if (res.status === 409 && res.path.startsWith('/api/producers/') && Object.keys(res.body?.errors ?? {}).join() === 'type') return undefined;
  if (res.status === 400 && res.body?.type === 'urn:problem:validation-error') {
    const fields = Object.keys(res.body.errors ?? {});
    const reference = /^(genre_ids|theme_ids|studio_ids|producer_ids|licensor_ids|demographic_ids|magazine_ids|anime_ids|manga_ids)\.\d+$|^(characters|staff|authors)\.\d+\.(character_id|person_id)$|^characters\.\d+\.voice_actors\.\d+\.person_id$|^type$/;
    if (fields.length > 0 && fields.every((f) => reference.test(f))) return undefined;
  }
  return `${method} ${res.path} → ${res.status} ${res.text.slice(0, 400)}`;
}
