/**
 * The reverse side of the relations written on animes and mangas (API.md §1.8 "Relations and
 * their freshness", §3.5, §3.6, §4.9): items in the partitions of the characters and persons a
 * title names, kept by the relations consumer from the title's current state, which
 * shared/domain/reverse-views.ts computes (docs/data-model.md "Reverse views").
 *
 *   appearance    CHARACTER#<c>#X               ANIME#<name key> / MANGA#<name key>   { v: {anime|manga: {id, name}, role, voices?} }
 *   staff credit  PERSON#<p>#X                  STAFF#<name key>                       { v: {anime: {id, name}, positions} }
 *   voice group   PERSON#<p>#X                  VA#<a>                                 { e: [[c, language, role]…] }
 *   fan-out head  <SOURCE>#<id>#F               H                                      { s: "<state id> …", ahead? }
 *   fan-out part  <SOURCE>#<id>#F               P#<state id>#<n>                       { part, parts }
 *
 * Reads (decisions N2, O17):
 *  - a name key is `sortKey(title name, text, title id)`: a character's appearances and a
 *    person's staff credits are read in the order of their derived arrays (§1.8), the first N
 *    (a key range read with `Limit`);
 *  - a person's voice groups (one per anime they voice in: the characters, languages and roles)
 *    are read whole by `voices/` (one Query, ≤ 4,000 entries ≈ 160 KB), which orders them in
 *    memory by the anime's name or start date or the character's name as the in-memory indexes
 *    hold them now (sortVoices), so a rename reorders them at once and `count` is exact.
 *
 * A title's fan-out records the states it was reconciled to (the state itself, in parts), so
 * reconciling it with its current state writes only what changed and deletes what it no longer
 * asks for, whatever the order and number of the stream records that asked for it. The head
 * lists the state written last and, while a reconcile runs, the state it is writing (written
 * ahead, before any item): a reconcile that dies half-way, or runs beside another one of the
 * same title, leaves no item that a later reconcile would not find (decision N4); and only the
 * state a finished reconcile left lets a later one skip an item as already there (Z6).
 */
