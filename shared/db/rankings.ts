/**
 * What the rankings job (API.md §5.1 "job" numbers, §5.5) keeps besides the numbers in the
 * records themselves (docs/data-model.md "Rankings"):
 *
 *   lease      pk = RANKINGS     sk = LEASE                 { owner, until }        one run at a time (until: epoch ms)
 *   state      pk = RANKINGS     sk = STATE                 { refreshed_at, unpublished? }  put last by a run that completed
 *   top entry  pk = TOP#<list>   sk = <the list's order>    { id, f }               a top list as the last run made it
 *   positions  pk = ANIME#<id> / MANGA#<id>   sk = R        { st_rank, st_popularity }  beside the counters (titles.ts)
 *
 * A top list's sort key is its order of API.md §4.20 / §4.2 written with the run's values (counts
 * as fixed-width descending parts, `rank` as its order key — titles.ts rankOrder —, names as the
 * text orderings compare them), never the positions themselves: an entry moves only when its own
 * record's values change, not when others pass it. `f` holds the values of the list's filters at
 * the run (`media_type`, `status`; a person's `category`), which a page's filter expression reads.
 *
 * `unpublished` is set on the state item before a run writes its first record: the records may
 * then hold numbers their indexes do not have yet (the run publishes them through the compactor's
 * patch after its record writes, docs/decisions.md O13). The run's completion puts the state item
 * without it; a run that finds it set does not trust the indexes' numbers of characters and
 * persons, and reads their records (markUnpublished, readState).
 */
