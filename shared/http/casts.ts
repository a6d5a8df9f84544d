/**
 * Sub-resource lists of the records a title's written arrays name (API.md §4.1.2, §4.7): an
 * anime's `characters/` (with their voice actors) and `staff/`, a manga's `characters/`. The
 * array is read whole (the parent's existence, its chunks and the tombstones: three reads in
 * parallel); entries naming records deleted since are left out; the records shown are read with
 * the page (one BatchGetItem per 100), or all of them first when the ordering is one of their
 * fields (`name`, `favorites`: at most 500 entries, five BatchGetItems in parallel). `count` is
 * exact. Character and person cards are read, never copied, so renames show at once.
 */
import { animeTitle } from '../db/animes.js';
import { titleRecordOf } from '../db/titles.js';
import { getItems, type Item } from '../db/batch.js';
import { pageOf } from '../db/catalogue-index.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { recordKeyOfKind, type BaseRecord } from '../db/records.js';
import { sortKey, type OrderType, type OrderValue } from '../db/sort-keys.js';
import { readRelation, type TitleDef } from '../db/titles.js';
import { voiceCount, voiceCountsKey, voiceCountWhileDeleting, voicePage } from '../db/reverse.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from '../problem.js';
import { inShapeOrder } from './represent.js';

type Rec = Record<string, unknown> & { id: string };

export interface CastListing<E> {
  title: TitleDef<BaseRecord>;
  relation: string;
  noun: string;
  /** The kind of the record an entry names, and its id. */
  kind: string;
  idOf(e: E): string;
  /** Orderings: by the entry's position, or by a field of the record it names. */
  orderings: Record<string, { position: true } | { field: string; type: OrderType }>;
  /** Equality filters: query parameter → the entry's value. */
  filters?: Record<string, (e: E) => string>;
  /** The fields of the record shown (its list item shape). */
  shape: readonly string[];
  /** Records each entry also shows (voice actors): their kind and ids; absent and deleted ones are left out. */
  also?: { kind: string; ids(e: E): string[] };
  /** The entry's own fields added to the record (`role`, `voice_actors`, `positions`). */
  extra(e: E, also: (id: string) => Rec | null): Record<string, unknown>;
}

export function castList<E>(listing: CastListing<E>): Operation {
  return async (req) => {
    const q = req.query as unknown as Record<string, unknown> & { ordering: { key: string; descending: boolean } };
    const [entries, [tomb]] = await Promise.all([
      readRelation(listing.title, (req.params as { id: string }).id, listing.relation) as Promise<E[] | null>,
      getItems([tombstoneKey(req.requestId)]),
    ]);
    if (!entries) throw notFound(`No ${listing.noun} with this id.`);
    const deleted = new Deleted(tomb);
    let kept = entries
      .map((e, position) => ({ e, position, id: listing.idOf(e) }))
      .filter(({ e, id }) => !deleted.has(listing.kind, id) && Object.entries(listing.filters ?? {}).every(([param, value]) => q[param] === undefined || value(e) === q[param]));
    const ordering = listing.orderings[q.ordering.key]!;
    const dir = q.ordering.descending ? 'desc' : 'asc';
    const records = new Map<string, Rec>();
    const read = async (kind: string, ids: readonly string[], into: Map<string, Rec>) => {
      const items = await getItems(ids.map((id) => recordKeyOfKind(kind, id)));
      items.forEach((i: Item | null, n) => i && into.set(ids[n]!, i.rec as Rec));
    };
    if (!('position' in ordering)) {
      await read(listing.kind, kept.map((k) => k.id), records);
      // A record deleted after its tombstone was cleared is gone from the title too (the consumer removed it).
      kept = kept.filter((k) => records.has(k.id));
    }
    const sorted = kept
      .map((k) => ({ ...k, sk: sortKey(('position' in ordering ? k.position : (records.get(k.id)![ordering.field] as OrderValue)) ?? null, 'position' in ordering ? 'count' : ordering.type, k.id, dir) }))
      .sort((a, b) => compareCodePoints(a.sk, b.sk) * (q.ordering.descending ? -1 : 1));
    const page = pageOf(sorted, q.ordering.descending, pageLimit(req), req.query.cursor ?? null);
    const also = new Map<string, Rec>();
    const alsoIds = listing.also ? [...new Set(page.kept.flatMap((k) => listing.also!.ids(k.e)))].filter((id) => !deleted.has(listing.also!.kind, id)) : [];
    await Promise.all([
      read(listing.kind, page.kept.map((k) => k.id).filter((id) => !records.has(id)), records),
      ...(listing.also ? [read(listing.also.kind, alsoIds, also)] : []),
    ]);
    const items = page.kept
      .filter((k) => records.has(k.id))
      .map((k) => ({ ...inShapeOrder(records.get(k.id)!, listing.shape), ...listing.extra(k.e, (id) => also.get(id) ?? null) }));
    return pageReply(req, { items, next: page.next, previous: page.previous }, sorted.length);
  };
}

