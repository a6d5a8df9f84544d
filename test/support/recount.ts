/**
 * The recount: every number and derived item of a table checked against the items it derives
 * from, read whole (a test table: a Scan). What the requests and consumers keep in step must be
 * in step once they have settled, whatever happened meanwhile (concurrency, an engine killed and
 * started again, a consumer's record retried): a write is judged by what the table holds, not by
 * what its client was told.
 *
 *  - records and their counters (`K#N`), uniqueness claims (each record's, none orphaned; a
 *    carrying claim carries the record at its revision), random-pick slots (1..n, each naming its
 *    record, which names its slot), ordering entries (records.ts) — exactly the record's —, no
 *    item of the planner's title index nor of the schedule's digest (issue 19 removed them: the
 *    vectors carry the schedule's entries), and each title kind's in-memory index — the vectors its snapshot publishes (loaded
 *    from the index bucket: publishedVectors) with its deltas after the pointer applied, numbered
 *    without gaps — exactly the records' vectors;
 *  - titles' counters (`st_*`: members by status, scores, favourites) = the list items naming
 *    them; who lists a title (`K#<id>#L`) = those items; each list's counts, claims and vectors =
 *    its items, whose `title_name` follows the title's;
 *  - reviews: `hc` = the votes, each vote with its posting and each posting with its vote, the
 *    entries of the title's and the author's lists, the claim, the top and recent entries, the
 *    lists' counts (each author's review count among them);
 *  - taxonomy counts (`anime_count`, `manga_count`, a producer's credits per role) = the titles
 *    linking them, and every embedded Ref names a record with its current name;
 *  - reverse items (characters' and persons' views of casts and staff, the voice groups), each title's fan-out
 *    (its current state only) and characters' appearances = what the titles' current casts and
 *    staff ask for (reverse-views.ts, shared/db/reverse.ts);
 *  - nothing left half-done: no unapplied journal of a committed write nor deletion marker
 *    (staged.ts; journals of writes that never committed are inert), no pending cascade, no
 *    tombstone, no item of a list, review or title whose owner is gone; each user has its auth
 *    state;
 *  - the recommendation lists (shared/db/recommendations.ts) keep nothing they should not: none
 *    of a title that is gone, and none still holds what the last completed run should have
 *    removed — a version superseded before that run, or an empty list (whatever their entries);
 *  - the items of Idempotency-Keys: claims and sealed answers only, no answer that is not kept.
 *
 * expectApiRecount does the same for the numbers the API shows, from what each user's list shows.
 *
 * Not checked: the jobs' results (top lists, the recommendations' entries: the fault tests compare
 * those with a clean run), rate-limit counters, sessions, the outbox.
 */
import { feedProblems } from './feed-check.js';
import { animeEntity, animeIndex } from '../../shared/db/animes.js';
import { vectorOf, type IndexDef, type Vector } from '../../shared/db/catalogue-index.js';
import { indexPk } from '../../shared/db/index-deltas.js';
import { loadVectors } from '../../shared/domain/index-compaction.js';
import { characterIndex } from '../../shared/db/characters.js';
import { mangaEntity, mangaIndex } from '../../shared/db/mangas.js';
import { newsIndex } from '../../shared/db/news.js';
import { personIndex } from '../../shared/db/persons.js';
import { profiles } from '../../shared/db/profiles.js';
import { orderingItems, type BaseRecord, type EntityDef } from '../../shared/db/records.js';
import { listEntriesOf, topKey } from '../../shared/db/reviews.js';
import { demographicEntity, genreEntity, magazineEntity, producerEntity, themeEntity } from '../../shared/db/taxonomy.js';
import { SCORES } from '../../shared/db/titles.js';
import { users } from '../../shared/db/users.js';
import { ANIME_LIST, itemIndex, PLAYLISTS, type PlaylistKind } from '../../shared/domain/playlists.js';
import { reviewKindOf, type ReviewRecord } from '../../shared/domain/reviews.js';
import { appearanceTokens, reverseStateOf } from '../../shared/domain/reverse-views.js';
import { fanOutItems, reverseItems } from '../../shared/db/reverse.js';
import { tableName } from '../../shared/db/client.js';
import { TOMBSTONE_SHARDS } from '../../shared/db/tombstones.js';
import type { StreamPoller } from '../../infra/local/streams.js';
import { send } from './http.js';
import type { TestServer } from './server.js';
import { scanAll, settled, sortKeys, type Item } from './tables.js';