import { FEED_WRITES } from './feed.js';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../json.js';
import { queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { CASCADE_KEYS } from './cascades.js';
import { send, tableName } from './client.js';
import { Contended } from './errors.js';
import { grant, grants, type KeyGrants } from './key-patterns.js';
import { commit, del, put, StaleRecord, type WritePlan } from './records.js';
import { compareCodePoints, sortKey, type OrderType, type OrderValue } from './sort-keys.js';
import { TOMBSTONE_KEYS } from './tombstones.js';
import { JOURNALED_ANSWERS } from './idempotency.js';

export const reversePk = (kind: string, id: string) => `${kind}#${id}#X`;
const fanOutPk = (kind: string, id: string) => `${kind}#${id}#F`;

export interface ReverseItem {
  pk: string;
  sk: string;
  /** The entry the target's views show. */
  v: Record<string, unknown>;
}

// ---- The state of a title's reverse side

/** A character of a title's cast: its name (animes: it orders voices), role and voice actors. */
export interface CastState {
  character: string;
  /** The character's name (animes; `""` for mangas, whose appearances do not show it). */
  name: string;
  role: string;
  /** `[person, language]`, sorted. */
  voices: [string, string][];
}

/** What a title asks of its reverse side: everything the items derive from, nothing more. */
export interface ReverseState {
  kind: 'ANIME' | 'MANGA';
  id: string;
  name: string;
  aired_from: string | null;
  /** Sorted by character id. */
  cast: CastState[];
  /** Sorted by person id (animes). */
  staff: { person: string; positions: string[] }[];
}

const hashOf = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('base64url').slice(0, 12);
const keyOf = (pk: string, sk: string) => `${pk}\u0000${sk}`;

/** A title name's place among a record's reverse items of one kind: `<prefix>#` + its ascending sort key. */
const nameKey = (prefix: string, name: string, id: string) => `${prefix}#${sortKey(name, 'text', id, 'asc', prefix.length + 1)}`;

/** The appearance, staff credit and voice group items a state asks for, by key. */
export function reverseItems(s: ReverseState): Map<string, Item> {
  const out = new Map<string, Item>();
  const add = (i: Item) => out.set(keyOf(String(i.pk), String(i.sk)), i);
  const title = { id: s.id, name: s.name };
  for (const c of s.cast) {
    const voices = c.voices.map(([person_id, language]) => ({ person_id, language }));
    add({ pk: reversePk('CHARACTER', c.character), sk: nameKey(s.kind, s.name, s.id), v: s.kind === 'ANIME' ? { anime: title, role: c.role, voices } : { manga: title, role: c.role } });
  }
  for (const [person, entries] of voiceGroups(s)) add({ ...groupKey(person, s.id), e: entries });
  for (const m of s.staff) add({ pk: reversePk('PERSON', m.person), sk: nameKey('STAFF', s.name, s.id), v: { anime: title, positions: m.positions } });
  return out;
}

/** Appends `value` to the list at `key`. */
function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A voice entry in a voice group: the character, the language and the role. */
export type VoiceGroupEntry = [character: string, language: string, role: string];
type Entry = VoiceGroupEntry;

/** Each voice actor's entries in a state, sorted (what their voice group and counts hold of the title). */
export function voiceGroups(s: ReverseState | null): Map<string, Entry[]> {
  const out = new Map<string, Entry[]>();
  for (const c of s?.cast ?? []) for (const [person, language] of c.voices) push(out, person, [c.character, language, c.role]);
  for (const entries of out.values()) entries.sort((x, y) => (x.join('\u0000') < y.join('\u0000') ? -1 : 1));
  return out;
}

const groupKey = (person: string, anime: string): ItemKey => ({ pk: reversePk('PERSON', person), sk: `VA#${anime}` });

// ---- The fan-out: the states a title's items may show

/** A state that asks for no item: its title needs no fan-out (reconciled as a title without one). */
const isEmpty = (s: ReverseState) => s.cast.length === 0 && s.staff.length === 0;

/** The id of a state: equal states, equal ids. */
export const stateId = (s: ReverseState): string => hashOf(s);
/** UTF-16 units per fan-out part (≤ 300 KB of UTF-8 whatever the text). */
const PART_UNITS = 100_000;

/** The fan-out items recording `s` as the state a title's reverse items show. */
export function fanOutItems(s: ReverseState): Item[] {
  if (isEmpty(s)) return [];
  const w = stateId(s);
  const text = JSON.stringify(s);
  const parts: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + PART_UNITS);
    // Never between the two halves of a surrogate pair.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    parts.push(text.slice(i, end));
    i = end;
  }
  return [{ pk: fanOutPk(s.kind, s.id), sk: 'H', s: w }, ...parts.map((part, n) => ({ pk: fanOutPk(s.kind, s.id), sk: `P#${w}#${n}`, part, parts: parts.length }))];
}

interface FanOut {
  /** The states the head lists: the last one finished, then those recorded ahead of their items. */
  listed: string[];
  /** The last state listed was recorded ahead of its items: a reconcile is writing it, or died doing so. */
  ahead: boolean;
  states: ReverseState[];
  /** Items of a fan-out written before states were recorded: their keys and hashes (migrated on the next reconcile). */
  legacy: { pk: string; sk: string; hash: string }[];
  /** Every item of the fan-out partition but the head. */
  others: ItemKey[];
}

