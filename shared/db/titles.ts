/**
 * Storage of the catalogue's large records — animes, characters and persons now, mangas next —
 * whose writes may carry relations (docs/data-model.md "Catalogue titles"):
 *
 *   record         pk = K#<id>                 sk = R         { rec, rev, sw, kind, st_* } (records.ts)
 *   name claim     pk = K#U#name#<key>         sk = U         { id }                 (records.ts)
 *   counter        pk = K#N                    sk = N         { n }                  (records.ts)
 *   chunk          pk = K#<id>                 sk = C#<relation>#<n>  { entries }   written arrays (cast, staff, videos, pictures)
 *   journal        pk = K#<id>                 sk = J#<rev>#<n>       { ops }       staged.ts
 *   index delta    pk = K#IX                   sk = D#<n>     { id, v }              index-deltas.ts (the in-memory index)
 *
 * A record and its chunks share a partition, so an update reads everything it replaces with
 * one Query. Chunks hold the arrays a write sets in position order, cut at CHUNK_BYTES so that
 * the contract's maxima (500 characters with 20 voice actors each, 300 staff, …) fit DynamoDB's
 * 400 KB items. Counts of linked taxonomy records (`anime_count`, …) change in the write's own
 * transaction (exact immediately, §3.7); see titleWrite.
 *
 * Titles that users list (animes, mangas) keep the exact counters of their list items in the
 * record item's `st_*` attributes (docs/data-model.md "Title counters"): list edits `ADD` to them
 * in their own transactions without raising `rev`, so a title's replacement updates its record
 * item and never puts it whole; `withStats` derives `members`, `scored_by`, `score` and
 * `favorites` of a representation from them, and `rank` and `popularity` from the positions the
 * rankings job writes beside them (`st_rank`, `st_popularity`: shared/db/rankings.ts).
 */