import type { Cursor } from './sort-keys.js';
import { queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { send, tableName } from './client.js';
import { queryIndexPage, type IndexFilter } from './index-query.js';
import { grant, grants, type KeyGrants, type KeyPattern } from './key-patterns.js';
import { recordKeyOfKind } from './records.js';
import { textPart } from './sort-keys.js';
import { descendingCount, statAttribute } from './titles.js';

export type TitleKind = 'ANIME' | 'MANGA';
/** The lists the job keeps: per title kind by `rank`, by `popularity` and by `favorites`; characters by `favorites` and by `members`; persons by `favorites`. */
export type TopList = `${TitleKind}#${'rank' | 'popularity' | 'favorite'}` | 'CHARACTER#favorite' | 'CHARACTER#members' | 'PERSON#favorite';
export const TOP_LISTS: readonly TopList[] = ['ANIME#rank', 'ANIME#popularity', 'ANIME#favorite', 'MANGA#rank', 'MANGA#popularity', 'MANGA#favorite', 'CHARACTER#favorite', 'CHARACTER#members', 'PERSON#favorite'];

const RANKINGS_PK = 'RANKINGS';
const leaseKey: ItemKey = { pk: RANKINGS_PK, sk: 'LEASE' };
/** The item holding `refreshed_at` (read with a top list's page). */
export const rankingsStateKey: ItemKey = { pk: RANKINGS_PK, sk: 'STATE' };
const topPk = (list: TopList) => `TOP#${list}`;

const TOP_KEYS: KeyPattern = topPk('*' as TopList);

/**
 * What the job does to its own items: its lease (taken with a conditional UpdateItem, released
 * with a DeleteItem), its state (read, marked with an UpdateItem, put with the release in one
 * transaction) and the top lists (read whole, then their changes written in batches).
 */
export const RANKINGS_JOB_KEYS: KeyGrants = grants(grant(RANKINGS_PK, 'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'), grant(TOP_KEYS, 'Query', 'BatchWriteItem'));
/** What a top list's reader does: `refreshed_at` read with the page's records (BatchGetItem), the list's entries (Query). */
export const TOP_READS: KeyGrants = grants(grant(RANKINGS_PK, 'BatchGetItem'), grant(TOP_KEYS, 'Query'));

/** `refreshed_at` of the state item as read (`null`: no run has completed). */
export const refreshedAtOf = (item: Item | null | undefined): string | null => (typeof item?.refreshed_at === 'string' ? item.refreshed_at : null);

// ---- Entries and their order keys

/** One record's entry in a top list. */
export interface TopEntry {
  sk: string;
  id: string;
  /** The list's filter values at the run. */
  f: Record<string, string>;
}

/** A title's place in its kind's lists (`rank`, `popularity`: the run's order keys, titles.ts). */
export interface TitleTopValues {
  id: string;
  name: string;
  rank: string | null;
  popularity: string | null;
  favorites: number;
  f: { media_type: string; status: string };
}

/** The entries of a title: by rank (ranked), by popularity (with members), by favourites (at least one). */
export function titleEntries(kind: TitleKind, t: TitleTopValues): [TopList, TopEntry][] {
  const out: [TopList, TopEntry][] = [];
  const entry = (sk: string): TopEntry => ({ sk, id: t.id, f: t.f });
  // The rank and popularity order keys end with the id (titles.ts rankOrder): unique as they are.
  if (t.rank !== null) out.push([`${kind}#rank`, entry(t.rank)]);
  if (t.popularity !== null) out.push([`${kind}#popularity`, entry(t.popularity)]);
  if (t.favorites >= 1) {
    // §4.20: favorites desc, then rank asc (nulls last: "2" after every "1…"), then name (then id).
    const prefix = `${descendingCount(t.favorites)}${t.rank === null ? '2' : `1${t.rank}`}`;
    out.push([`${kind}#favorite`, entry(`${prefix}${textPart(t.name, prefix.length)}${t.id}`)]);
  }
  return out;
}

/** A character's entries: §4.20 by favorites, members, name; §4.2 `members/` by members, favorites, name. */
export function characterEntries(c: { id: string; name: string; favorites: number; members: number }): [TopList, TopEntry][] {
  const out: [TopList, TopEntry][] = [];
  const fav = descendingCount(c.favorites);
  const members = descendingCount(c.members);
  if (c.favorites >= 1) out.push(['CHARACTER#favorite', { sk: `${fav}${members}${textPart(c.name, 30)}${c.id}`, id: c.id, f: {} }]);
  if (c.members >= 1) out.push(['CHARACTER#members', { sk: `${members}${fav}${textPart(c.name, 30)}${c.id}`, id: c.id, f: {} }]);
  return out;
}

/** A person's entry: §4.20 `artists/` by favorites, then name; filtered by `category`. */
export function personEntries(p: { id: string; name: string; favorites: number; category: string }): [TopList, TopEntry][] {
  if (p.favorites < 1) return [];
  return [['PERSON#favorite', { sk: `${descendingCount(p.favorites)}${textPart(p.name, 15)}${p.id}`, id: p.id, f: { category: p.category } }]];
}

// ---- The job's reads and writes

/** Every entry of a list (one Query per MB; an entry is ~100 B plus its name). */
export async function readTopList(list: TopList): Promise<TopEntry[]> {
  return (await queryAll(topPk(list))).map((i) => ({ sk: String(i.sk), id: String(i.id), f: (i.f ?? {}) as Record<string, string> }));
}

/**
 * Makes a list hold exactly `desired` (read as `existing`): puts the entries that are new or
 * whose filter values changed, deletes those no longer desired (BatchWriteItem, idempotent).
 * Returns the number of items written.
 */
export async function replaceTopList(list: TopList, existing: readonly TopEntry[], desired: readonly TopEntry[]): Promise<number> {
  const pk = topPk(list);
  const had = new Map(existing.map((e) => [e.sk, e]));
  const want = new Map(desired.map((e) => [e.sk, e]));
  const puts: Item[] = [];
  const deletes: ItemKey[] = [];
  for (const [sk, e] of want) {
    const old = had.get(sk);
    if (!old || old.id !== e.id || JSON.stringify(old.f) !== JSON.stringify(e.f)) puts.push({ pk, sk, id: e.id, f: e.f });
  }
  for (const sk of had.keys()) if (!want.has(sk)) deletes.push({ pk, sk });
  await writeItems(puts, deletes);
  return puts.length + deletes.length;
}

/**
 * Sets a title's positions (absent: `null`) beside its counters, without its revision (like a
 * list edit's counters: catalogue writes never conflict with it). False when the title is gone.
 */
export async function setPositions(kind: TitleKind, id: string, rank: number | null, popularity: number | null): Promise<boolean> {
  const sets: string[] = [];
  const removes: string[] = [];
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = { '#pk': 'pk' };
  Object.entries({ rank, popularity }).forEach(([name, value], i) => {
    names[`#p${i}`] = statAttribute(name);
    if (value === null) removes.push(`#p${i}`);
    else {
      values[`:p${i}`] = value;
      sets.push(`#p${i} = :p${i}`);
    }
  });
  const expression = [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : ''].filter(Boolean).join(' ');
  for (let attempt = 0; ; attempt++) {
    try {
      await send((c) =>
        new c.UpdateCommand({
          TableName: tableName(),
          Key: recordKeyOfKind(kind, id),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: names,
          ...(sets.length ? { ExpressionAttributeValues: values } : {}),
        }),
      );
      return true;
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'ConditionalCheckFailedException') return false;
      // A list edit's transaction on the same item at this instant: try again shortly.
      if (name !== 'TransactionConflictException' || attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * 2 ** attempt));
    }
  }
}