async function readFanOut(kind: string, id: string): Promise<FanOut> {
  const items = await queryAll(fanOutPk(kind, id));
  const head = items.find((i) => i.sk === 'H');
  const listed = head ? String(head.s).split(' ').filter(Boolean) : [];
  const pieces = new Map<string, string[]>();
  const legacy: FanOut['legacy'] = [];
  for (const i of items) {
    const sk = String(i.sk);
    const part = /^P#([^#]+)#(\d+)$/.exec(sk);
    if (part) (pieces.get(part[1]!) ?? pieces.set(part[1]!, []).get(part[1]!)!)[Number(part[2])] = String(i.part);
    else if (Array.isArray(i.keys)) for (const [pk, k, hash] of i.keys as [string, string, string][]) legacy.push({ pk, sk: k, hash });
  }
  const states = listed.map((w) => {
    const text = pieces.get(w);
    // Parts are written before the head lists them and deleted only once it no longer does.
    if (!text || text.some((t) => t === undefined)) throw new Error(`the fan-out of ${kind} ${id} lists state ${w} without its parts`);
    return JSON.parse(text.join('')) as ReverseState;
  });
  const others = items.filter((i) => i.sk !== 'H').map((i) => ({ pk: String(i.pk), sk: String(i.sk) }));
  return { listed, ahead: head?.ahead === true, states, legacy, others };
}

const HEAD_MEANING = { what: 'record' as const, kind: 'reverse views' };

/** The head lists `to` instead of `from` (an empty `to`: no head), recorded `ahead` of the items or not, and the parts of `needs` exist. */
function headPlan(kind: string, id: string, from: readonly string[], to: readonly string[], needs: readonly ItemKey[], ahead = false): WritePlan {
  const key = { pk: fanOutPk(kind, id), sk: 'H' };
  const condition = from.length === 0 ? { expression: 'attribute_not_exists(pk)' } : { expression: '#s = :from', names: { '#s': 's' }, values: { ':from': from.join(' ') } };
  const items: object[] = [to.length === 0 ? del(key, condition) : put({ ...key, s: to.join(' '), ...(ahead ? { ahead } : {}) }, condition), ...needs.map(exists)];
  return { items, meanings: items.map(() => HEAD_MEANING) };
}

const exists = (key: ItemKey) => ({ ConditionCheck: { TableName: tableName(), Key: key, ConditionExpression: 'attribute_exists(pk)' } });

/** The head's condition alone: it lists exactly `listed` (none: there is no head). */
function headIs(kind: string, id: string, listed: readonly string[]) {
  const Key = { pk: fanOutPk(kind, id), sk: 'H' };
  return listed.length === 0
    ? { ConditionCheck: { TableName: tableName(), Key, ConditionExpression: 'attribute_not_exists(pk)' } }
    : { ConditionCheck: { TableName: tableName(), Key, ConditionExpression: '#s = :s', ExpressionAttributeNames: { '#s': 's' }, ExpressionAttributeValues: { ':s': listed.join(' ') } } };
}

/** Deletes fan-out items of states no longer listed, provided the head still lists exactly `listed`. */
async function dropParts(kind: string, id: string, listed: readonly string[], parts: readonly ItemKey[]): Promise<void> {
  const gone = parts.filter((p) => !listed.some((w) => p.sk.startsWith(`P#${w}#`)));
  for (let i = 0; i < gone.length; i += 99) {
    const items = [headIs(kind, id, listed), ...gone.slice(i, i + 99).map((k) => del(k))];
    try {
      await commit({ items, meanings: items.map(() => HEAD_MEANING) });
    } catch (err) {
      // Another reconcile changed the head meanwhile: what it no longer lists is its to drop.
      if (err instanceof StaleRecord) return;
      throw err;
    }
  }
}

// ---- Reconciling a title

/** Tries of a reconcile that another reconcile of the same title overtook (then: Contended, which the consumer tries again). */
const RECONCILE_TRIES = 6;

/**
 * Makes the reverse items of a title (`kind`, `id`) what its current state asks for (`current`:
 * read after the fan-out on every attempt; null: the title is gone): records that state ahead in
 * the fan-out, puts the new and changed items (voice groups among them), deletes those no state
 * asks for any more, has `appearances` bring the characters whose appearance
 * (title, role) may have changed in line with their items, then records the state as the only
 * one. Idempotent. The head is written on the condition that it is as read, so a reconcile that
 * another reconcile of the same title overtook starts again — reading the title again, so the
 * last one to finish leaves the title's latest state; after a reconcile that did not finish (the
 * head lists more than one state), every character of every state is brought in line.
 */