import { queryAll, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { vectorOf, type IndexDef, type RangeNumber, type VectorFields } from './catalogue-index.js';
import { deltaPlan } from './index-deltas.js';
import { changePlan, feedKindOf } from './feed.js';
import { canonicalJson } from '../json.js';
import { createPlan, del, deletePlan, joinPlans, put, replacePlan, type BaseRecord, type EntityDef, type Meaning, type Ordering, type Stored, type WritePlan } from './records.js';
import { newId } from '../ids.js';
import { slotCreatePlan, slotDeletePlan, type SlotState } from './slots.js';
import { journalOf, type JournalEntry } from './staged.js';

/** Bytes of entries per chunk item (DynamoDB's item limit is 400 KB). */
const CHUNK_BYTES = 300_000;

export interface TitleDef<R extends BaseRecord> {
  entity: EntityDef<R>;
  index: IndexDef<R>;
  /** The arrays stored in chunks, by relation name. */
  relations: readonly string[];
  /** Titles users list: the list statuses their `stats` count (API.md §3.11). */
  listStatuses?: readonly string[];
  /** Records drawn by the random picks (§4.13): they hold dense slots (slots.ts). */
  random?: boolean;
}

/** A title's counters: items per list status, per score 1–10 (`s1`…`s10`), and `favorites`. */
export type TitleStats = Record<string, number>;

export const SCORES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
export const scoreKey = (score: number) => `s${score}`;

/** The record item's attribute of a counter (absent: 0; `ADD` creates it). */
export const statAttribute = (key: string) => `st_${key}`;

/** The counters of a record item. */
export function statsOf(item: Record<string, unknown>): TitleStats {
  return Object.fromEntries(Object.entries(item).flatMap(([k, v]) => (k.startsWith('st_') ? [[k.slice(3), Number(v)]] : [])));
}

/** The numbers of API.md §5.1 a title's counters give (score: the mean of the scores, rounded half up to two decimals). */
export function derivedNumbers(statuses: readonly string[], stats: TitleStats) {
  const n = (k: string) => Number(stats[k] ?? 0);
  const members = statuses.reduce((sum, s) => sum + n(s), 0);
  const scoredBy = SCORES.reduce((sum, k) => sum + n(scoreKey(k)), 0);
  const total = SCORES.reduce((sum, k) => sum + k * n(scoreKey(k)), 0);
  // round_half_up(100 × total / scoredBy) in integers: floor((200 × total + scoredBy) / (2 × scoredBy)).
  const score = scoredBy === 0 ? null : Math.floor((200 * total + scoredBy) / (2 * scoredBy)) / 100;
  return { members, scored_by: scoredBy, score, favorites: n('favorites') };
}

/**
 * A title's representation with the numbers its counters give and the positions of the last
 * rankings run (`st_rank`, `st_popularity`: absent, `null`); titles without counters: as stored.
 */
export function withStats<R extends BaseRecord>(def: TitleDef<R>, record: R, stats: TitleStats | undefined): R {
  if (!def.listStatuses) return record;
  const s = stats ?? {};
  return { ...record, ...derivedNumbers(def.listStatuses, s), rank: s.rank ?? null, popularity: s.popularity ?? null };
}

/** The positions the rankings job writes beside the counters (API.md §5.1 `rank`, `popularity`). */
export const POSITIONS = ['rank', 'popularity'] as const;

/** The representation of a stored record item of the title kind. */
export const titleRecordOf = <R extends BaseRecord>(def: TitleDef<R>, item: Record<string, unknown>): R => withStats(def, item.rec as R, statsOf(item));

export type Relations = Record<string, readonly unknown[]>;

export interface StoredTitle<R> extends Stored<R> {
  /** The list counters (titles with `listStatuses`). */
  stats?: TitleStats;
  relations: Relations;
  /** How many chunk items each relation has now. */
  chunkCounts: Record<string, number>;
  journal: JournalEntry[];
  /** The write that made this revision (its journal, staged.ts). */
  write?: string;
  /** Its slot (titles with `random`, slots.ts). */
  slot?: number;
}

const recordPk = (kind: string, id: string) => `${kind}#${id}`;
const chunkSk = (relation: string, n: number) => `C#${relation}#${n}`;

/** Cuts entries into chunks of at most CHUNK_BYTES (JSON size, a close bound of DynamoDB's). */
export function chunk(entries: readonly unknown[]): unknown[][] {
  const out: unknown[][] = [];
  let current: unknown[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = Buffer.byteLength(JSON.stringify(e));
    if (current.length > 0 && bytes + size > CHUNK_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** The whole partition of a title: record, chunks and journal (one Query; more pages at the maxima). */
export async function loadTitle<R extends BaseRecord>(def: TitleDef<R>, id: string): Promise<StoredTitle<R> | null> {
  const items = await queryAll(recordPk(def.entity.kind, id));
  const record = items.find((i) => i.sk === 'R');
  if (!record) return null;
  const relations: Record<string, unknown[]> = Object.fromEntries(def.relations.map((r) => [r, []]));
  const chunkCounts: Record<string, number> = Object.fromEntries(def.relations.map((r) => [r, 0]));
  // Chunk sort keys order 0..9 before 10: sort by number.
  const chunks = items
    .filter((i) => String(i.sk).startsWith('C#'))
    .map((i) => {
      const [, relation, n] = String(i.sk).split('#');
      return { relation: relation!, n: Number(n), entries: i.entries as unknown[] };
    })
    .sort((a, b) => a.n - b.n);
  for (const c of chunks) {
    if (!relations[c.relation]) continue;
    relations[c.relation]!.push(...c.entries);
    chunkCounts[c.relation] = Math.max(chunkCounts[c.relation]!, c.n + 1);
  }
  return {
    record: record.rec as R,
    rev: Number(record.rev),
    ...(record.priv ? { priv: record.priv as Record<string, unknown> } : {}),
    stats: statsOf(record),
    relations,
    chunkCounts,
    journal: journalOf(items),
    ...(record.write ? { write: String(record.write) } : {}),
    ...(record.slot === undefined ? {} : { slot: Number(record.slot) }),
  };
}

/** The entries of one relation of a title, in position order (`null`: no such title). Two calls, in parallel. */
export async function readRelation<R extends BaseRecord>(def: TitleDef<R>, id: string, relation: string): Promise<unknown[] | null> {
  const pk = recordPk(def.entity.kind, id);
  const prefix = `C#${relation}#`;
  const [record, chunks] = await Promise.all([
    send((c) => new c.GetCommand({ TableName: tableName(), Key: { pk, sk: 'R' }, ProjectionExpression: 'pk', ConsistentRead: true })),
    queryAll(pk, prefix),
  ]);
  if (!record.Item) return null;
  return chunks
    .sort((a, b) => Number(String(a.sk).slice(prefix.length)) - Number(String(b.sk).slice(prefix.length)))
    .flatMap((i) => i.entries as unknown[]);
}

/** A change to the count of a linked record (a taxonomy's `anime_count`, a producer's credits). */
export interface LinkCount {
  key: ItemKey;
  /** Number attributes to add to (`rec.anime_count`, `priv.studio_credits`, …) and by how much. */
  add: Record<string, number>;
  /** Conditions on the linked record beyond its existence (e.g. a producer's type), as `path = value`. */
  require?: Record<string, string>;
  /** What a failed condition means (the linked record is gone or changed). */
  meaning: Meaning;
}

function linkUpdate(link: LinkCount): object {
  const names: Record<string, string> = { '#pk': 'pk', '#rev': 'rev' };
  const values: Record<string, unknown> = { ':one': 1 };
  const path = (p: string, prefix: string) =>
    p
      .split('.')
      .map((part, i) => {
        names[`#${prefix}${i}`] = part;
        return `#${prefix}${i}`;
      })
      .join('.');
  const sets = Object.entries(link.add).map(([attr, d], i) => {
    const p = path(attr, `a${i}_`);
    values[`:d${i}`] = d;
    values[':zero'] = 0;
    return `${p} = if_not_exists(${p}, :zero) + :d${i}`;
  });
  const conditions = ['attribute_exists(#pk)'];
  Object.entries(link.require ?? {}).forEach(([attr, v], i) => {
    values[`:q${i}`] = v;
    conditions.push(`${path(attr, `q${i}_`)} = :q${i}`);
  });
  return {
    Update: {
      TableName: tableName(),
      Key: link.key,
      UpdateExpression: `SET ${sets.join(', ')}, #rev = #rev + :one`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** What writing a title needs besides its stored state: the new record, relations and link counts. */
export interface TitleChange<R> {
  after: R | null;
  relations: Relations;
  links: LinkCount[];
  /** For a creation or deletion of a title with `random`: the slots as read (slots.ts). */
  slots?: SlotState;
  /** The record's private attributes after the change (absent: those it had, none for a creation). */
  priv?: Record<string, unknown>;
  /**
   * The kind's index head as read (index-deltas.ts readHead): when the record's vector changes,
   * its delta goes in the main plan at the next number. Absent: no delta (bulk loads, which
   * publish a snapshot instead).
   */
  deltaHead?: number;
  /** The write makes a change-feed entry (feed.ts): its change is `feed`, committed with the main plan (staged.ts). */
  fed?: boolean;
}

/** Whether a write from `before` to `after` changes what the kind's index holds of the record. */
export function changesIndex<R extends BaseRecord>(def: TitleDef<R>, before: R | null, after: R | null): boolean {
  if (!before || !after) return before !== after;
  return canonicalJson(vectorOf(def.index, before)) !== canonicalJson(vectorOf(def.index, after));
}

/**
 * The plans of a title write: `main` (record, claim, counter, chunks that change, gained link
 * counts, its index delta — everything whose conditions must hold together) and `rest` (the
 * counts of the links it drops and chunk deletions, unconditional). `before` is the stored title (null: a creation); `after` null: a deletion.
 */
export function titleWrite<R extends BaseRecord>(
  def: TitleDef<R>,
  before: StoredTitle<R> | null,
  change: TitleChange<R>,
): { main: WritePlan; rest: WritePlan; feed?: WritePlan; rev: number; pk: string; write: string } {
  const { entity } = def;
  const { after } = change;
  const id = (after ?? before?.record)!.id;
  const pk = recordPk(entity.kind, id);
  const write = newId();
  const { slots } = change;
  const priv = change.priv ?? before?.priv;
  // Every write of the API passes the slots (title-writes.ts); a creation without them (tests'
  // direct writes) takes none, but a slotted record's deletion must free its slot.
  if (before?.slot !== undefined && !after && !slots) throw new Error(`${entity.kind}: deleting a slotted record needs the slots (slots.ts)`);
  const slotted = def.random === true && slots !== undefined;
  // A replacement updates the record item (its counters change apart, in list edits; its slot with other records' deletions).
  // Claims given up that may follow the record (its external ids: UniqueField.releaseLater) go with the rest.
  const restItems: object[] = [];
  const recordPlan = !before
    ? createPlan(entity, after!, priv, { write, ...(slotted ? { slot: slots.n + 1 } : {}) }, !slotted)
    : after
      ? replacePlan(entity, before, after, priv, { write }, { update: true, released: restItems })
      : deletePlan(entity, before, !slotted);
  const mainEntries: WritePlan[] = [recordPlan];
  if (slotted && !before) mainEntries.push(slotCreatePlan(entity.kind, id, slots));
  if (slotted && !after && slots.slot !== undefined) mainEntries.push(slotDeletePlan(entity.kind, id, slots));
  for (const relation of def.relations) {
    const now = after ? chunk(change.relations[relation] ?? []) : [];
    const old = before ? chunk(before.relations[relation] ?? []) : [];
    const oldCount = before?.chunkCounts[relation] ?? 0;
    now.forEach((entries, n) => {
      if (JSON.stringify(entries) !== JSON.stringify(old[n])) mainEntries.push({ items: [put({ pk, sk: chunkSk(relation, n), entries })], meanings: [null] });
    });
    // A deleted title's chunks go with its record (its sub-resources are 404 at once).
    for (let n = now.length; n < Math.max(oldCount, old.length); n++) {
      const gone = del({ pk, sk: chunkSk(relation, n) });
      if (after) restItems.push(gone);
      else mainEntries.push({ items: [gone], meanings: [null] });
    }
  }
  // Gained links must hold with the record (their records must exist); lost ones may follow it
  // (a gone record is skipped), which keeps the main plan within one transaction at the maxima.
  const restMeanings: Meaning[] = restItems.map(() => null);
  for (const link of change.links) {
    if (Object.values(link.add).some((d) => d > 0)) mainEntries.push({ items: [linkUpdate(link)], meanings: [link.meaning] });
    else {
      restItems.push(linkUpdate(link));
      restMeanings.push(link.meaning);
    }
  }
  if (change.deltaHead !== undefined && changesIndex(def, before?.record ?? null, after)) {
    mainEntries.push(deltaPlan(entity.kind, change.deltaHead, id, after ? vectorOf(def.index, after) : null));
  }
  const fed = change.fed ? feedKindOf(entity.kind) : null;
  const feed = fed ? changePlan({ kind: fed, id, change: !before ? 'created' : after ? 'updated' : 'deleted' }) : undefined;
  return { main: joinPlans(...mainEntries), rest: { items: restItems, meanings: restMeanings }, ...(feed ? { feed } : {}), rev: before ? before.rev + 1 : 1, pk, write };
}

/** What animes and mangas both derive (API.md §5.1): their lists order by these too. */
export interface RankedTitle extends BaseRecord {
  name: string;
  score: number | null;
  scored_by: number;
  members: number;
  favorites: number;
  rank: number | null;
  popularity: number | null;
}

/** The ranking minimum (API.md §5.1, §7.1): a title with fewer scores has no `rank`. */
export const RANKING_MINIMUM = 3;

const MAX_COUNT = 10 ** 15 - 1;
const fixed = (n: number, width: number) => String(n).padStart(width, '0');
/** A count as a fixed-width key part that sorts descending. */
export const descendingCount = (n: number) => fixed(MAX_COUNT - n, 15);

/**
 * The order of `rank` (§5.1) as a fixed-width key: `score` desc, `scored_by` desc, `created_at`
 * asc, then the id; `null` for a title below the ranking minimum. The id is part of the key so
 * that the key is unique, like the position it orders: `ordering=-rank` is then the positions'
 * exact reverse (with the id only as the index's tie-break, two titles with equal numbers would
 * come id-ascending in both directions).
 */
export function rankOrder(t: Pick<RankedTitle, 'id' | 'score' | 'scored_by' | 'created_at'>): string | null {
  if (t.score === null || t.scored_by < RANKING_MINIMUM) return null;
  return `${fixed(1000 - Math.round(t.score * 100), 4)}${descendingCount(t.scored_by)}${t.created_at}${t.id}`;
}

/** The order of `popularity` (§5.1): `members` desc, `created_at` asc, then the id (see rankOrder); `null` without members. */
export function popularityOrder(t: Pick<RankedTitle, 'id' | 'members' | 'created_at'>): string | null {
  return t.members < 1 ? null : `${descendingCount(t.members)}${t.created_at}${t.id}`;
}

/**
 * The orderings of `GET /api/animes/` and `GET /api/mangas/` (§4.1.1, §4.7) around their date
 * (`aired_from`, `published_from`), in the lists' order of keys.
 */
export function rankedOrderings<R extends RankedTitle>(date: { key: string; value: (r: R) => string | null }): Record<string, Ordering<R>> {
  return {
    name: { value: (r) => r.name, type: 'text' },
    [date.key]: { value: date.value, type: 'plain' },
    // Scores have at most two decimals: ordered as hundredths.
    score: { value: (r) => (r.score === null ? null : Math.round(r.score * 100)), type: 'count' },
    members: { value: (r) => r.members, type: 'count' },
    favorites: { value: (r) => r.favorites, type: 'count' },
    // The orders the last rankings run gave its positions by (rankOrder, popularityOrder), from
    // the numbers it wrote into the record: the same order as the positions, which a shift
    // never changes (docs/decisions.md K2).
    rank: { value: (r) => rankOrder(r), type: 'plain' },
    popularity: { value: (r) => popularityOrder(r), type: 'plain' },
    created_at: { value: (r) => r.created_at, type: 'plain' },
    updated_at: { value: (r) => r.updated_at, type: 'plain' },
  };
}

/**
 * What the rankings job's numbers (`score`, `scored_by`, `members`, `favorites`) give of an
 * anime's or manga's vector (rankedOrderings, scoreNumber): the orderings by them and by the
 * orders built from them (`rank`, `popularity`), and `min_score`'s number. The job publishes these
 * through the compactor's patch (IndexDef.ranked; docs/decisions.md O13).
 */
export const RANKED_FIELDS: VectorFields = { o: ['score', 'members', 'favorites', 'rank', 'popularity'], x: ['score'] };

/**
 * `min_score` of both lists: a score at least `least` is a key range of the `score` ordering
 * (ordered as hundredths; rounding keeps that order, so the range holds every match and the
 * filter drops the rest), counted in buckets of one point, 0 to 10.
 */
export function scoreNumber<R extends RankedTitle>(): RangeNumber<R> {
  return { value: (r) => r.score };
}

/** The key patterns of a title entity's own items: records, claims, counter, chunks, journal, index. */
export const titleKeys = <R extends BaseRecord>(def: TitleDef<R>): string => `${def.entity.kind}#*`;
