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
 *    (statusOn) — and, for a title without an end or an episode count, the release of the data
 *    set that first brought it (`release`). A status a contributor set is never changed.
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
  /**
   * The day the data set that created the title was released (bangumi.ts SOURCE_RELEASE), kept by
   * refreshes; absent from titles imported before it was recorded, which came from 0.3.208.
   */
  release?: string;
}

/** The release of the data set titles imported before provenance recorded one came from (0.3.208). */
const UNRECORDED_RELEASE = '2026-04-25';

/** The release a title's status follows (see Provenance.release). */
export const releaseOf = (prov: Provenance): string => prov.release ?? UNRECORDED_RELEASE;

/** The owned fields besides `name` and `status`. */
const FIELDS = ['name_jpn', 'alternative_names', 'media_type', 'aired_from', 'aired_to', 'broadcast', 'website', 'external_ids', 'streaming'] as const;

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The provenance of an imported title's record (null: a contributor's title). */
export const provenanceOf = (priv: Record<string, unknown> | undefined): Provenance | null => (priv?.import as Provenance | undefined) ?? null;

/** Days from a title's start to its assumed end when the source knows neither (two cours, §5.5). */
export const OPEN_END_DAYS = 26 * 7;

/** The date `days` days after a date `YYYY-MM-DD`. */
const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The status the dates give on `today` (a date in Japan, where the source's dates are): upcoming
 * before `aired_from` (or without it), finished after `aired_to`, airing from the one to the
 * other (a movie, whose `aired_to` is its one date, is airing on that day). Without `aired_to`
 * and `episodes` (§5.5, clarified 2026-11-29): a title that had started less than 26 weeks before
 * `release` (the data set's, a date) — or not yet — is finished 26 weeks after `aired_from`; one
 * already running longer then (a long-running series) stays airing, as does any title when no
 * release is known. Whoever knows the end or the episode count better (the source's next release,
 * a contributor) decides instead.
 */
export function statusOn(title: { aired_from: string | null; aired_to: string | null; episodes?: number | null }, today: string, release: string | null): string {
  if (title.aired_from === null || today < title.aired_from) return 'upcoming';
  if (title.aired_to !== null) return today > title.aired_to ? 'finished' : 'airing';
  const assumedEnd = addDays(title.aired_from, OPEN_END_DAYS);
  const newAtRelease = release !== null && assumedEnd > release;
  return (title.episodes ?? null) === null && newAtRelease && today >= assumedEnd ? 'finished' : 'airing';
}

/** A new title from the data set released on `release`: its write values (the owned fields, `name` as given) and provenance. */
export function creationOf(source: string, t: SourceTitle, name: string, today: string, release: string): { values: Record<string, unknown>; provenance: Provenance } {
  const status = statusOn(t.values, today, release);
  return {
    values: { ...t.values, name, status },
    provenance: { source, key: t.key, bangumi: t.bangumi, mal: t.mal, values: { ...t.values, status }, name, release },
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
  const status = record.status === prov.values.status ? statusOn({ ...dates, episodes: record.episodes }, today, releaseOf(prov)) : record.status;
  if (status !== record.status) changes.status = values.status = status;
  if (Object.keys(changes).length === 0) return null;
  return { changes, provenance: { ...prov, bangumi: t.bangumi, mal: t.mal, values, name: written } };
}

/** The airing status job's change of an imported title: its new status, or null (it keeps its status). */
export function statusChange(record: AnimeRecord, prov: Provenance, today: string): string | null {
  if (record.status !== prov.values.status) return null;
  const status = statusOn(record, today, releaseOf(prov));
  return status === record.status ? null : status;
}