export async function reconcileReverse(
  kind: 'ANIME' | 'MANGA',
  id: string,
  current: () => Promise<ReverseState | null>,
  appearances: (characters: string[]) => Promise<unknown>,
): Promise<void> {
  /** States this call recorded ahead before it was overtaken: their items may exist too. */
  const own: ReverseState[] = [];
  for (let attempt = 1; ; attempt++) {
    const fan = await readFanOut(kind, id);
    const now = await current();
    const desired = now && !isEmpty(now) ? now : null;
    const w = desired ? stateId(desired) : null;
    const target = w ? [w] : [];
    const known = [...fan.states, ...own];
    const unfinished = own.length > 0 || fan.legacy.length > 0 || fan.listed.length > 1 || fan.ahead;
    // What the items and counts hold for certain: the one state a finished reconcile left. A
    // state recorded ahead (this call's, or that of a reconcile that died or runs beside this
    // one) says only what may be there: its items may be missing, or deleted since by a
    // reconcile overtaken meanwhile (decision Z6).
    const settled = unfinished ? [] : known;
    /** The parts of states no longer listed (the last step: dropped once the head lists only the current state). */
    const stale = fan.others.filter((k) => !(w && k.sk.startsWith(`P#${w}#`)));
    if (!unfinished && fan.listed.join(' ') === target.join(' ')) {
      // Settled; a reconcile that died (or lost the answer) after its last head write may have left parts to drop.
      if (stale.length > 0) await dropParts(kind, id, target, stale);
      return;
    }
    let listed = fan.listed;
    try {
      if (w && !listed.includes(w)) {
        const [, ...parts] = fanOutItems(desired!);
        await writeItems(parts);
        const to = [...listed, w];
        await commit(headPlan(kind, id, listed, to, parts.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })), true));
        listed = to;
        own.push(desired!);
      }
      await writeDiff(known, settled, fan.legacy, desired);
      await appearances(unfinished ? castOf([...known, desired]) : changedAppearances(known, desired));
      await commit(headPlan(kind, id, listed, target, []));
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
      if (attempt >= RECONCILE_TRIES) throw new Contended(`The reverse views of ${kind} ${id}`);
      continue;
    }
    await dropParts(kind, id, target, stale);
    return;
  }
}

/** Every character of some state. */
const castOf = (states: readonly (ReverseState | null)[]) => [...new Set(states.flatMap((s) => (s?.cast ?? []).map((c) => c.character)))];

/**
 * Puts the items `desired` asks for that may differ from what is stored (an item is left alone
 * only when the `settled` state has it as it is); deletes those only `known` states asked for.
 */
async function writeDiff(known: readonly ReverseState[], settled: readonly ReverseState[], legacy: FanOut['legacy'], desired: ReverseState | null): Promise<void> {
  const old = new Map<string, { pk: string; sk: string }>();
  for (const s of known) for (const item of reverseItems(s).values()) old.set(keyOf(String(item.pk), String(item.sk)), { pk: String(item.pk), sk: String(item.sk) });
  for (const l of legacy) old.set(keyOf(l.pk, l.sk), { pk: l.pk, sk: l.sk });
  const stored = new Map<string, string>();
  for (const s of settled) for (const [k, item] of reverseItems(s)) stored.set(k, itemHash(item));
  const now = desired ? reverseItems(desired) : new Map<string, Item>();
  const puts = [...now].filter(([k, item]) => stored.get(k) !== itemHash(item));
  const deletes = [...old].filter(([k]) => !now.has(k)).map(([, o]) => ({ pk: o.pk, sk: o.sk }));
  // Puts first: an item whose key moves (a renamed title's appearance, an item of a fan-out of
  // schema version 1) is never missing for a reader meanwhile, only there twice for a moment
  // (appearanceTokens counts a title once).
  await writeItems(puts.map(([, item]) => item));
  await writeItems([], deletes);
}

