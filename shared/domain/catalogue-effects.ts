/**
 * What the relations consumer (functions/streams/relations.ts) does when a catalogue record
 * changes (API.md §1.8; docs/data-model.md "Deletions and renames", "Reverse views"). Every step
 * reads the current state and makes what derives from it agree, so a redelivered or late stream
 * record changes nothing:
 *
 *  - an anime or manga changed (or was touched) → its reverse items are reconciled with its
 *    current cast and staff, and the characters whose appearances changed get their list
 *    filters' values (`appearances`);
 *  - a record was renamed → the titles that embed its name are refreshed (taxonomy → animes,
 *    mangas; a person → mangas' `authors`; an anime or manga → news), and the titles whose reverse
 *    items show its name are touched so that their reconcile runs (a character → its animes);
 *  - a record was deleted (its tombstone hides it meanwhile) → the titles referencing it are
 *    refreshed without it, their reverse items reconciled, its own reverse items dropped, and
 *    then its tombstone is cleared (a user account: the news articles it wrote);
 *  - any title changed → a journal its writer left unapplied (staged.ts: the writer died after
 *    committing the record) is applied, so its index items never wait for its next write; a
 *    title deleted by a staged write whose writer died → that deletion's journal is applied (its
 *    index items go, its links' counts come down: staged.ts finishDeletion).
 */
import { getItems, type Item } from '../db/batch.js';
import { canonicalJson } from '../json.js';
import { mapLimit } from '../concurrency.js';
import { send, tableName } from '../db/client.js';
import { recordKeyOfKind, type BaseRecord } from '../db/records.js';
import { dropReverse, readReverse, reconcileReverse, reverseSources } from '../db/reverse.js';
import { cascadeDone } from '../db/cascades.js';
import { finishDeletion } from '../db/staged.js';
import { clearTombstone, Deleted, tombstoneKey } from '../db/tombstones.js';
import { afterAccountDeleted, afterTitleDeleted, afterTitleRenamed } from './playlist-effects.js';
import { afterReviewDeleted } from './review-effects.js';
import { indexIds } from './index-reader.js';
import { animes } from './animes.js';
import { characters } from './characters.js';
import { mangas } from './mangas.js';
import { news } from './news.js';
import { persons } from './persons.js';
import { appearanceTokens, namedBy, namesOf, reverseStateOf } from './reverse-views.js';
import type { TitleResource } from './title-resource.js';
import { loadCurrent, refreshTitle, writeTitle } from './title-writes.js';

type AnyTitle = TitleResource<BaseRecord>;

/** The titles whose casts and staff have reverse items, by kind. */
const SOURCES: Record<string, AnyTitle> = { ANIME: animes as unknown as AnyTitle, MANGA: mangas as unknown as AnyTitle };

/** The other titles, whose changes are followed only to finish journals left behind. */
const SWEPT: Record<string, AnyTitle> = {
  CHARACTER: characters as unknown as AnyTitle,
  PERSON: persons as unknown as AnyTitle,
  NEWS: news as unknown as AnyTitle,
};

/** Who embeds a record of each kind, found through their index's postings: (resource, filter). */
const A = animes as unknown as AnyTitle;
const M = mangas as unknown as AnyTitle;
const N = news as unknown as AnyTitle;
const REFERRERS: Record<string, { resource: AnyTitle; filter: string }[]> = {
  GENRE: [{ resource: A, filter: 'genre' }, { resource: M, filter: 'genre' }],
  THEME: [{ resource: A, filter: 'theme' }, { resource: M, filter: 'theme' }],
  PRODUCER: [{ resource: A, filter: 'credited' }],
  DEMOGRAPHIC: [{ resource: M, filter: 'demographic' }],
  MAGAZINE: [{ resource: M, filter: 'magazine' }],
  PERSON: [{ resource: M, filter: 'author' }],
  ANIME: [{ resource: N, filter: 'anime' }],
  MANGA: [{ resource: N, filter: 'manga' }],
  // A deleted account's articles keep no author (§4.21.2).
  USER: [{ resource: N, filter: 'author' }],
};

/** At most this many titles are refreshed at once. */
const PARALLEL = 8;

/** Reconciles a title's reverse items with its current state, and the appearances of the characters that changed. */
export async function reconcileSource(kind: string, id: string): Promise<void> {
  const resource = SOURCES[kind];
  if (!resource) return;
  const current = async () => {
    const stored = await loadCurrent(resource, id);
    if (!stored) return null;
    const source = { kind: kind as 'ANIME' | 'MANGA', record: stored.record as unknown as { id: string; name: string; aired_from?: string | null }, relations: stored.relations };
    const named = namedBy(source);
    const deleted = new Deleted((await getItems([tombstoneKey()]))[0]);
    const names = await namesOf([...named.characters.map((c) => ({ kind: 'CHARACTER', id: c })), ...named.persons.map((p) => ({ kind: 'PERSON', id: p }))], deleted);
    // It names a record deleted meanwhile (a write that read it just before its deletion, or a
    // cleanup that ran before this title's reverse items showed it): rewritten without it, which
    // reconciles again through its own stream record.
    if (names.size < named.characters.length + named.persons.length) await refreshTitle(resource, id);
    return reverseStateOf(source, names);
  };
  await reconcileReverse(kind as 'ANIME' | 'MANGA', id, current, (changed) => mapLimit(changed, PARALLEL, updateAppearances));
}

/**
 * Sets a character's `appearances` (its list filters' values) from its reverse items. The
 * record is read before the items, so a concurrent update of the same character fails its
 * revision check and is redone with what this one wrote.
 */
