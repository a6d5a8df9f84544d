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
import { recordKeyOfKind } from '../db/records.js';
import { sortKey, type OrderValue } from '../db/sort-keys.js';
import { readRelation } from '../db/titles.js';
import { readVoices, sortVoices, VOICE_ORDERINGS, type VoiceEntry } from '../db/reverse.js';
import { indexLookup } from '../domain/index-reader.js';
import { INDEXED } from '../domain/index-kinds.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import type { Operation } from './handler.js';
import { pageLimit, pageReply } from './page.js';
import { notFound } from '../problem.js';
import { inShapeOrder } from './represent.js';
import type { CastListing, ListedRecord } from '../domain/listings.js';

type Rec = ListedRecord;


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

/**
 * `GET /api/persons/{id}/voices/` (API.md §4.9): one entry per (anime, character, language) the
 * person voices, ordered by the anime's start date or name or the character's name (decision
 * O17). Two rounds whatever the person's number of voices: the person and the tombstones (one
 * BatchGetItem), the person's voice groups (one Query of ≤ 4,000 entries) and the index of the
 * ordering's kind brought up to date (its deltas: one Query; a function's first request also
 * loads its snapshot) — the entries are filtered, ordered and paged in memory, so every page but
 * the last is full and `count` is exact; then the page's anime and character cards, read, never
 * copied, so names, images and `score` are current (one BatchGetItem per 100 keys, in parallel;
 * the characters' eventually consistent).
 * Entries of records deleted a moment ago (the tombstones) or no longer in the index are left out.
 */
export function voicesList(cards: { anime: readonly string[]; character: readonly string[] }): Operation {
  return async (req) => {
    const q = req.query as unknown as { ordering: { key: string; descending: boolean }; language?: string; role?: string };
    const id = (req.params as { id: string }).id;
    const by = VOICE_ORDERINGS[q.ordering.key]!;
    const [[person, tomb], entries, index] = await Promise.all([
      getItems([recordKeyOfKind('PERSON', id), tombstoneKey(req.requestId)]),
      readVoices(id),
      indexLookup(INDEXED[by.kind]!),
    ]);
    if (!person) throw notFound('No person with this id.');
    const deleted = new Deleted(tomb);
    const shown = entries.filter(
      (e) => !deleted.has('ANIME', e.anime) && !deleted.has('CHARACTER', e.character) && (q.language === undefined || e.language === q.language) && (q.role === undefined || e.role === q.role),
    );
    const idOf = (e: VoiceEntry) => (by.kind === 'ANIME' ? e.anime : e.character);
    const values = index.values(by.ordering, new Set(shown.map(idOf)));
    const sorted = sortVoices(shown.filter((e) => values.has(idOf(e))), q.ordering.key, q.ordering.descending, (e) => values.get(idOf(e))!);
    const page = pageOf(sorted, q.ordering.descending, pageLimit(req), req.query.cursor ?? null);
    const animeIds = [...new Set(page.kept.map(({ e }) => e.anime))];
    const characterIds = [...new Set(page.kept.map(({ e }) => e.character))];
    // A character card (id, name, image) may lag a write by the moment an eventually consistent
    // read does (§1.8: cards of the other side of a relation), at half the read units; an anime
    // card shows its counters' `score`, exact at once (§3.7): read strongly.
    const found = (await Promise.all([getItems(animeIds.map((a) => recordKeyOfKind('ANIME', a))), getItems(characterIds.map((c) => recordKeyOfKind('CHARACTER', c)), false)])).flat();
    const recs = new Map(found.filter((f): f is Item => f !== null).map((f) => [String(f.pk), String(f.pk).startsWith('ANIME#') ? titleRecordOf(animeTitle, f) as unknown as Rec : (f.rec as Rec)]));
    const results = page.kept.flatMap(({ e }) => {
      const anime = recs.get(`ANIME#${e.anime}`);
      const character = recs.get(`CHARACTER#${e.character}`);
      return anime && character ? [{ character: inShapeOrder(character, cards.character), anime: inShapeOrder(anime, cards.anime), role: e.role, language: e.language }] : [];
    });
    return pageReply(req, { items: results, next: page.next, previous: page.previous }, sorted.length);
  };
}
