/**
 * The bulk loader of the community benchmark: writes a generated community (community-data.ts)
 * — accounts, list items, reviews and helpful votes — over a catalogue already in the table,
 * leaving the items the API's write paths leave, at thousands of items per second.
 *
 * The writes are the API's own plans, in the order the API would make them (`communityWrites`):
 *  - an account: `newAccount` (active) → createUserPlan and createProfilePlan, as the bench's
 *    users and social sign-in create them;
 *  - a list item: the create operation's body schema and record (shared/http/playlists.ts) and
 *    `itemPlan` (the item, its vector, its claim, the title's listed posting, the list's counts,
 *    the title's `st_*` counters);
 *  - a review: the create body schema, the record as the create operation builds it and
 *    `reviewPlan`; then each helpful vote: `reviewPlan` with the vote.
 * The loader does not send those transactions. Puts are written as they are (unconditional puts,
 * 100 per TransactWriteItems,
 * several calls in flight); every Update — the counters the API keeps by increments: list
 * counts and the list item they create, the title's `st_*`, review counts, entity counters — is
 * evaluated in memory (`SET x = if_not_exists(x, v)`, `SET x = v`, `ADD x n`) and its final item
 * written once at the end (a title's record item read and put back with its counters). A review
 * is created with its final helpful count (its item, vectors and top entry as the last vote
 * leaves them) and each vote adds its two items. Condition checks hold by construction (the
 * titles are there). test/integration/community-load.test.ts proves the items identical to
 * those the same writes committed one by one leave.
 */
import { createHash } from 'node:crypto';
import { BulkWriter, getItems, type Item } from '../../shared/db/batch.js';
import { itemPlan } from '../../shared/db/playlists.js';
import { createProfilePlan } from '../../shared/db/profiles.js';
import { recordKeyOfKind, type WritePlan } from '../../shared/db/records.js';
import { reviewPlan, type StoredReview } from '../../shared/db/reviews.js';
import { createUserPlan } from '../../shared/db/users.js';
import { newAccount } from '../../shared/domain/accounts.js';
import { ANIME_LIST, blankList, itemBodies, itemErrors, MANGA_LIST, type ItemRecord, type PlaylistKind } from '../../shared/domain/playlists.js';
import { ANIME_REVIEWS, MANGA_REVIEWS, reviewBodies, type ReviewKindDef, type ReviewRecord } from '../../shared/domain/reviews.js';
import { checkBody } from '../../shared/http/accounts.js';
import { ID_LENGTH } from '../../shared/ids.js';
import type { Community, TitleKind } from './community-data.js';

export const LISTS: Record<TitleKind, PlaylistKind> = { anime: ANIME_LIST, manga: MANGA_LIST };
export const REVIEWS: Record<TitleKind, ReviewKindDef> = { anime: ANIME_REVIEWS, manga: MANGA_REVIEWS };

/** Deterministic ids of the community's records (the shape of shared/ids.ts), so a kept store can be used without a record of them. */
export function communityIds(seed: number) {
  const id = (...parts: (string | number)[]) => createHash('sha256').update(`${seed}/community/${parts.join('/')}`).digest('base64url').slice(0, ID_LENGTH);
  return {
    user: (u: number) => id('user', u),
    profile: (u: number) => id('profile', u),
    list: (u: number, kind: TitleKind) => id('list', kind, u),
    item: (u: number, k: number) => id('item', u, k),
    review: (j: number) => id('review', j),
  };
}
export type CommunityIds = ReturnType<typeof communityIds>;

/** What the writes need of a title: its id and its stored record (name, episodes, chapters, volumes). */
export type TitleLookup = (kind: TitleKind, index: number) => { id: string; rec: Record<string, unknown> };

export type CommunityWrite =
  | { what: 'plan'; label: string; plan: WritePlan }
  /** A review's creation (helpful 0), then its votes in order (each a PATCH `{helpful: true}` by `voter`). */
  | { what: 'review'; kind: ReviewKindDef; stored: StoredReview; votes: { voter: string; at: string }[] };

export interface WritesOptions {
  comm: Community;
  titles: TitleLookup;
  /** The accounts' password hash (one for all: hashing 100,000 passwords is not what is measured). */
  passwordHash: string | null;
  ids?: CommunityIds;
}