const RECORD_ENTITIES: EntityDef<BaseRecord>[] = [genreEntity, themeEntity, demographicEntity, magazineEntity, producerEntity, users, profiles].map(
  (d) => d as unknown as EntityDef<BaseRecord>,
);
const TITLE_ENTITIES: EntityDef<BaseRecord>[] = [animeEntity, mangaEntity].map((d) => d as unknown as EntityDef<BaseRecord>);
const INDEXES: IndexDef<BaseRecord>[] = [animeIndex, mangaIndex, characterIndex, personIndex, newsIndex].map((d) => d as unknown as IndexDef<BaseRecord>);
const COUNTED = ['ANIME', 'MANGA', 'CHARACTER', 'PERSON', 'NEWS', 'GENRE', 'THEME', 'DEMOGRAPHIC', 'MAGAZINE', 'PRODUCER', 'USER', 'PROFILE'];
const SLOTTED = ['ANIME', 'MANGA', 'CHARACTER', 'PERSON'];
const RECORD_KINDS = new Set([...COUNTED, 'REVIEW']);

type Ref = { id: string; name: string };
const same = (a: unknown, b: unknown) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
const num = (v: unknown) => Number(v ?? 0);

/**
 * Discrepancies between the items and what they derive from (empty: the table agrees with a
 * recount). `published`: the vectors of each kind's current snapshot (publishedVectors); without
 * it a kind that has a snapshot is checked only for its deltas' numbering.
 */
