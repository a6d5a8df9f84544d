/**
 * Titles that came from the catalogue source (API.md §5.5 "season refresh", "airing status"):
 * their provenance and the rules by which the import and the airing status job may change them
 * (docs/decisions.md I4, I5).
 *
 *  - Provenance: the record item's private attributes (`priv.import`, never in a response, an
 *    ETag or the index) hold the source, the item's key and ids (bangumi.tv, MyAnimeList), the
 *    source's values of the fields the import owns as they were when last written (`values`) and
 *    the name last written (`name`: the source's, or one made distinct, bangumi.ts nameCandidates).
 *    A contributor's write keeps them (a title write keeps its record's private attributes).
 *  - A refresh sets a field to the source's new value only while the title still holds the value
 *    the import last wrote there (for `name`: the name last written). A field a contributor
 *    changed is theirs from then on, whatever the source does; if they write the imported value
 *    back, it follows the source again (the value is what is compared: nothing else can tell).
 *  - `status` is owned in the same way by the import and the airing status job together: while
 *    it holds the value either of them last wrote, it follows the title's current dates
 *    (statusOn). A status a contributor set is never changed.
 */
import type { AnimeRecord } from '../db/animes.js';
import { canonicalJson } from '../json.js';
import type { SourceValues } from './bangumi.js';

/** An item of the source as the import sees it: its key, ids and values (bangumi.ts sourceValues). */
export interface SourceTitle {
  key: string;
  bangumi: string | null;
  mal: string | null;
  values: SourceValues;
}

export type ImportedValues = SourceValues & { status: string };

export interface Provenance {
  source: string;
  key: string;
  bangumi: string | null;
  mal: string | null;
  /** The source's values of the owned fields, and the status, as last written. */
  values: ImportedValues;
  /** The name last written. */
  name: string;
}

/** The owned fields besides `name` and `status`. */
const FIELDS = ['name_jpn', 'alternative_names', 'media_type', 'aired_from', 'aired_to', 'broadcast', 'website'] as const;

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The provenance of an imported title's record (null: a contributor's title). */
export const provenanceOf = (priv: Record<string, unknown> | undefined): Provenance | null => (priv?.import as Provenance | undefined) ?? null;

/**
 * The status the dates give on `today` (a date in Japan, where the source's dates are): upcoming
 * before `aired_from` (or without it), finished after `aired_to`, airing from the one to the
 * other (a movie, whose `aired_to` is its one date, is airing on that day).
 */
export function statusOn(dates: { aired_from: string | null; aired_to: string | null }, today: string): string {
  if (dates.aired_from === null || today < dates.aired_from) return 'upcoming';
  return dates.aired_to !== null && today > dates.aired_to ? 'finished' : 'airing';
}

/** A new title: its write values (the owned fields, `name` as given) and provenance. */
export function creationOf(source: string, t: SourceTitle, name: string, today: string): { values: Record<string, unknown>; provenance: Provenance } {
  const status = statusOn(t.values, today);
  return {
    values: { ...t.values, name, status },
    provenance: { source, key: t.key, bangumi: t.bangumi, mal: t.mal, values: { ...t.values, status }, name },
  };
}

/**
 * What a refresh changes in an imported title: the write values that change and the provenance
 * after them, or null when nothing changes. `name` is the name to take if the source's name has
 * changed while the title still has the imported one (the caller finds one no title has).
 */
export function refreshOf(record: AnimeRecord, prov: Provenance, t: SourceTitle, today: string, name: string): { changes: Record<string, unknown>; provenance: Provenance } | null {
  const changes: Record<string, unknown> = {};
  const values: ImportedValues = { ...prov.values };
  let written = prov.name;
  if (record.name === prov.name && t.values.name !== prov.values.name) {
    changes.name = written = name;
    values.name = t.values.name;
  }
  const current = record as unknown as Record<string, unknown>;
  for (const f of FIELDS) {
    if (same(current[f], prov.values[f]) && !same(t.values[f], prov.values[f])) {
      changes[f] = t.values[f];
      (values as unknown as Record<string, unknown>)[f] = t.values[f];
    }
  }
  let dates = {
    aired_from: 'aired_from' in changes ? (changes.aired_from as string | null) : record.aired_from,
    aired_to: 'aired_to' in changes ? (changes.aired_to as string | null) : record.aired_to,
  };
  // New source dates that would contradict a date a contributor set (§3.3: aired_to requires
  // aired_from and is not before it) are not taken.
  if (dates.aired_to !== null && (dates.aired_from === null || dates.aired_to < dates.aired_from)) {
    for (const f of ['aired_from', 'aired_to'] as const) {
      delete changes[f];
      values[f] = prov.values[f];
    }
    dates = { aired_from: record.aired_from, aired_to: record.aired_to };
  }
  const status = record.status === prov.values.status ? statusOn(dates, today) : record.status;
  if (status !== record.status) changes.status = values.status = status;
  if (Object.keys(changes).length === 0) return null;
  return { changes, provenance: { ...prov, bangumi: t.bangumi, mal: t.mal, values, name: written } };
}

/** The airing status job's change of an imported title: its new status, or null (it keeps its status). */
export function statusChange(record: AnimeRecord, prov: Provenance, today: string): string | null {
  if (record.status !== prov.values.status) return null;
  const status = statusOn(record, today);
  return status === record.status ? null : status;
}
