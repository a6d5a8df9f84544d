/**
 * How a title changes (animes, mangas, characters, persons, news): read it for the change,
 * build the new state, commit it with its relations and link counts, retrying when something it
 * depends on changed meanwhile. Used by the write operations (shared/http/titles.ts) and by the
 * catalogue consumer, which refreshes the names a title embeds and drops references to deleted
 * records (shared/domain/catalogue-effects.ts).
 */
import { getItems } from '../db/batch.js';
import { joinPlans, recordKeyOfKind, StaleRecord, type BaseRecord, type WritePlan } from '../db/records.js';
import { commitStaged, finishJournal } from '../db/staged.js';
import { readSlots, SlotsMoved } from '../db/slots.js';
import { changesIndex, loadTitle, titleWrite, type Relations, type StoredTitle, type TitleDef } from '../db/titles.js';
import { sameBut, vectorOf } from '../db/catalogue-index.js';
import { DeltaMoved, readHead } from '../db/index-deltas.js';
import { Deleted, tombstoneKey } from '../db/tombstones.js';
import { Contended } from '../db/errors.js';
import { feedKindOf } from '../db/feed.js';
import { notFound, validationError } from '../problem.js';
import { canonicalJson } from '../json.js';
import { ChangedLink, GoneLink } from './references.js';
import type { TitleResource } from './title-resource.js';

/** Reads a title for a change: `null` when absent; a journal left by an interrupted write is finished first. */
export async function loadCurrent<R extends BaseRecord>(resource: TitleResource<R>, id: string): Promise<StoredTitle<R> | null> {
  let stored = await loadTitle(resource.title, id);
  if (stored && stored.journal.length > 0 && (await finishJournal(stored.journal, stored.rev, stored.write))) stored = await loadTitle(resource.title, id);
  return stored;
}

/** As loadCurrent, 404 when absent. */
export async function loadForChange<R extends BaseRecord>(resource: TitleResource<R>, id: string): Promise<StoredTitle<R>> {
  const stored = await loadCurrent(resource, id);
  if (!stored) throw notFound(`No ${resource.noun} with this id.`);
  return stored;
}

export interface Change<R> {
  before: StoredTitle<R> | null;
  after: R | null;
  relations: Relations;
  /** Items of this change only, committed in the main transaction (e.g. an upload's guard deletion). */
  extra?: WritePlan;
  /** The record's private attributes after the change (absent: kept; e.g. an imported title's provenance). */
  priv?: Record<string, unknown>;
  /** Linked records (`KIND#id`) the attempt found gone: their counts are not updated (as after a GoneLink). */
  gone?: readonly string[];
}

/**
 * How often a change is committed again when other writes of the kind took its turn first: moved
 * the random-pick slots (creations, deletions) or took the index delta's number (every write that
 * changes what the index holds: index-deltas.ts). The record is not read again for these (it did
 * not change: that would be a conflict), only the kind's head and slots.
 */
const TURN_TRIES = 40;
/** The longest wait between two turns (ms); the waits are jittered and grow from a few ms. */
const TURN_WAIT_MS = 100;

/**
 * Writes a title change, retrying from the read when a record it depends on changed meanwhile
 * (its own revision, or a linked record that was deleted or changed type), and committing it
 * again when other writes of the kind took its turn (TURN_TRIES). The main transaction also holds
 * the resource's `extraPlan`, the attempt's `extra`, the record's index delta and its feed change.
 *
 * A linked record found gone (GoneLink: a link it only loses, to a record deleted since) is left
 * out of the next attempt's counts and does not count as a conflict: each such retry removes one
 * link for good, so they end after at most as many retries as the write has links, however many
 * of them were deleted (docs/decisions.md Z1). Conflicts proper (the record or a gained link
 * changed) are tried 4 times, then the write gives up as Contended.
 *
 * `index: 'patched'` (the rankings job only, shared/domain/rankings.ts; decision O13): the
 * change of the record's vector is published otherwise — by the caller, through the compactor's
 * patch once its record writes are done — so the write reads no head and puts no delta. Such a
 * change may change only the vector's values that derive from the job's numbers (the index's
 * `ranked` fields); any other change of the vector throws (it would be published by nobody).
 *
 * Every other write puts its change-feed change (API.md §8.5, feed.ts) in the main transaction,
 * unless `feed: false` says that it changes only what the feed does not follow (a reverse view's
 * values, e.g. a character's `appearances`). Patched writes change only derived numbers: none.
 */
