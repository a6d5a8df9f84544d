/**
 * The reverse side of the relations written on animes and mangas (API.md §1.8 "Relations and
 * their freshness", §3.5, §3.6, §4.9): items in the partitions of the characters and persons a
 * title names, kept by the relations consumer from the title's current state, which
 * shared/domain/reverse-views.ts computes (docs/data-model.md "Reverse views").
 *
 *   appearance    CHARACTER#<c>#X               ANIME#<name key> / MANGA#<name key>   { v: {anime|manga: {id, name}, role, voices?} }
 *   staff credit  PERSON#<p>#X                  STAFF#<name key>                       { v: {anime: {id, name}, positions} }
 *   voice entry   PERSON#<p>#V#<ordering>#A|D   <sort key of the ordering>             { a, c, r, l }
 *   voice group   PERSON#<p>#X                  VA#<a>                                 { e: [[c, language, role]…], h }
 *   voice counts  PERSON#<p>#X                  VN (all) / VC#<c> (one character)      { n, "<language>:<role>": n … }
 *   fan-out head  <SOURCE>#<id>#F               H                                      { s: "<state id> …", ahead? }
 *   fan-out part  <SOURCE>#<id>#F               P#<state id>#<n>                       { part, parts }
 *
 * Every read of a request is a key range read with `Limit` (decision N1):
 *  - a name key is `sortKey(title name, text, title id)`: a character's appearances and a
 *    person's staff credits are read in the order of their derived arrays (§1.8), the first N;
 *  - each ordering of `voices/` (`aired_from`, `anime_name`, `character_name`) has its own
 *    partition per direction, sorted as §1.6 orders voices (the value, then the ids of the
 *    character and the anime, then the language; nulls last both ways), so a page is one Query
 *    from the cursor; its cards (names, images, score) are read with the page, never copied;
 *  - `count` comes from the person's counts (VN): per (language, role), kept exact by
 *    transactions guarded by the voice group of each (person, anime) (VA), which records what
 *    the counts hold of that anime. The groups and the per-character counts (VC) also give the
 *    entries of records deleted a moment ago, which the tombstones hide (decision N3).
 *
 * A title's fan-out records the states it was reconciled to (the state itself, in parts), so
 * reconciling it with its current state writes only what changed and deletes what it no longer
 * asks for, whatever the order and number of the stream records that asked for it. The head
 * lists the state written last and, while a reconcile runs, the state it is writing (written
 * ahead, before any item): a reconcile that dies half-way, or runs beside another one of the
 * same title, leaves no item that a later reconcile would not find (decision N4); and only the
 * state a finished reconcile left lets a later one skip an item as already there (Z6).
 */
import { createHash } from 'node:crypto';
import type { Cursor } from './sort-keys.js';
import { canonicalJson } from '../json.js';
import { getItems, queryAll, writeItems, type Item, type ItemKey } from './batch.js';
import { CASCADE_KEYS } from './cascades.js';
import { send, tableName } from './client.js';
import { queryIndexPage, type IndexPage } from './index-query.js';
import { Contended, retryOnConflict } from './errors.js';
import { grant, grants, type KeyGrants } from './key-patterns.js';
import { commit, commitContended, del, put, StaleRecord, type WritePlan } from './records.js';
import { sortKey, type OrderType } from './sort-keys.js';
import { TOMBSTONE_KEYS } from './tombstones.js';

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

/** The orderings of `voices/` (§4.9) and the value each sorts by. */
export const VOICE_ORDERINGS: Record<string, { type: OrderType; value: (s: ReverseState, c: CastState) => string | null }> = {
  aired_from: { type: 'plain', value: (s) => s.aired_from },
  anime_name: { type: 'text', value: (s) => s.name },
  character_name: { type: 'text', value: (_s, c) => c.name },
};
const voicePk = (person: string, ordering: string, descending: boolean) => `PERSON#${person}#V#${ordering}#${descending ? 'D' : 'A'}`;
/**
 * Ties of a voice entry (§1.6: the ids of the records it shows in its shape's order — the
 * character, the anime — then its other fields: the language). Fixed length, as invertId needs.
 */