const itemHash = (item: Item) => hashOf(Object.fromEntries(Object.entries(item).filter(([k]) => k !== 'pk' && k !== 'sk')));

/** Characters whose appearance in the title (its presence or role) differs between a known state and `desired`. */
function changedAppearances(known: readonly ReverseState[], desired: ReverseState | null): string[] {
  const roles = (s: ReverseState | null) => new Map((s?.cast ?? []).map((c) => [c.character, c.role]));
  const now = roles(desired);
  const out = new Set<string>(known.length === 0 ? now.keys() : []);
  for (const s of known) {
    const then = roles(s);
    for (const c of new Set([...then.keys(), ...now.keys()])) if (then.get(c) !== now.get(c)) out.add(c);
  }
  return [...out];
}

// ---- Reads

/** The first `limit` items of a partition whose sort keys start with `prefix`, in key order (one Query). */
async function firstItems(pk: string, prefix: string, limit: number): Promise<Item[]> {
  const out = await send((c) =>
    new c.QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ConsistentRead: true,
      Limit: limit,
    }),
  );
  return (out.Items ?? []) as Item[];
}

/** A character's first `limit` appearances in animes or mangas, by the title's name (then id). */
export async function readAppearances(character: string, kind: 'ANIME' | 'MANGA', limit: number): Promise<ReverseItem[]> {
  return (await firstItems(reversePk('CHARACTER', character), `${kind}#`, limit)) as unknown as ReverseItem[];
}

/** A person's first `limit` staff credits, by the anime's name (then id). */
export async function readStaffCredits(person: string, limit: number): Promise<ReverseItem[]> {
  return (await firstItems(reversePk('PERSON', person), 'STAFF#', limit)) as unknown as ReverseItem[];
}

/** Every reverse item of a character or person (the consumer: appearances, sources). */
export async function readReverse(kind: string, id: string): Promise<ReverseItem[]> {
  return (await queryAll(reversePk(kind, id))) as unknown as ReverseItem[];
}

/** The titles (kind, id) a character's or person's reverse items come from. */
export async function reverseSources(kind: string, id: string): Promise<{ kind: 'ANIME' | 'MANGA'; id: string }[]> {
  const out = new Map<string, { kind: 'ANIME' | 'MANGA'; id: string }>();
  for (const i of await readReverse(kind, id)) {
    const v = i.v as { anime?: { id: string }; manga?: { id: string } } | undefined;
    const source = i.sk.startsWith('VA#') ? { kind: 'ANIME' as const, id: i.sk.slice(3) } : v?.anime ? { kind: 'ANIME' as const, id: v.anime.id } : v?.manga ? { kind: 'MANGA' as const, id: v.manga.id } : null;
    if (source) out.set(`${source.kind}#${source.id}`, source);
  }
  return [...out.values()];
}

/** An entry of a person's `voices/` (§4.9): the anime and the character it shows, the role and the language. */
export interface VoiceEntry {
  anime: string;
  character: string;
  role: string;
  language: string;
}

/**
 * Every voice entry of a person: their voice groups, one Query (more past 1 MB), eventually
 * consistent — reverse views may lag behind a title's write (§1.8) and the consumer keeps them.
 */
export async function readVoices(person: string): Promise<VoiceEntry[]> {
  const groups = await queryAll(reversePk('PERSON', person), 'VA#', false);
  return groups.flatMap((g) => (g.e as VoiceGroupEntry[]).map(([character, language, role]) => ({ anime: String(g.sk).slice(3), character, language, role })));
}