export async function writeTitle<R extends BaseRecord>(
  resource: TitleResource<R>,
  attempt: (skip: ReadonlySet<string>) => Promise<Change<R> | 'done'>,
  opts: { index?: 'patched'; feed?: false } = {},
): Promise<void> {
  const skip = new Set<string>();
  const kind = resource.title.entity.kind;
  let changed = 0;
  while (changed < 4) {
    const change = await attempt(skip);
    if (change === 'done') return;
    for (const key of change.gone ?? []) skip.add(key);
    const links = (resource.links?.(change.before?.record ?? null, change.after) ?? []).filter((l) => !skip.has(`${l.key.pk}`));
    const own = resource.extraPlan?.(change.before, change.after ? { record: change.after, relations: change.relations } : null);
    // A change of what the kind's index holds of the record carries its delta (index-deltas.ts), unless it is patched.
    const indexed = changesIndex(resource.title, change.before?.record ?? null, change.after) && !(opts.index === 'patched' && patchable(resource.title, change));
    // Every write of a catalogue record but a derived one puts its change-feed change in its transaction (feed.ts).
    const fed = opts.feed !== false && opts.index !== 'patched' && feedKindOf(kind) !== null;
    try {
      for (let turn = 1; ; turn++) {
        try {
          // Creations and deletions of a kind with random picks also move its slots (slots.ts).
          const [slots, deltaHead] = await Promise.all([
            resource.title.random && (!change.before || !change.after) ? readSlots(kind, change.after ? undefined : change.before!.record.id) : undefined,
            indexed ? readHead(kind) : undefined,
          ]);
          const plan = titleWrite(resource.title, change.before, {
            after: change.after,
            relations: change.relations,
            links,
            priv: change.priv,
            ...(slots ? { slots } : {}),
            ...(deltaHead === undefined ? {} : { deltaHead }),
            fed,
          });
          const main = joinPlans(plan.main, ...(own ? [own] : []), ...(change.extra ? [change.extra] : []));
          await commitStaged(main, plan.rest, plan.pk, plan.rev, plan.write, { deletion: !change.after, ...(plan.feed ? { feed: plan.feed } : {}) });
          return;
        } catch (err) {
          if (!(err instanceof SlotsMoved || err instanceof DeltaMoved)) throw err;
          if (turn >= TURN_TRIES) throw new Contended(`The ${resource.noun}`);
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(TURN_WAIT_MS, 4 * 2 ** Math.min(turn, 5))));
        }
      }
    } catch (err) {
      if (err instanceof GoneLink && !skip.has(err.key)) {
        skip.add(err.key);
        continue;
      }
      if (!(err instanceof StaleRecord) && !(err instanceof ChangedLink)) throw err;
      changed++;
    }
  }
  throw new Contended(`The ${resource.noun}`);
}

/** Whether a change is one the compactor's patch publishes (see writeTitle): throws when it changes more of the vector. */
function patchable<R extends BaseRecord>(def: TitleDef<R>, change: Change<R>): true {
  const ranked = def.index.ranked;
  const [before, after] = [change.before?.record, change.after];
  if (!ranked || !before || !after || !sameBut(vectorOf(def.index, before), vectorOf(def.index, after), ranked)) {
    throw new Error(`${def.entity.kind}: a patched write may change only the index values of the rankings' numbers`);
  }
  return true;
}