const voiceTie = (character: string, anime: string, language: string) => `${character}${anime}${language.padEnd(12, '-')}`;

/** The appearance, staff credit and voice entry items a state asks for, by key. */
export function reverseItems(s: ReverseState): Map<string, Item> {
  const out = new Map<string, Item>();
  const add = (i: Item) => out.set(keyOf(String(i.pk), String(i.sk)), i);
  const title = { id: s.id, name: s.name };
  for (const c of s.cast) {
    const voices = c.voices.map(([person_id, language]) => ({ person_id, language }));
    add({ pk: reversePk('CHARACTER', c.character), sk: nameKey(s.kind, s.name, s.id), v: s.kind === 'ANIME' ? { anime: title, role: c.role, voices } : { manga: title, role: c.role } });
    for (const [person, language] of c.voices) {
      for (const [ordering, o] of Object.entries(VOICE_ORDERINGS)) {
        for (const descending of [false, true]) {
          const sk = sortKey(o.value(s, c), o.type, voiceTie(c.character, s.id, language), descending ? 'desc' : 'asc');
          add({ pk: voicePk(person, ordering, descending), sk, a: s.id, c: c.character, r: c.role, l: language });
        }
      }
    }
  }
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
const countsKey = (person: string): ItemKey => ({ pk: reversePk('PERSON', person), sk: 'VN' });
const characterCountsKey = (person: string, character: string): ItemKey => ({ pk: reversePk('PERSON', person), sk: `VC#${character}` });
const bucket = (language: string, role: string) => `${language}:${role}`;

/** The voice group item of (person, anime) holding `entries`. */
export const groupItem = (person: string, anime: string, entries: readonly Entry[]): Item => ({ ...groupKey(person, anime), e: entries, h: hashOf(entries) });

/** Entries counted per bucket, with the total `n`. */
function bucketsOf(entries: readonly Entry[]): Record<string, number> {
  const out: Record<string, number> = { n: entries.length };
  for (const [, language, role] of entries) out[bucket(language, role)] = (out[bucket(language, role)] ?? 0) + 1;
  return out;
}

/**
 * The counts items of the voice groups `groups` (person → anime → entries), as the consumer's
 * increments leave them: each person's counts (VN) and per character (VC) — for the bulk
 * loader and the recount.
 */
export function countItems(groups: ReadonlyMap<string, ReadonlyMap<string, readonly Entry[]>>): Item[] {
  const out: Item[] = [];
  for (const [person, byAnime] of groups) {
    const all = [...byAnime.values()].flat();
    if (all.length > 0) out.push({ ...countsKey(person), ...bucketsOf(all) });
    const byCharacter = new Map<string, Entry[]>();
    for (const e of all) push(byCharacter, e[0], e);
    for (const [character, entries] of byCharacter) out.push({ ...characterCountsKey(person, character), ...bucketsOf(entries) });
  }
  return out;
}

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
 * the fan-out, puts the new and changed items, deletes those no state asks for any more, brings
 * the voice groups and counts in line, has `appearances` bring the characters whose appearance
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
  appearances: (characters: string[]) => Promise<void>,
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
    if (!unfinished && fan.listed.join(' ') === target.join(' ')) return;
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
      await reconcileCounts(id, known, settled, desired);
      await appearances(unfinished ? castOf([...known, desired]) : changedAppearances(known, desired));
      await commit(headPlan(kind, id, listed, target, []));
    } catch (err) {
      if (!(err instanceof StaleRecord)) throw err;
      if (attempt >= RECONCILE_TRIES) throw new Contended(`The reverse views of ${kind} ${id}`);
      continue;
    }
    await dropParts(kind, id, target, fan.others.filter((k) => !(w && k.sk.startsWith(`P#${w}#`))));
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