/** The orderings of `voices/` (§4.9): the kind of the record whose value orders an entry, the ordering of that kind's index holding it. */
export const VOICE_ORDERINGS: Record<string, { kind: 'ANIME' | 'CHARACTER'; ordering: string; type: OrderType }> = {
  aired_from: { kind: 'ANIME', ordering: 'aired_from', type: 'plain' },
  anime_name: { kind: 'ANIME', ordering: 'name', type: 'text' },
  character_name: { kind: 'CHARACTER', ordering: 'name', type: 'text' },
};

/**
 * Ties of a voice entry (§1.6: the ids of the records it shows in its shape's order — the
 * character, the anime — then its other fields: the language). Fixed length, as invertId needs.
 */
const voiceTie = (e: VoiceEntry) => `${e.character}${e.anime}${e.language.padEnd(12, '-')}`;

/**
 * Voice entries in §1.6's order of an ordering of `voices/`, each with its sort key (what cursors
 * hold): `value` gives the ordering's value of an entry's anime or character (VOICE_ORDERINGS).
 * Nulls last in both directions, then the ties above.
 */
export function sortVoices(entries: readonly VoiceEntry[], ordering: string, descending: boolean, value: (e: VoiceEntry) => OrderValue): { e: VoiceEntry; sk: string }[] {
  const o = VOICE_ORDERINGS[ordering];
  if (!o) throw new Error(`unknown voices ordering ${ordering}`);
  const dir = descending ? 'desc' : 'asc';
  return entries
    .map((e) => ({ e, sk: sortKey(value(e), o.type, voiceTie(e), dir) }))
    .sort((a, b) => compareCodePoints(a.sk, b.sk) * (descending ? -1 : 1));
}

// ---- Deletion of a target

/** Removes every reverse item of a character or person (it is deleted; its views went with it). */
export async function dropReverse(kind: string, id: string): Promise<void> {
  const items = await queryAll(reversePk(kind, id));
  await writeItems([], items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })));
}

const CATALOGUE_KINDS = ['ANIME', 'MANGA', 'CHARACTER', 'PERSON', 'GENRE', 'THEME', 'PRODUCER', 'DEMOGRAPHIC', 'MAGAZINE'];
/**
 * Kinds whose record changes the relations consumer follows (its stream filter): the catalogue's,
 * news (journals left behind) and user accounts (a deleted account's news articles lose their author).
 */
export const EFFECT_KINDS = [...CATALOGUE_KINDS, 'NEWS', 'USER', 'REVIEW', 'CASCADE'];
/**
 * What the relations consumer reads and writes (key-patterns.ts), never users' records: the
 * titles and news (rewritten as a title write does, shared/domain/title-writes.ts; their reverse
 * views reconciled in transactions and batches, with condition checks on their fan-outs; the users
 * listing a title), the taxonomy records (read, their counts updated), the users' lists (items
 * changed or removed in list transactions, their titles' counters with them) and reviews (removed
 * with their votes, in transactions and batches), its cascades' progress items, the tombstones
 * (read, cleared), the recommendation lists of deleted titles (removed: decision V6) and the
 * change-feed changes of the titles it rewrites.
 */
export const RELATION_KEYS: KeyGrants = grants(
  grant(['ANIME#*', 'MANGA#*', 'CHARACTER#*', 'PERSON#*', 'NEWS#*'], 'GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
  grant(['GENRE#*', 'THEME#*', 'PRODUCER#*', 'DEMOGRAPHIC#*', 'MAGAZINE#*'], 'BatchGetItem', 'UpdateItem'),
  grant(['ANIMELIST#*', 'MANGALIST#*'], 'GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'),
  grant('REVIEW#*', 'BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'BatchWriteItem'),
  grant('REVIEWS#*', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'),
  grant(CASCADE_KEYS, 'PutItem', 'DeleteItem'),
  grant(TOMBSTONE_KEYS, 'BatchGetItem', 'UpdateItem'),
  grant('RECS#*', 'DeleteItem'),
  // A title it rewrites puts its change-feed change (feed.ts).
  FEED_WRITES,
  // A title's journal may hold a creation's stored answer (idempotency.ts).
  JOURNALED_ANSWERS,
);