/** Queries more a backward page of voices/ may make when what it read was all hidden by tombstones. */
const BACKWARD_READS_ON = 4;

/**
 * `GET /api/persons/{id}/voices/` (API.md §4.9): one entry per (anime, character, language) the
 * person voices. Two rounds whatever the person's number of voices (decision N1): the person,
 * the tombstones and the person's voice counts (one BatchGetItem) with the page (one Query of the
 * ordering's partition from the cursor: `limit + 1` entries, or with `language`/`role` at most
 * readBudget(limit) evaluated — a page may then be short, §1.5); then the page's anime and
 * character cards, read, never copied, so names, images and `score` are current (one
 * BatchGetItem per 100 keys, in parallel) and — only while a deletion of an anime or a
 * character is pending — the counts again with what the exact `count` leaves out, in one
 * snapshot (voiceCountWhileDeleting).
 */
export function voicesList(cards: { anime: readonly string[]; character: readonly string[] }): Operation {
  return async (req) => {
    const q = req.query as unknown as { ordering: { key: string; descending: boolean }; language?: string; role?: string };
    const id = (req.params as { id: string }).id;
    const filter = { language: q.language, role: q.role };
    const cursor = req.query.cursor ?? null;
    const read = (from: typeof cursor) => voicePage(id, { ordering: q.ordering.key, descending: q.ordering.descending, limit: pageLimit(req), cursor: from, ...filter });
    const [[person, tomb, counts], first] = await Promise.all([getItems([recordKeyOfKind('PERSON', id), tombstoneKey(req.requestId), voiceCountsKey(id)]), read(cursor)]);
    let page = first;
    if (!person) throw notFound('No person with this id.');
    const deleted = new Deleted(tomb);
    const gone = { animes: deleted.ids('ANIME'), characters: deleted.ids('CHARACTER') };
    // Entries of records deleted a moment ago stay until the consumer removes them: left out here.
    const visible = () => page.items.map((i) => i.value).filter((v) => !deleted.has('ANIME', v.anime) && !deleted.has('CHARACTER', v.character));
    let kept = visible();
    // A page read backwards is empty only when nothing precedes it (§1.5): one whose entries
    // were all of such records reads on, at most BACKWARD_READS_ON more Queries.
    for (let n = 0; n < BACKWARD_READS_ON && kept.length === 0 && cursor?.d === 'p' && page.items.length > 0 && page.previous; n++) {
      page = await read(page.previous);
      kept = visible();
    }
    const animeIds = [...new Set(kept.map((v) => v.anime))];
    const characterIds = [...new Set(kept.map((v) => v.character))];
    const pending = gone.animes.length + gone.characters.length > 0;
    const [found, count] = await Promise.all([
      getItems([...animeIds.map((a) => recordKeyOfKind('ANIME', a)), ...characterIds.map((c) => recordKeyOfKind('CHARACTER', c))]),
      pending ? voiceCountWhileDeleting(id, gone, filter) : voiceCount(counts ?? null, [], gone, filter),
    ]);
    // Animes show their counters' numbers (the card's `score`).
    const recs = new Map(found.filter((f): f is Item => f !== null).map((f) => [String(f.pk), String(f.pk).startsWith('ANIME#') ? titleRecordOf(animeTitle, f) as unknown as Rec : (f.rec as Rec)]));
    const results = kept.flatMap((v) => {
      const anime = recs.get(`ANIME#${v.anime}`);
      const character = recs.get(`CHARACTER#${v.character}`);
      return anime && character ? [{ character: inShapeOrder(character, cards.character), anime: inShapeOrder(anime, cards.anime), role: v.role, language: v.language }] : [];
    });
    return pageReply(req, { items: results, next: page.next, previous: page.previous }, count);
  };
}