// ---- Voice groups and counts

/** Character changes per transaction of one person (with its group and its counts: ≤ 100 items). */
const CHARACTERS_PER_STEP = 98;

/** One transaction's worth of a person's change: its group from `from` to `to`, and the counts' increments. */
interface Step {
  person: string;
  from: Entry[] | null;
  to: Entry[];
  counts: Record<string, number>;
  characters: Map<string, Record<string, number>>;
}

/**
 * Brings each voice actor's group of the title (VA) and their counts (VN, VC) to `desired`.
 * The group records what the counts hold of this title, so each change is one transaction:
 * the group (conditioned on what was read of it) and the increments it implies — redone from
 * a fresh read if the group changed meanwhile. Every person some `known` state or `desired`
 * names is read, but one whose entries in the `settled` state (what a finished reconcile left)
 * are those of `desired`.
 */
async function reconcileCounts(anime: string, known: readonly ReverseState[], settled: readonly ReverseState[], desired: ReverseState | null): Promise<void> {
  const want = voiceGroups(desired);
  const held = settled.map(voiceGroups);
  const same = (a: readonly Entry[] | undefined, b: readonly Entry[] | undefined) => canonicalJson(a ?? []) === canonicalJson(b ?? []);
  let persons = [...new Set([...want.keys(), ...known.flatMap((s) => [...voiceGroups(s).keys()])])].filter(
    (p) => held.length === 0 || held.some((g) => !same(g.get(p), want.get(p))),
  );
  for (let attempt = 1; persons.length > 0; attempt++) {
    const stored = await getItems(persons.map((p) => groupKey(p, anime)));
    const steps = persons.map((p, i) => stepsOf(p, (stored[i]?.e as Entry[] | undefined) ?? null, want.get(p) ?? []));
    const failed = new Set<string>();
    for (let round = 0; steps.some((s) => s.length > round); round++) {
      const plans = steps.flatMap((s) => (s[round] && !failed.has(s[round]!.person) ? [s[round]!] : [])).map((s) => ({ person: s.person, plan: stepPlan(anime, s) }));
      for (const batch of packed(plans)) {
        try {
          await commitContended(...batch.map((b) => b.plan));
        } catch (err) {
          if (!(err instanceof StaleRecord)) throw err;
          if (attempt >= RECONCILE_TRIES) throw new Contended(`The voice counts of ANIME ${anime}`);
          for (const b of batch) failed.add(b.person);
        }
      }
    }
    await dropZeroCounts(steps.flat().filter((s) => !failed.has(s.person)));
    persons = [...failed];
  }
}

/** The steps from a person's stored group (`from`) to `to`, at most CHARACTERS_PER_STEP characters each. */
function stepsOf(person: string, from: Entry[] | null, to: Entry[]): Step[] {
  if (from === null ? to.length === 0 : canonicalJson(from) === canonicalJson(to)) return [];
  const byCharacter = (entries: readonly Entry[]) => {
    const m = new Map<string, Entry[]>();
    for (const e of entries) push(m, e[0], e);
    return m;
  };
  const before = byCharacter(from ?? []);
  const after = byCharacter(to);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((c) => canonicalJson(before.get(c) ?? []) !== canonicalJson(after.get(c) ?? [])).sort();
  const steps: Step[] = [];
  let current = from;
  const state = new Map(before);
  for (let i = 0; i < changed.length || steps.length === 0; i += CHARACTERS_PER_STEP) {
    const part = changed.slice(i, i + CHARACTERS_PER_STEP);
    const counts: Record<string, number> = {};
    const characters = new Map<string, Record<string, number>>();
    for (const c of part) {
      const d = diffBuckets(bucketsOf(before.get(c) ?? []), bucketsOf(after.get(c) ?? []));
      characters.set(c, d);
      for (const [b, n] of Object.entries(d)) counts[b] = (counts[b] ?? 0) + n;
      if (after.has(c)) state.set(c, after.get(c)!);
      else state.delete(c);
    }
    const next = [...state.keys()].sort().flatMap((c) => state.get(c)!);
    next.sort((x, y) => (x.join('\u0000') < y.join('\u0000') ? -1 : 1));
    steps.push({ person, from: current, to: next, counts, characters });
    current = next;
  }
  return steps;
}