/** The community's writes in the order the API would make them: accounts, then each user's items, then reviews and their votes. */
export function* communityWrites(o: WritesOptions): Generator<CommunityWrite> {
  const { comm, titles } = o;
  const ids = o.ids ?? communityIds(comm.seed);
  for (let u = 0; u < comm.sizes.users; u++) {
    const g = comm.user(u);
    const { user, priv, profile } = newAccount({ id: ids.user(u), email: g.email, username: g.username, passwordHash: o.passwordHash, active: true }, g.created_at);
    yield { what: 'plan', label: `account ${u}`, plan: createUserPlan(user, priv) };
    yield { what: 'plan', label: `profile ${u}`, plan: createProfilePlan({ ...profile, id: ids.profile(u) }) };
  }
  for (let u = 0; u < comm.sizes.users; u++) {
    for (const [k, gen] of comm.items(u).entries()) {
      const kind = LISTS[gen.kind];
      const title = titles(gen.kind, gen.title);
      // As createItemOperation: the body with its defaults, the title's name, the stamps.
      const { errors, value } = checkBody(itemBodies(kind).create, { [kind.idField]: title.id, ...gen.body });
      if (!value) throw new Error(`item ${u}/${k}: the body is refused: ${JSON.stringify(errors)}`);
      const item = { id: ids.item(u, k), ...(value as Record<string, unknown>), title_name: title.rec.name, created_at: gen.created_at, updated_at: gen.created_at } as ItemRecord;
      const more = itemErrors(kind, item, value as Record<string, unknown>, title.rec);
      if (Object.keys(more).length > 0) throw new Error(`item ${u}/${k}: ${JSON.stringify(more)}`);
      const plan = itemPlan({ kind, userId: ids.user(u), before: null, after: item, blank: blankList(ids.list(u, gen.kind), gen.created_at), titleGone: null });
      yield { what: 'plan', label: `item ${u}/${k}`, plan };
    }
  }
  for (let j = 0; j < comm.sizes.reviews; j++) {
    const g = comm.review(j);
    const kind = REVIEWS[g.kind];
    const { errors, value } = checkBody(reviewBodies.create, g.body);
    if (!value) throw new Error(`review ${j}: the body is refused: ${JSON.stringify(errors)}`);
    const record: ReviewRecord = { id: ids.review(j), kind: kind.kind, title_id: titles(g.kind, g.title).id, user_id: ids.user(g.user), ...(value as Pick<ReviewRecord, 'rating' | 'comment' | 'is_spoiler' | 'tags'>), created_at: g.created_at, updated_at: g.created_at };
    yield { what: 'review', kind, stored: { record, rev: 1, helpful: 0 }, votes: g.voters.map((v) => ({ voter: ids.user(v.user), at: v.at })) };
  }
}

// ---- Updates evaluated in memory

const keyOf = (k: { pk?: unknown; sk?: unknown }) => `${String(k.pk)}\u0000${String(k.sk)}`;

/**
 * Applies an UpdateItem of a plan to `item` (in place) as DynamoDB would: `SET a = if_not_exists(a, :v)`,
 * `SET a = :v` and `ADD a :n` clauses; anything else is refused (the loader would not know it).
 */