/** The stored record and relations for validated values (400 with every field error). */
export async function built<R extends BaseRecord>(
  resource: TitleResource<R>,
  values: Record<string, unknown>,
  meta: Parameters<TitleResource<R>['build']>[1],
  before: StoredTitle<R> | null,
): Promise<{ record: R; relations: Relations }> {
  const out = await resource.build(values, meta, before);
  if ('errors' in out) throw validationError(out.errors);
  return out;
}

/**
 * Removes the array entries at `paths` (`genre_ids.3`, `characters.2.voice_actors.1.person_id`:
 * the entry of the last index). Every entry is found before any is removed, so paths into the same
 * array, or into an entry that is removed itself (a character and one of its voice actors), each
 * remove what they named (decision Z5).
 */
export function withoutPaths(values: Record<string, unknown>, paths: readonly string[]): Record<string, unknown> {
  const copy = structuredClone(values);
  const targets = paths.flatMap((p) => {
    const parts = p.split('.');
    const last = parts.findLastIndex((part) => /^\d+$/.test(part));
    const list = parts.slice(0, last).reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], copy);
    return Array.isArray(list) && Number(parts[last]) < list.length ? [{ list, entry: list[Number(parts[last])] as unknown }] : [];
  });
  for (const { list, entry } of targets) {
    const at = list.indexOf(entry);
    if (at >= 0) list.splice(at, 1);
  }
  return copy;
}

/**
 * Makes a title show the current names of the records it references and drop the references to
 * records deleted since (API.md §1.8): what a write of the same values would store now. Keeps
 * its `updated_at` (no client changed it). Returns whether it changed the title.
 */
export async function refreshTitle<R extends BaseRecord>(resource: TitleResource<R>, id: string): Promise<boolean> {
  let changed = false;
  await writeTitle(resource, async () => {
    changed = false;
    const before = await loadCurrent(resource, id);
    if (!before) return 'done';
    let values = resource.writable(before.record, before.relations);
    const refs = resource.references?.(values) ?? [];
    const [tomb, ...items] = await getItems([tombstoneKey(), ...refs.map((r) => recordKeyOfKind(r.kind, r.id))]);
    const deleted = new Deleted(tomb);
    const gone = refs.filter((r, i) => !items[i] || deleted.has(r.kind, r.id));
    values = withoutPaths(values, gone.map((r) => r.path));
    const r = before.record;
    const out = await resource.build(values, { id: r.id, created_at: r.created_at, updated_at: r.updated_at }, before);
    // A reference deleted between the two reads: the next attempt drops it.
    if ('errors' in out) throw new StaleRecord(resource.title.entity.kind);
    // Embedded references that are not written values (a news article's `author`) go too.
    out.record = withoutDeleted(resource, out.record, deleted);
    if (canonicalJson(out.record) === canonicalJson(r) && canonicalJson(out.relations) === canonicalJson(pick(before.relations, Object.keys(out.relations)))) return 'done';
    changed = true;
    // The records it stops linking because they are gone have no count left to lower.
    return { before, after: out.record, relations: out.relations, gone: gone.map((r) => recordKeyOfKind(r.kind, r.id).pk) };
  });
  return changed;
}

const pick = (o: Relations, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));

/** A record without the embedded references to records deleted since (API.md §1.8; tombstones.ts). */
export function withoutDeleted<R extends BaseRecord>(resource: TitleResource<R>, record: R, deleted: Deleted): R {
  const embedded = Object.entries(resource.embedded ?? {});
  if (!deleted.any(embedded.map(([, kind]) => kind))) return record;
  const out: Record<string, unknown> = { ...(record as unknown as Record<string, unknown>) };
  for (const [field, kind] of embedded) {
    const value = out[field];
    if (Array.isArray(value)) out[field] = value.filter((e: { id: string }) => !deleted.has(kind, e.id));
    else if (value && typeof value === 'object' && deleted.has(kind, (value as { id: string }).id)) out[field] = null;
  }
  return out as unknown as R;
}