function diffBuckets(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[b] ?? 0) - (before[b] ?? 0);
    if (d !== 0) out[b] = d;
  }
  return out;
}

/** A step as a transaction: the group at its new value (conditioned on the old one) and the counts' increments. */
function stepPlan(anime: string, s: Step): WritePlan {
  const key = groupKey(s.person, anime);
  const condition = s.from === null ? { expression: 'attribute_not_exists(pk)' } : { expression: '#h = :h', names: { '#h': 'h' }, values: { ':h': hashOf(s.from) } };
  const items: object[] = [s.to.length === 0 ? del(key, condition) : put(groupItem(s.person, anime, s.to), condition)];
  const meanings: WritePlan['meanings'] = [HEAD_MEANING];
  for (const [k, d] of [[countsKey(s.person), s.counts], ...[...s.characters].map(([c, d]) => [characterCountsKey(s.person, c), d] as const)] as [ItemKey, Record<string, number>][]) {
    if (Object.keys(d).length === 0) continue;
    items.push(increments(k, d));
    meanings.push(null);
  }
  return { items, meanings };
}

function increments(key: ItemKey, d: Record<string, number>) {
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const adds = Object.entries(d).map(([b, n], i) => {
    names[`#b${i}`] = b;
    values[`:b${i}`] = n;
    return `#b${i} :b${i}`;
  });
  return { Update: { TableName: tableName(), Key: key, UpdateExpression: `ADD ${adds.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values } };
}

/** Plans packed into transactions of at most 100 items. */
function packed<T extends { plan: WritePlan }>(plans: readonly T[]): T[][] {
  const out: T[][] = [];
  let size = 101;
  for (const p of plans) {
    if (size + p.plan.items.length > 100) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(p);
    size += p.plan.items.length;
  }
  return out;
}

/** Counts items brought down to zero are deleted (when still zero), so that none stays for records long gone. */
async function dropZeroCounts(steps: readonly Step[]): Promise<void> {
  const keys = new Map<string, ItemKey>();
  for (const s of steps) {
    if ((s.counts.n ?? 0) < 0) keys.set(keyOf(countsKey(s.person).pk, 'VN'), countsKey(s.person));
    for (const [c, d] of s.characters) if ((d.n ?? 0) < 0) keys.set(keyOf(s.person, c), characterCountsKey(s.person, c));
  }
  await Promise.all(
    [...keys.values()].map(async (Key) => {
      try {
        await send((c) => new c.DeleteCommand({ TableName: tableName(), Key, ConditionExpression: '#n = :zero', ExpressionAttributeNames: { '#n': 'n' }, ExpressionAttributeValues: { ':zero': 0 } }));
      } catch (err) {
        if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
      }
    }),
  );
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

/** A voice entry of `voices/` as stored: the ids of its anime and character, its role and language. */
export interface VoiceEntry {
  anime: string;
  character: string;
  role: string;
  language: string;
}

export interface VoiceQuery {
  ordering: string;
  descending: boolean;
  limit: number;
  cursor: Cursor | null;
  language?: string;
  role?: string;
}

/**
 * One page of a person's voices (§4.9): one Query of the ordering's partition from the cursor,
 * `limit + 1` items, or with a filter at most readBudget(limit) items evaluated (the page may
 * then be short while `next` is set, §1.5).
 */
export async function voicePage(person: string, q: VoiceQuery): Promise<IndexPage<VoiceEntry>> {
  if (!Object.hasOwn(VOICE_ORDERINGS, q.ordering)) throw new Error(`unknown voices ordering ${q.ordering}`);
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (q.language !== undefined) {
    [names['#l'], values[':l']] = ['l', q.language];
    clauses.push('#l = :l');
  }
  if (q.role !== undefined) {
    [names['#r'], values[':r']] = ['r', q.role];
    clauses.push('#r = :r');
  }
  return queryIndexPage(
    {
      pk: voicePk(person, q.ordering, q.descending),
      forward: !q.descending,
      limit: q.limit,
      cursor: q.cursor,
      filter: clauses.length === 0 ? undefined : { expression: clauses.join(' AND '), names, values },
    },
    (i) => ({ anime: String(i.a), character: String(i.c), role: String(i.r), language: String(i.l) }),
  );
}

/** The key of a person's voice counts (read with the person's record). */
export const voiceCountsKey = countsKey;

/** What the count of a person's voices must leave out now: the groups of deleted animes and the counts of deleted characters. */
function voiceCorrectionKeys(person: string, deleted: { animes: readonly string[]; characters: readonly string[] }): ItemKey[] {
  return [...deleted.animes.map((a) => groupKey(person, a)), ...deleted.characters.map((c) => characterCountsKey(person, c))];
}

/**
 * The exact number of a person's voice entries matching `filter` that are shown: the counts,
 * less the entries of animes and characters deleted a moment ago (`corrections`: their groups,
 * then their counts, as voiceCorrectionKeys lists them) — each entry once, also when both its
 * anime and its character are deleted.
 */
export function voiceCount(
  counts: Item | null,
  corrections: readonly (Item | null)[],
  deleted: { animes: readonly string[]; characters: readonly string[] },
  filter: { language?: string; role?: string },
): number {
  const matches = (b: string) => {
    const [language, role] = b.split(':');
    return role !== undefined && (filter.language === undefined || filter.language === language) && (filter.role === undefined || filter.role === role);
  };
  const sum = (item: Item | null | undefined) => Object.entries(item ?? {}).reduce((n, [b, v]) => (matches(b) ? n + Number(v) : n), 0);
  const characters = new Set(deleted.characters);
  let n = sum(counts);
  deleted.animes.forEach((_, i) => {
    for (const [c, language, role] of (corrections[i]?.e ?? []) as Entry[]) if (!characters.has(c) && matches(bucket(language, role))) n--;
  });
  deleted.characters.forEach((_, i) => (n -= sum(corrections[deleted.animes.length + i])));
  return Math.max(0, n);
}

/**
 * voiceCount while deletions of animes or characters are pending: the counts and what it leaves
 * out are read in one snapshot (TransactGetItems, 100 items: the consumer changes a group and
 * the counts in one transaction, so the two never disagree); beyond 99 pending deletions in
 * several.
 */
export async function voiceCountWhileDeleting(person: string, deleted: { animes: readonly string[]; characters: readonly string[] }, filter: { language?: string; role?: string }): Promise<number> {
  const keys = [countsKey(person), ...voiceCorrectionKeys(person, deleted)];
  const items: (Item | null)[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    const out = await retryOnConflict(() => send((c) => new c.TransactGetCommand({ TransactItems: keys.slice(i, i + 100).map((Key) => ({ Get: { TableName: tableName(), Key } })) })), 6);
    items.push(...(out.Responses ?? []).map((r) => (r.Item as Item | undefined) ?? null));
  }
  return voiceCount(items[0] ?? null, items.slice(1), deleted, filter);
}

// ---- Deletion of a target

/** Removes every reverse item of a character or person (it is deleted; its views went with it). */
export async function dropReverse(kind: string, id: string): Promise<void> {
  const pks = [reversePk(kind, id), ...(kind === 'PERSON' ? Object.keys(VOICE_ORDERINGS).flatMap((o) => [voicePk(id, o, false), voicePk(id, o, true)]) : [])];
  for (const pk of pks) {
    const items = await queryAll(pk);
    await writeItems([], items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })));
  }
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
 * (read, cleared) and the recommendation lists of deleted titles (removed: decision V6).
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
);