export function applyUpdate(item: Item, update: { UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }): void {
  const name = (n: string) => (n.startsWith('#') ? update.ExpressionAttributeNames![n]! : n);
  const value = (v: string) => {
    if (!(v in (update.ExpressionAttributeValues ?? {}))) throw new Error(`no value ${v}`);
    return update.ExpressionAttributeValues![v];
  };
  const rest = update.UpdateExpression.replace(/\b(SET|ADD)\s+((?:(?!\b(?:SET|ADD|REMOVE|DELETE)\b).)+)/g, (_all, verb: string, body: string) => {
    if (verb === 'SET') {
      const leftover = body.replace(/([#\w]+)\s*=\s*(?:if_not_exists\(\s*([#\w]+)\s*,\s*(:\w+)\s*\)|(:\w+))\s*,?/g, (_m, target: string, same: string | undefined, dflt: string | undefined, plain: string | undefined) => {
        if (same !== undefined) {
          if (name(same) !== name(target)) throw new Error(`if_not_exists of another attribute in ${update.UpdateExpression}`);
          if (item[name(target)] === undefined) item[name(target)] = structuredClone(value(dflt!));
        } else item[name(target)] = structuredClone(value(plain!));
        return '';
      });
      if (leftover.trim() !== '') throw new Error(`unsupported SET: ${body}`);
    } else {
      const leftover = body.replace(/([#\w]+)\s+(:\w+)\s*,?/g, (_m, target: string, v: string) => {
        item[name(target)] = Number(item[name(target)] ?? 0) + Number(value(v));
        return '';
      });
      if (leftover.trim() !== '') throw new Error(`unsupported ADD: ${body}`);
    }
    return '';
  });
  if (rest.trim() !== '') throw new Error(`unsupported update expression: ${update.UpdateExpression}`);
}

export interface CommunityLoadReport {
  users: number;
  items: number;
  reviews: number;
  votes: number;
  /** Items written: puts as they come, then the aggregates (items the Updates made), then the titles' record items with their counters. */
  written: { puts: number; aggregates: number; titles: number; total: number };
  seconds: number;
  itemsPerSecond: number;
}

export interface CommunityLoadOptions extends WritesOptions {
  /** Write calls (TransactWriteItems of up to 100 puts) in flight (default 8). */
  inFlight?: number;
  onProgress?: (line: string) => void;
}

type Op = { Put?: { Item: Item }; Update?: { Key: Item; UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }; Delete?: unknown; ConditionCheck?: unknown };

/** Writes the community (see the module comment) into the table of TABLE_NAME, whose catalogue is loaded. */
export async function loadCommunity(o: CommunityLoadOptions): Promise<CommunityLoadReport> {
  const started = Date.now();
  // 100 puts per TransactWriteItems: one SQLite transaction each, twice BatchWriteItem's rate when
  // DynamoDB Local keeps its files on a disk (a MyAnimeList-scale store does not fit in memory; decision I7).
  const writer = new BulkWriter(o.inFlight ?? 8, { transact: true });
  const updated = new Map<string, Item>();
  let items = 0;
  let reviews = 0;
  let votes = 0;
  let lastReport = Date.now();

  const apply = async (plan: WritePlan, label: string) => {
    for (const op of plan.items as Op[]) {
      if (op.Put) {
        const k = keyOf(op.Put.Item);
        if (updated.has(k)) throw new Error(`${label}: puts ${k}, which an earlier write updated`);
        await writer.put(op.Put.Item);
      } else if (op.Update) {
        const k = keyOf(op.Update.Key);
        let item = updated.get(k);
        if (!item) updated.set(k, (item = { pk: op.Update.Key.pk, sk: op.Update.Key.sk }));
        applyUpdate(item, op.Update);
      } else if (op.ConditionCheck) continue;
      else throw new Error(`${label}: a creation's plan holds ${Object.keys(op).join()}`);
    }
  };

  for (const w of communityWrites(o)) {
    if (w.what === 'plan') {
      if (w.label.startsWith('item')) items++;
      await apply(w.plan, w.label);
    } else {
      reviews++;
      const helpful = w.votes.length;
      await apply(reviewPlan({ kind: w.kind, before: null, after: { ...w.stored, helpful } }), `review ${w.stored.record.id}`);
      // Each vote's own items, as its transaction puts them (its `at`: the generated time).
      for (const [n, v] of w.votes.entries()) {
        const before = { ...w.stored, helpful: n };
        const plan = reviewPlan({ kind: w.kind, before, after: { ...before, helpful: n + 1 }, vote: { voter: v.voter, helpful: true } });
        for (const op of plan.items as Op[]) {
          const item = op.Put?.Item;
          if (item && String(item.sk).startsWith('V#')) await writer.put({ ...item, at: v.at });
          else if (item && String(item.pk).startsWith('REVIEWS#VOTER#')) await writer.put(item);
        }
        votes++;
      }
    }
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      o.onProgress?.(`  community: ${items} items, ${reviews} reviews, ${votes} votes, ${writer.written} items written (${Math.round(writer.written / ((Date.now() - started) / 1000))}/s)`);
    }
  }
  await writer.drain();
  const puts = writer.written;

  // The aggregates: items made by Updates alone are put whole; the titles' record items (there
  // already, from the catalogue) are read and put back with their counters.
  const titleKeys: Item[] = [];
  for (const item of updated.values()) {
    const pk = String(item.pk);
    if (item.sk === 'R' && (pk.startsWith('ANIME#') || pk.startsWith('MANGA#'))) titleKeys.push(item);
    else await writer.put(item);
  }
  await writer.drain();
  const aggregates = writer.written - puts;
  for (let i = 0; i < titleKeys.length; i += 100) {
    const chunk = titleKeys.slice(i, i + 100);
    const found = await getItems(chunk.map((t) => ({ pk: String(t.pk), sk: String(t.sk) })));
    for (const [n, stored] of found.entries()) {
      const { pk, sk, ...counters } = chunk[n]!;
      if (!stored) throw new Error(`the counters of ${String(pk)} ${String(sk)} name a title that is not in the table`);
      const merged: Item = { ...stored };
      for (const [attr, v] of Object.entries(counters)) merged[attr] = Number(merged[attr] ?? 0) + Number(v);
      await writer.put(merged);
    }
  }
  await writer.drain();
  const seconds = (Date.now() - started) / 1000;
  return {
    users: o.comm.sizes.users,
    items,
    reviews,
    votes,
    written: { puts, aggregates, titles: writer.written - puts - aggregates, total: writer.written },
    seconds,
    itemsPerSecond: writer.written / Math.max(seconds, 1e-3),
  };
}

/** The record key of the `index`-th title of a kind (with benchStamps' id). */
export const titleRecordKey = (kind: TitleKind, id: string) => recordKeyOfKind(kind === 'anime' ? 'ANIME' : 'MANGA', id);