export function recount(items: ReadonlyMap<string, Item>, published?: ReadonlyMap<string, ReadonlyMap<string, Vector>>): string[] {
  const problems: string[] = [];
  const problem = (p: string) => problems.push(p);
  const all = [...items.values()];
  const byPk = new Map<string, Item[]>();
  for (const i of all) {
    const pk = String(i.pk);
    const list = byPk.get(pk);
    if (list) list.push(i);
    else byPk.set(pk, [i]);
  }
  const get = (pk: string, sk: string) => items.get(`${pk} ${sk}`);
  const partition = (pk: string) => byPk.get(pk) ?? [];
  /** Items whose pk starts with `prefix` and matches `re` (when given). */
  const family = (prefix: string, re?: RegExp) => all.filter((i) => String(i.pk).startsWith(prefix) && (!re || re.test(String(i.pk))));

  // ---- Records, counters, claims, slots
  const records = new Map<string, Map<string, Item>>(COUNTED.concat('REVIEW').map((k) => [k, new Map()]));
  for (const i of all) {
    const m = /^([A-Z]+)#([A-Za-z0-9_-]+)$/.exec(String(i.pk));
    if (m && i.sk === 'R' && RECORD_KINDS.has(m[1]!)) records.get(m[1]!)!.set(m[2]!, i);
  }
  const rec = (kind: string, id: string) => records.get(kind)!.get(id)?.rec as Record<string, unknown> | undefined;
  for (const kind of COUNTED) {
    const n = num(get(`${kind}#N`, 'N')?.n);
    if (n !== records.get(kind)!.size) problem(`${kind}#N holds ${n}, ${records.get(kind)!.size} records`);
  }
  for (const def of [...RECORD_ENTITIES, ...TITLE_ENTITIES]) {
    for (const u of def.unique ?? []) {
      const prefix = `${def.kind}#U#${u.field}#`;
      const claims = new Map(family(prefix).map((c) => [String(c.pk).slice(prefix.length), c]));
      for (const [id, item] of records.get(def.kind)!) {
        const key = u.key(item.rec as BaseRecord);
        // An unset optional unique field (an external id) claims nothing.
        if (key === null) continue;
        const claim = claims.get(key);
        if (claim?.id !== id) problem(`${def.kind} ${id}: its ${u.field} claim ${key} names ${String(claim?.id)}`);
        else if (u.carry && (!same(claim.rec, item.rec) || num(claim.rev) !== num(item.rev))) problem(`${def.kind} ${id}: its ${u.field} claim carries revision ${String(claim.rev)}, the record is at ${String(item.rev)}`);
        claims.delete(key);
      }
      for (const [key, c] of claims) problem(`${def.kind} ${u.field} claim ${key} names ${String(c.id)}, which does not hold it`);
    }
  }
  for (const kind of SLOTTED) {
    const slots = partition(`${kind}#SLOT`);
    const n = num(get(`${kind}#N`, 'N')?.n);
    const numbers = slots.map((s) => Number(s.sk)).sort((a, b) => a - b);
    if (!same(numbers, Array.from({ length: n }, (_, i) => i + 1))) problem(`${kind} slots ${numbers.join(',')} are not 1..${n}`);
    const named = new Set<string>();
    for (const s of slots) {
      const r = records.get(kind)!.get(String(s.id));
      if (!r) problem(`${kind} slot ${String(s.sk)} names ${String(s.id)}, which is gone`);
      else if (num(r.slot) !== Number(s.sk)) problem(`${kind} slot ${String(s.sk)} names ${String(s.id)}, whose slot is ${String(r.slot)}`);
      named.add(String(s.id));
    }
    for (const [id, r] of records.get(kind)!) if (!named.has(id)) problem(`${kind} ${id} (slot ${String(r.slot)}) is in no slot`);
  }

  // ---- Ordering entries (records.ts) and index items (catalogue-index.ts): exactly the records'
  const compareDerived = (what: string, stored: Item[], expected: Item[]) => {
    const want = new Map(expected.map((i) => [`${String(i.pk)} ${String(i.sk)}`, i]));
    for (const s of stored) {
      const key = `${String(s.pk)} ${String(s.sk)}`;
      const e = want.get(key);
      if (!e) problem(`${what}: ${key} derives from no record`);
      else if (!same(s, e)) problem(`${what}: ${key} differs from its record's`);
      want.delete(key);
    }
    for (const key of want.keys()) problem(`${what}: ${key} is missing`);
  };
  for (const def of RECORD_ENTITIES) {
    compareDerived(`${def.kind} ordering entries`, family(`${def.kind}#O#`), [...records.get(def.kind)!.values()].flatMap((r) => orderingItems(def, r.rec as BaseRecord)));
  }
  for (const def of INDEXES) {
    for (const f of ['O', 'P', 'W', 'L', 'C']) for (const i of family(`${def.kind}#${f}#`)) problem(`${def.kind} index: ${String(i.pk)} ${String(i.sk)} is an item of the planner's index`);
    for (const i of family(`${def.kind}#D#`)) problem(`${def.kind} index: ${String(i.pk)} ${String(i.sk)} is a digest item (the vectors carry the entries)`);
    // The in-memory index: the published vectors, then the deltas after the pointer, in order.
    const part = partition(indexPk(def.kind));
    const pointer = part.find((i) => i.sk === 'P');
    const deltas = part.filter((i) => String(i.sk).startsWith('D#')).sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1));
    const numbers = deltas.map((d) => Number(String(d.sk).slice(2)));
    if (numbers.some((n, i) => i > 0 && n !== numbers[i - 1]! + 1)) problem(`${def.kind} index: its deltas are not numbered without gaps (${numbers.join(',')})`);
    const from = num(pointer?.seq);
    if (numbers.length > 0 && numbers[0]! > from + 1) problem(`${def.kind} index: deltas ${from + 1}–${numbers[0]! - 1} after the pointer are gone`);
    if (pointer && !published?.has(def.kind)) continue;
    const view = new Map<string, Vector>(published?.get(def.kind) ?? []);
    for (const d of deltas) {
      if (Number(String(d.sk).slice(2)) <= from) continue;
      if (d.v) view.set(String(d.id), d.v as Vector);
      else view.delete(String(d.id));
    }
    for (const [id, r] of records.get(def.kind)!) {
      const v = view.get(id);
      if (!v) problem(`${def.kind} index: ${id} is missing`);
      else if (!same(v, vectorOf(def, r.rec as BaseRecord))) problem(`${def.kind} index: ${id} differs from its record's vector`);
      view.delete(id);
    }
    for (const id of view.keys()) problem(`${def.kind} index: ${id} has no record`);
  }

  // ---- Lists, list items and the titles' counters
  for (const kind of PLAYLISTS) recountLists(kind);
  function recountLists(kind: PlaylistKind) {
    const titleKind = kind.titleKind;
    const counters = new Map<string, Record<string, number>>();
    const listed = new Map<string, Item>();
    for (const [id] of records.get(titleKind)!) counters.set(id, {});
    const add = (t: string, k: string) => {
      const c = counters.get(t);
      if (c) c[k] = (c[k] ?? 0) + 1;
    };
    const owners = new Set<string>();
    for (const i of family(`${kind.store}#`, new RegExp(`^${kind.store}#[^#]+$`))) owners.add(String(i.pk).slice(kind.store.length + 1));
    for (const v of family(`${kind.store}#`, /#V$/)) owners.add(String(v.pk).slice(kind.store.length + 1, -2));
    for (const user of owners) {
      if (!records.get('USER')!.has(user)) problem(`${kind.store} of ${user}: the account is gone`);
      const pk = `${kind.store}#${user}`;
      const part = partition(pk);
      const listItems = part.filter((i) => String(i.sk).startsWith('I#'));
      const claims = new Map(part.filter((i) => String(i.sk).startsWith('T#')).map((c) => [String(c.sk).slice(2), c]));
      const vectors = new Map(partition(`${pk}#V`).map((v) => [String(v.sk), v]));
      const counts: Record<string, number> = {};
      for (const item of listItems) {
        const r = item.rec as Record<string, unknown> & BaseRecord;
        const title = String(r[kind.idField]);
        const t = rec(titleKind, title);
        if (!t) problem(`${kind.store} item ${r.id} of ${user}: ${titleKind} ${title} is gone`);
        else if (r.title_name !== t.name) problem(`${kind.store} item ${r.id}: title_name ${String(r.title_name)}, the title is named ${String(t.name)}`);
        counts[String(r.status)] = (counts[String(r.status)] ?? 0) + 1;
        add(title, String(r.status));
        if (num(r.score) >= 1) add(title, `s${num(r.score)}`);
        if (r.is_favorite === true) add(title, 'favorites');
        if (claims.get(title)?.id !== r.id) problem(`${kind.store} item ${r.id} of ${user}: the claim of ${title} names ${String(claims.get(title)?.id)}`);
        claims.delete(title);
        const v = vectors.get(r.id);
        if (!v || !same({ ...v, pk: undefined, sk: undefined }, { ...vectorOf(itemIndex(kind), r), pk: undefined, sk: undefined })) problem(`${kind.store} item ${r.id} of ${user}: its vector is ${v ? 'stale' : 'missing'}`);
        vectors.delete(r.id);
        listed.set(`${titleKind}#${title}#L ${user}`, { item: r.id, score: r.score, fav: r.is_favorite });
      }
      for (const [title, c] of claims) problem(`${kind.store} of ${user}: a claim of ${title} names item ${String(c.id)}, which is not there`);
      for (const id of vectors.keys()) problem(`${kind.store} of ${user}: a vector of item ${id}, which is not there`);
      const list = get(pk, 'R');
      for (const status of kind.statuses) {
        if (num(list?.[`n_${status}`]) !== (counts[status] ?? 0)) problem(`${kind.store} of ${user}: n_${status} = ${num(list?.[`n_${status}`])}, ${counts[status] ?? 0} items`);
      }
    }
    for (const [id, item] of records.get(titleKind)!) {
      const want = counters.get(id)!;
      for (const k of [...kind.statuses, ...SCORES.map((s) => `s${s}`), 'favorites']) {
        if (num(item[`st_${k}`]) !== (want[k] ?? 0)) problem(`${titleKind} ${id}: st_${k} = ${num(item[`st_${k}`])}, the items count ${want[k] ?? 0}`);
      }
    }
    for (const p of family(`${titleKind}#`, /#L$/)) {
      const key = `${String(p.pk)} ${String(p.sk)}`;
      const want = listed.get(key);
      if (!want) problem(`listed posting ${key}: no such item`);
      else if (p.item !== want.item || num(p.score) !== num(want.score) || p.fav !== want.fav) problem(`listed posting ${key}: ${JSON.stringify([p.item, p.score, p.fav])}, the item has ${JSON.stringify([want.item, want.score, want.fav])}`);
      listed.delete(key);
    }
    for (const key of listed.keys()) problem(`listed posting ${key} is missing`);
  }

  // ---- Reviews
  const reviews = records.get('REVIEW')!;
  const votesOf = new Map<string, string[]>();
  for (const v of family('REVIEW#')) if (String(v.sk).startsWith('V#')) votesOf.set(String(v.pk).slice(7), [...(votesOf.get(String(v.pk).slice(7)) ?? []), String(v.sk).slice(2)]);
  /** Expected counts items of the review lists (`REVIEWS#K#T`, `REVIEWS#USER#U` / `N`): attribute → reviews. */
  const listCounts = new Map<string, Record<string, number>>();
  const countIn = (pk: string, attrs: string[]) => {
    const c = listCounts.get(pk) ?? {};
    for (const a of attrs) c[a] = (c[a] ?? 0) + 1;
    listCounts.set(pk, c);
  };
  const expectedDerived = new Set<string>();
  for (const [id, item] of reviews) {
    const r = item.rec as ReviewRecord;
    const hc = num(item.hc);
    const voters = votesOf.get(id) ?? [];
    votesOf.delete(id);
    if (hc !== voters.length) problem(`review ${id}: hc = ${hc}, ${voters.length} votes`);
    if (!records.get('USER')!.has(r.user_id)) problem(`review ${id}: its author ${r.user_id} is gone`);
    if (!rec(r.kind.toUpperCase(), r.title_id)) problem(`review ${id}: its ${r.kind} ${r.title_id} is gone`);
    const titleKind = r.kind.toUpperCase();
    // Counts: every review; without spoilers the non-spoiler ones; a user's also per kind.
    const spoilerless = r.is_spoiler ? [] : ['ns'];
    countIn(`REVIEWS#${titleKind}#${r.title_id}`, ['n', ...spoilerless]);
    countIn(`REVIEWS#USER#${r.user_id}`, ['n', `n_${r.kind}`, ...spoilerless.flatMap((a) => [a, `${a}_${r.kind}`])]);
    const entries = listEntriesOf(reviewKindOf(titleKind)!, { record: r, rev: num(item.rev), helpful: hc });
    const derived: [string, string, Record<string, unknown> | null][] = [
      ...entries.map((e): [string, string, Record<string, unknown>] => [String(e.pk), String(e.sk), e]),
      [`REVIEWS#USER#${r.user_id}`, `T#${titleKind}#${r.title_id}`, { id, sp: r.is_spoiler }],
      ['REVIEWS#TOP', topKey(r, hc), { id, k: r.kind, sp: r.is_spoiler, t: r.title_id, u: r.user_id }],
      ...(r.is_spoiler ? [] : ([[`REVIEWS#RECENT#${titleKind}`, `${r.created_at}#${id}`, { id, k: r.kind, t: r.title_id, u: r.user_id }]] as [string, string, Record<string, unknown>][])),
      ...voters.map((voter): [string, string, null] => [`REVIEWS#VOTER#${voter}`, id, null]),
    ];
    for (const [pk, sk, want] of derived) {
      expectedDerived.add(`${pk} ${sk}`);
      const s = get(pk, sk);
      if (!s) problem(`review ${id}: ${pk} ${sk} is missing`);
      else if (want && !same({ ...s, pk: undefined, sk: undefined }, { ...want, pk: undefined, sk: undefined })) problem(`review ${id}: ${pk} ${sk} is stale`);
    }
  }
  for (const [review, voters] of votesOf) problem(`${voters.length} votes on review ${review}, which is gone`);
  for (const i of family('REVIEWS#')) {
    const key = `${String(i.pk)} ${String(i.sk)}`;
    if (i.sk === 'N' && /^REVIEWS#(USER|ANIME|MANGA)#[^#]+$/.test(String(i.pk))) {
      // A list's counts: each attribute = its reviews (an attribute at 0 may stay; the item goes with the account or title).
      const want = listCounts.get(String(i.pk)) ?? {};
      for (const attr of new Set([...Object.keys(want), ...Object.keys(i).filter((a) => /^ns?(_\w+)?$/.test(a))])) {
        if (num(i[attr]) !== (want[attr] ?? 0)) problem(`review counts ${String(i.pk)}: ${attr} = ${num(i[attr])}, ${want[attr] ?? 0} reviews`);
      }
      listCounts.delete(String(i.pk));
    } else if (!expectedDerived.has(key)) problem(`review item ${key} derives from no review`);
  }
  for (const [pk, c] of listCounts) problem(`review counts ${pk} are missing (${JSON.stringify(c)})`);

  // ---- Taxonomy counts and embedded references
  const want = new Map<string, Record<string, number>>();
  const count = (kind: string, id: string, attr: string) => {
    const k = `${kind}#${id}`;
    const c = want.get(k) ?? {};
    c[attr] = (c[attr] ?? 0) + 1;
    want.set(k, c);
  };
  const checkRefs = (what: string, refs: readonly Ref[], kind: string) => {
    for (const ref of refs) {
      const target = rec(kind, ref.id);
      if (!target) problem(`${what} names ${kind} ${ref.id}, which is gone`);
      else if (target.name !== ref.name) problem(`${what} names ${kind} ${ref.id} "${ref.name}", now "${String(target.name)}"`);
    }
  };
  for (const [id, item] of records.get('ANIME')!) {
    const r = item.rec as Record<string, Ref[]>;
    for (const g of r.genres!) count('GENRE', g.id, 'anime_count');
    for (const t of r.themes!) count('THEME', t.id, 'anime_count');
    const credited = new Set<string>();
    for (const role of ['studio', 'producer', 'licensor']) {
      for (const p of r[`${role}s`]!) {
        count('PRODUCER', p.id, `${role}_credits`);
        credited.add(p.id);
      }
    }
    for (const p of credited) count('PRODUCER', p, 'anime_count');
    for (const [field, kind] of [['genres', 'GENRE'], ['themes', 'THEME'], ['studios', 'PRODUCER'], ['producers', 'PRODUCER'], ['licensors', 'PRODUCER']] as const) checkRefs(`ANIME ${id} ${field}`, r[field]!, kind);
  }
  for (const [id, item] of records.get('MANGA')!) {
    const r = item.rec as Record<string, Ref[]>;
    for (const [field, kind] of [['genres', 'GENRE'], ['themes', 'THEME'], ['demographics', 'DEMOGRAPHIC'], ['serializations', 'MAGAZINE']] as const) {
      for (const ref of r[field]!) count(kind, ref.id, 'manga_count');
      checkRefs(`MANGA ${id} ${field}`, r[field]!, kind);
    }
    checkRefs(`MANGA ${id} authors`, r.authors!, 'PERSON');
  }
  for (const [id, item] of records.get('NEWS')!) {
    const r = item.rec as Record<string, Ref[]>;
    checkRefs(`NEWS ${id} animes`, r.animes!, 'ANIME');
    checkRefs(`NEWS ${id} mangas`, r.mangas!, 'MANGA');
  }
  for (const kind of ['GENRE', 'THEME']) {
    for (const [id, item] of records.get(kind)!) {
      const explicit = (item.rec as { explicit?: unknown }).explicit;
      if (typeof explicit !== 'boolean') problem(`${kind} ${id}: explicit is ${String(explicit)}, not a boolean`);
      // The shards that name explicit records (checked below, shard by shard) must exist.
      if (explicit === true) for (let n = 0; n < TOMBSTONE_SHARDS; n++) if (!get('DELETED', String(n))) problem(`${kind} ${id} is explicit but tombstone shard ${n} does not exist`);
    }
  }
  for (const kind of ['GENRE', 'THEME', 'DEMOGRAPHIC', 'MAGAZINE', 'PRODUCER']) {
    for (const [id, item] of records.get(kind)!) {
      const w = want.get(`${kind}#${id}`) ?? {};
      const r = item.rec as Record<string, unknown>;
      const priv = (item.priv ?? {}) as Record<string, unknown>;
      for (const attr of ['anime_count', 'manga_count']) if (attr in r && num(r[attr]) !== (w[attr] ?? 0)) problem(`${kind} ${id}: ${attr} = ${num(r[attr])}, ${w[attr] ?? 0} titles link it`);
      if (kind === 'PRODUCER') {
        for (const role of ['studio', 'producer', 'licensor']) if (num(priv[`${role}_credits`]) !== (w[`${role}_credits`] ?? 0)) problem(`PRODUCER ${id}: ${role}_credits = ${num(priv[`${role}_credits`])}, ${w[`${role}_credits`] ?? 0} animes credit it`);
      }
    }
  }

  // ---- Reverse items (voice groups among them), fan-outs and appearances
  const names = new Map<string, string>();
  for (const kind of ['CHARACTER', 'PERSON']) for (const [id, item] of records.get(kind)!) names.set(`${kind}#${id}`, String((item.rec as { name: string }).name));
  const desired: Item[] = [];
  const fanOuts: Item[] = [];
  for (const kind of ['ANIME', 'MANGA'] as const) {
    for (const [id, item] of records.get(kind)!) {
      const relations: Record<string, unknown[]> = {};
      const chunks = partition(`${kind}#${id}`)
        .filter((c) => String(c.sk).startsWith('C#'))
        .sort((a, b) => Number(String(a.sk).split('#')[2]) - Number(String(b.sk).split('#')[2]));
      for (const c of chunks) (relations[String(c.sk).split('#')[1]!] ??= []).push(...(c.entries as unknown[]));
      const state = reverseStateOf({ kind, record: item.rec as { id: string; name: string; aired_from?: string | null }, relations }, names);
      desired.push(...[...reverseItems(state).values()].map((r) => ({ ...r }) as Item));
      fanOuts.push(...fanOutItems(state));
    }
  }
  // A voice group written before schema version 5 keeps the hash its counts' transactions were guarded by (decision O17): not read.
  const withoutHash = (i: Item) => (String(i.sk).startsWith('VA#') ? Object.fromEntries(Object.entries(i).filter(([k]) => k !== 'h')) : i);
  // The items version 4 kept for voices/ (ordering entries `PERSON#<p>#V#…`, counts VN and VC#) are extra ones here.
  compareDerived('reverse items', family('', /^((CHARACTER|PERSON)#[^#]+#X|PERSON#[^#]+#V#.+)$/).map(withoutHash), desired);
  compareDerived('fan-outs', family('', /^(ANIME|MANGA)#[^#]+#F$/), fanOuts);
  for (const [id, item] of records.get('CHARACTER')!) {
    const tokens = appearanceTokens(desired.filter((d) => d.pk === `CHARACTER#${id}#X`) as never);
    const stored = ((item.rec as { appearances?: string[] }).appearances ?? []).join(' ');
    if (tokens.join(' ') !== stored) problem(`CHARACTER ${id}: appearances "${stored}", its reverse items give "${tokens.join(' ')}"`);
  }

  // ---- Nothing half-done or orphaned
  for (const i of all) {
    const pk = String(i.pk);
    const sk = String(i.sk);
    // A journal is unfinished when its write made the record's revision (or deleted it: the marker
    // names it); others are inert leftovers of writes that never committed (staged.ts).
    const writer = get(pk, 'R') ?? get(pk, 'W');
    if (sk.startsWith('J#') && writer && num(writer.rev) === num(i.rev) && writer.write === i.write) problem(`journal item ${pk} ${sk} left (a staged write not finished)`);
    if (sk === 'W' && !get(pk, 'R')) problem(`deletion marker ${pk} left (a staged deletion not finished)`);
    if (pk.startsWith('CASCADE#')) problem(`cascade ${pk} still pending`);
    const pending = Object.entries(i).filter(([k, v]) => !k.startsWith('EXPLICIT#') && v instanceof Set && v.size > 0);
    if (pk === 'DELETED' && pending.length > 0) problem(`tombstone shard ${sk} still names ${JSON.stringify(Object.fromEntries(pending.map(([k, v]) => [k, [...(v as Set<string>)]])))}`);
    // Every shard names exactly the explicit genres and themes (API.md §8.3).
    if (pk === 'DELETED') {
      for (const kind of ['GENRE', 'THEME']) {
        const named = [...((i[`EXPLICIT#${kind}`] as Set<string> | undefined) ?? [])].sort().join(' ');
        const explicit = [...records.get(kind)!].filter(([, r]) => (r.rec as { explicit?: unknown }).explicit === true).map(([id]) => id).sort().join(' ');
        if (named !== explicit) problem(`tombstone shard ${sk}: explicit ${kind}s "${named}", the records say "${explicit}"`);
      }
    }
    const chunk = /^(ANIME|MANGA|CHARACTER|PERSON|NEWS)#([A-Za-z0-9_-]+)$/.exec(pk);
    if (chunk && sk.startsWith('C#') && !records.get(chunk[1]!)!.has(chunk[2]!)) problem(`chunk ${pk} ${sk} of a record that is gone`);
  }
  // ---- Idempotency-Keys (shared/db/idempotency.ts): each item a claim or a stored answer, with
  // nothing readable of its request or answer (a fingerprint and a sealed outcome); an answer is
  // a creation's or a kept refusal (API.md §8.7: never a 5xx, 409 or 429).
  const CLAIM = 'expires_at fp lease lease_until pk sk state';
  const ANSWER = 'expires_at fp pk sealed sk state status';
  for (const i of family('IDEM#')) {
    const attributes = Object.keys(i).sort().join(' ');
    const status = num(i.status);
    if (!/^IDEM#[A-Za-z0-9_-]{43}$/.test(String(i.pk)) || i.sk !== 'I') problem(`idempotency item ${String(i.pk)} ${String(i.sk)}: not a key's`);
    else if (i.state === 'pending' ? attributes !== CLAIM : i.state !== 'done' || attributes !== ANSWER) problem(`idempotency item ${String(i.pk)}: ${String(i.state)} with ${attributes}`);
    else if (i.state === 'done' && !(status >= 200 && status < 500 && status !== 409 && status !== 429)) problem(`idempotency item ${String(i.pk)}: a ${status} stored`);
  }

  // ---- Recommendation lists: a run removes the versions the run before it superseded and the
  // lists that became empty (those whose visible version was already visible when it started,
  // `prev`); a title's cascade removes its list.
  const job = get('RECS#JOB', 'R');
  const [done, prev] = [num(job?.done), num(job?.prev)];
  for (const i of family('RECS#', /^RECS#(ANIME|MANGA)#[^#]+$/)) {
    const [, kind, id] = String(i.pk).split('#') as [string, string, string];
    if (!rec(kind, id)) problem(`recommendations of ${kind} ${id}, which is gone`);
    const versions = ((i.v ?? []) as { n: unknown; b: unknown[] }[]).map((v) => ({ n: num(v.n), b: v.b })).sort((a, b) => a.n - b.n);
    const visible = versions.filter((v) => v.n <= done).at(-1);
    if (!visible || visible.n > prev) continue;
    if (versions.some((v) => v.n < visible.n)) problem(`recommendations of ${kind} ${id}: a version superseded before the last run (${versions.map((v) => v.n).join(', ')}; done ${done}, before it ${prev})`);
    if (visible.b.length === 0 && versions.at(-1) === visible) problem(`recommendations of ${kind} ${id}: an empty list the last run left`);
  }

  for (const [id, user] of records.get('USER')!) {
    const auth = get(`AUTH#${id}`, 'A');
    if (!auth) problem(`USER ${id} has no auth state`);
    else if (auth.username !== (user.rec as { username: string }).username) problem(`USER ${id}: its auth state says ${String(auth.username)}`);
  }
  for (const a of family('AUTH#')) if (!records.get('USER')!.has(String(a.pk).slice(5))) problem(`auth state ${String(a.pk)} of an account that is gone`);
  for (const [id, item] of records.get('PROFILE')!) {
    const p = item.rec as { user: { id: string; username: string } };
    const u = rec('USER', p.user.id);
    if (!u) problem(`PROFILE ${id}: its user ${p.user.id} is gone`);
    else if (u.username !== p.user.username) problem(`PROFILE ${id}: username ${p.user.username}, the user's is ${String(u.username)}`);
  }
  return problems;
}

/**
 * Waits for the stream consumers to catch up (`streams`: the file's poller; without it, for the
 * table to stop changing), then asserts that the table agrees with a recount; returns its items.
 */
export async function expectRecount(streams?: StreamPoller, table = tableName()): Promise<Map<string, Item>> {
  // The test runner is imported where it is used, so the benchmark can use recount() outside it.
  const { expect } = await import('vitest');
  let items: Map<string, Item>;
  if (streams) {
    await streams.caughtUp();
    items = await scanAll(table);
    // The change feed's sequencer is among the consumers: every change numbered, without gaps (§8.5).
    if ('feed' in streams.stats()) expect(feedProblems(items), 'the change feed').toEqual([]);
  } else items = await settled(table);
  expect(recount(items, await publishedVectors(items))).toEqual([]);
  return items;
}

/**
 * What each title kind's index holds for the items (a store's scan): the published vectors with
 * the deltas after the pointer applied, by kind and id — what a list function starting now sees.
 */
export async function indexViews(items: ReadonlyMap<string, Item>): Promise<Map<string, Map<string, Vector>>> {
  const published = await publishedVectors(items);
  const out = new Map<string, Map<string, Vector>>();
  for (const def of INDEXES) {
    const view = new Map(published.get(def.kind) ?? []);
    const from = num(items.get(`${indexPk(def.kind)} P`)?.seq);
    const deltas = [...items.values()].filter((i) => i.pk === indexPk(def.kind) && String(i.sk).startsWith('D#') && Number(String(i.sk).slice(2)) > from);
    for (const d of deltas.sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))) {
      if (d.v) view.set(String(d.id), d.v as Vector);
      else view.delete(String(d.id));
    }
    out.set(def.kind, view);
  }
  return out;
}

/** The vectors of each kind's current snapshot, as the pointers among `items` name them (from the index bucket). */
export async function publishedVectors(items: ReadonlyMap<string, Item>): Promise<Map<string, Map<string, Vector>>> {
  const out = new Map<string, Map<string, Vector>>();
  for (const def of INDEXES) {
    const p = items.get(`${indexPk(def.kind)} P`);
    if (p) out.set(def.kind, await loadVectors(def.kind, { version: num(p.version), seq: num(p.seq), name: String(p.name), at: String(p.at) }));
  }
  return out;
}

/**
 * The numbers as the API shows them, recounted from what each user's list shows (every user
 * who may list the titles, each with at most 100 items): a title's stats, its detail's members,
 * scored_by, score and favorites, and each list's counts.
 */
export async function expectApiRecount(server: TestServer, listers: readonly Record<string, string>[], titleIds: readonly string[]): Promise<void> {
  const [{ expect }, { expectJson }] = await Promise.all([import('vitest'), import('./contract.js')]);
  const ITEMS = '/api/playlists/animelist/animes/';
  const statuses = ANIME_LIST.statuses;
  const expected = new Map(titleIds.map((t) => [t, { counts: Object.fromEntries(statuses.map((s) => [s, 0])) as Record<string, number>, votes: Array(11).fill(0) as number[], favorites: 0 }]));
  for (const auth of listers) {
    const page = expectJson(await send(server, 'GET', `${ITEMS}?limit=100`, { headers: auth }), 200);
    expect(page.next).toBeNull();
    const mine = Object.fromEntries(statuses.map((s) => [s, 0]));
    for (const item of page.results) {
      const e = expected.get(item.anime.id);
      if (e) {
        e.counts[item.status]! += 1;
        e.votes[item.score]! += 1;
        if (item.is_favorite) e.favorites += 1;
      }
      mine[item.status]! += 1;
    }
    const list = expectJson(await send(server, 'GET', '/api/playlists/animelist/', { headers: auth }), 200);
    expect(list.counts).toEqual({ ...mine, total: page.results.length });
    expect(page.count).toBe(page.results.length);
  }
  for (const id of titleIds) {
    const e = expected.get(id)!;
    const scoredBy = e.votes.slice(1).reduce((a, b) => a + b, 0);
    const sum = e.votes.reduce((a, n, s) => a + n * s, 0);
    const score = scoredBy === 0 ? null : Math.floor((200 * sum + scoredBy) / (2 * scoredBy)) / 100;
    const members = Object.values(e.counts).reduce((a, b) => a + b, 0);
    const stats = expectJson(await send(server, 'GET', `/api/animes/${id}/stats/`), 200);
    expect(stats).toMatchObject({ ...e.counts, total: members, scored_by: scoredBy, score });
    expect(stats.scores.map((s: { votes: number }) => s.votes)).toEqual(e.votes.slice(1));
    expect(expectJson(await send(server, 'GET', `/api/animes/${id}/`), 200)).toMatchObject({ members, scored_by: scoredBy, score, favorites: e.favorites });
  }
}