async function updateAppearances(id: string): Promise<void> {
  await writeTitle(characters as unknown as AnyTitle, async () => {
    const before = await loadCurrent(characters as unknown as AnyTitle, id);
    if (!before) return 'done';
    const tokens = appearanceTokens(await readReverse('CHARACTER', id));
    const old = ((before.record as { appearances?: string[] }).appearances ?? []).join(' ');
    if (tokens.join(' ') === old) return 'done';
    return { before, after: { ...before.record, appearances: tokens } as BaseRecord, relations: before.relations };
    // A reverse view's values: no change-feed entry (API.md §8.5).
  }, { feed: false });
}

/** Marks a title's record changed without changing it, so its stream record runs its reconcile in order. */
async function touch(kind: string, id: string): Promise<void> {
  try {
    await send((c) =>
      new c.UpdateCommand({
        TableName: tableName(),
        Key: recordKeyOfKind(kind, id),
        UpdateExpression: 'SET touched_at = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': new Date().toISOString() },
      }),
    );
  } catch (err) {
    if ((err as Error).name !== 'ConditionalCheckFailedException') throw err;
  }
}

async function refreshReferrers(kind: string, id: string): Promise<void> {
  for (const { resource, filter } of REFERRERS[kind] ?? []) {
    const ids = await indexIds(resource.title.index, { [filter]: id });
    await mapLimit(ids, PARALLEL, (titleId) => refreshTitle(resource, titleId));
  }
}

/** The titles (kind, id) a character's or person's reverse items come from. */
const sourcesOf = reverseSources;

const nameOf = (item: Item | undefined) => (item?.rec as { name?: string } | undefined)?.name;

/** Applies the change of one record item (`KIND#id` / `R`); `before`/`after` are its images (absent: created/deleted). */
/** True when a record item changed only in its list counters (`st_*`, a list edit): nothing derives from them here. */
function countersOnly(before: Item | undefined, after: Item | undefined): boolean {
  if (!before || !after) return false;
  const rest = (i: Item) => canonicalJson(Object.fromEntries(Object.entries(i).filter(([k]) => !k.startsWith('st_'))));
  return rest(before) === rest(after);
}

export async function applyRecordEffects(kind: string, id: string, before: Item | undefined, after: Item | undefined): Promise<void> {
  const deleted = before !== undefined && after === undefined;
  // A review: only its deletion matters here (its votes go); edits and votes change nothing derived.
  if (kind === 'REVIEW') {
    if (deleted) await afterReviewDeleted(id);
    return;
  }
  if (countersOnly(before, after)) return;
  const renamed = before !== undefined && after !== undefined && nameOf(before) !== nameOf(after);
  // A title written through a journal whose writer died before applying it (staged.ts): its
  // derived items are finished now rather than at its next write. (Animes and mangas: their
  // reconcile reads them the same way.)
  if (!deleted && SWEPT[kind]) await loadCurrent(SWEPT[kind], id);
  // A title deleted by a staged write whose writer died before applying its journal: applied now.
  if (deleted && (SOURCES[kind] || SWEPT[kind])) await finishDeletion(recordKeyOfKind(kind, id).pk);
  if (kind === 'NEWS') return;
  if (SOURCES[kind] && !deleted) {
    await reconcileSource(kind, id);
    if (renamed) {
      await refreshReferrers(kind, id);
      await afterTitleRenamed(kind, id, nameOf(after)!);
    }
    return;
  }
  if (deleted) {
    if (SOURCES[kind]) await reconcileSource(kind, id);
    if (kind === 'CHARACTER' || kind === 'PERSON') {
      // Titles naming it are rewritten without it; their reverse items follow at once, so the
      // tombstone is never cleared while an item still shows the deleted record.
      const sources = await sourcesOf(kind, id);
      await mapLimit(sources, PARALLEL, async (s) => {
        await refreshTitle(SOURCES[s.kind]!, s.id);
        await reconcileSource(s.kind, s.id);
      });
      await dropReverse(kind, id);
    }
    await refreshReferrers(kind, id);
    // Its reviews are hidden by its tombstone until they are gone.
    if (kind === 'USER' && !(await afterAccountDeleted(id))) return;
    // A title's items leave the lists first: its tombstone hides them until they are gone.
    if (!(await afterTitleDeleted(kind, id))) return;
    await clearTombstone(kind, id);
    return;
  }
  if (renamed) {
    await refreshReferrers(kind, id);
    // A character's name is shown in its voice actors' `voices/` entries, written by its titles.
    if (kind === 'CHARACTER') await mapLimit(await sourcesOf(kind, id), PARALLEL, (s) => touch(s.kind, s.id));
  }
}

/**
 * The relations consumer's continuation of a cascade (shared/db/cascades.ts): the work it could
 * not finish for the record that started it, from where it stopped.
 */
export async function continueCascade(work: string, id: string, cursor: string | undefined): Promise<void> {
  const [what, kind] = work.split('-');
  if (what === 'DELETED' && kind === 'REVIEW') return afterReviewDeleted(id);
  if (what === 'DELETED' && kind === 'USER') {
    if (await afterAccountDeleted(id)) await clearTombstone(kind, id);
    return;
  }
  if (what === 'DELETED' && kind) {
    if (await afterTitleDeleted(kind, id)) {
      await clearTombstone(kind, id);
      await cascadeDone(work, id);
    }
    return;
  }
  if (what === 'RENAMED' && kind) {
    const [item] = await getItems([recordKeyOfKind(kind, id)]);
    // Deleted since: its items leave the lists instead.
    if (item) await afterTitleRenamed(kind, id, nameOf(item)!, cursor);
    else await cascadeDone(work, id);
  }
}