/** The job's state as the last run left it: whether it wrote records whose numbers it did not publish (see above). */
export async function readState(): Promise<{ refreshed_at: string | null; unpublished: boolean }> {
  const out = await send((c) => new c.GetCommand({ TableName: tableName(), Key: rankingsStateKey, ConsistentRead: true }));
  return { refreshed_at: refreshedAtOf(out.Item), unpublished: out.Item?.unpublished === true };
}

/** Marks the state before a run's first record write: its numbers are not published yet (see above). */
export async function markUnpublished(): Promise<void> {
  await send((c) =>
    new c.UpdateCommand({ TableName: tableName(), Key: rankingsStateKey, UpdateExpression: 'SET #u = :t', ExpressionAttributeNames: { '#u': 'unpublished' }, ExpressionAttributeValues: { ':t': true } }),
  );
}

/** Another run holds the lease (or took it over after it expired): this run must not complete. */
export class LeaseLost extends Error {
  constructor() {
    super('rankings: the lease was taken by another run');
    this.name = 'LeaseLost';
  }
}

/** Takes the lease until `until` (epoch ms) unless another run holds one that has not expired. */
export async function takeLease(owner: string, now: number, until: number): Promise<boolean> {
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: leaseKey,
        UpdateExpression: 'SET #owner = :owner, #until = :until',
        ConditionExpression: 'attribute_not_exists(#until) OR #until < :now',
        ExpressionAttributeNames: { '#owner': 'owner', '#until': 'until' },
        ExpressionAttributeValues: { ':owner': owner, ':until': until, ':now': now },
      }),
    );
    return true;
  } catch (err) {
    if ((err as Error).name === 'ConditionalCheckFailedException') return false;
    throw err;
  }
}

/** Completes a run: `refreshed_at` put and the lease released in one transaction, on the condition that the run still holds it. */
export async function completeRun(owner: string, refreshedAt: string): Promise<void> {
  try {
    await send((c) =>
      new c.TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: tableName(), Item: { ...rankingsStateKey, refreshed_at: refreshedAt } } },
          {
            Delete: {
              TableName: tableName(),
              Key: leaseKey,
              ConditionExpression: '#owner = :owner',
              ExpressionAttributeNames: { '#owner': 'owner' },
              ExpressionAttributeValues: { ':owner': owner },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if ((err as Error).name === 'TransactionCanceledException') throw new LeaseLost();
    throw err;
  }
}

/** Releases the lease after a failed run (when it still holds it), so the next run need not wait for its expiry. */
export async function releaseLease(owner: string): Promise<void> {
  try {
    await send((c) =>
      new c.DeleteCommand({
        TableName: tableName(),
        Key: leaseKey,
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  } catch (err) {
    if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
  }
}

// ---- Reading a top list

/**
 * One page of a top list in its order, with the filters given as equalities on the entries'
 * run values (a filter expression: up to 4 Queries fill a page, index-query.ts; a page may come
 * back short with `next`, like the top reviews).
 */
export async function topListPage(list: TopList, q: { equals: Record<string, string>; limit: number; cursor: Cursor | null }) {
  const entries = Object.entries(q.equals);
  const filter: IndexFilter | undefined = entries.length
    ? {
        expression: entries.map((_, i) => `#f.#k${i} = :v${i}`).join(' AND '),
        names: { '#f': 'f', ...Object.fromEntries(entries.map(([k], i) => [`#k${i}`, k])) },
        values: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
      }
    : undefined;
  return queryIndexPage({ pk: topPk(list), forward: true, limit: q.limit, cursor: q.cursor, filter, maxReads: 4 }, (i) => String(i.id));
}
