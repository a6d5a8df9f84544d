/**
 * The reverse views of the relations written on animes and mangas (API.md §1.8, §3.5, §3.6,
 * §4.9): what a title's cast and staff ask of the characters and persons they name (its
 * ReverseState, whose items shared/db/reverse.ts builds and keeps), and how those items become a
 * character's `animes`, `mangas` and `voices` and a person's `staff_credits`.
 *
 * Each of these arrays is read with one bounded Query (decision N2): the first
 * SHOWN_IN_DETAIL entries by the title's name (§1.8 orders them so), never the whole partition.
 * Titles embed their own name (a rename reaches these views through the consumer, ≤ 60 s); the
 * names of voice actors are read with the view, so a person's rename or deletion shows at once;
 * records deleted since are left out at read time by the tombstones (shared/db/tombstones.ts).
 */
import { getItems } from '../db/batch.js';
import { recordKeyOfKind } from '../db/records.js';
import { readAppearances, readStaffCredits, type CastState, type ReverseItem, type ReverseState } from '../db/reverse.js';
import { compareCodePoints, sortKey } from '../db/sort-keys.js';
import type { Relations } from '../db/titles.js';
import type { Deleted } from '../db/tombstones.js';

/**
 * Entries each derived array of a detail shows at most: a character's first 100 appearances in
 * animes and 100 in mangas by title name, the first 100 voice actors of those animes, a person's
 * first 100 staff credits (contract point, decision N2).
 */
export const SHOWN_IN_DETAIL = 100;

export interface CastEntry {
  character_id: string;
  role: string;
  voice_actors?: { person_id: string; language: string }[];
}
export interface StaffEntry {
  person_id: string;
  positions: string[];
}

interface Source {
  kind: 'ANIME' | 'MANGA';
  record: { id: string; name: string; aired_from?: string | null };
  relations: Relations;
}

/** The records a title's cast and staff name, as record keys (read to check them and for names). */
export function namedBy(source: Source): { characters: string[]; persons: string[] } {
  const cast = (source.relations.characters ?? []) as CastEntry[];
  const staff = (source.relations.staff ?? []) as StaffEntry[];
  return {
    characters: [...new Set(cast.map((c) => c.character_id))],
    persons: [...new Set([...cast.flatMap((c) => (c.voice_actors ?? []).map((a) => a.person_id)), ...staff.map((s) => s.person_id)])],
  };
}

const byId = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * What a title's current state asks of its reverse side. `names` holds the current names of the
 * records it names (`KIND#id` → name); an entry naming a record that is not there (deleted, its
 * cleanup still to come) is left out.
 */
export function reverseStateOf(source: Source, names: ReadonlyMap<string, string>): ReverseState {
  const { kind, record } = source;
  const cast: CastState[] = [];
  for (const c of (source.relations.characters ?? []) as CastEntry[]) {
    const name = names.get(`CHARACTER#${c.character_id}`);
    if (name === undefined) continue;
    const voices = (c.voice_actors ?? []).filter((a) => names.has(`PERSON#${a.person_id}`)).map((a): [string, string] => [a.person_id, a.language]);
    // A manga's appearances do not show the character's name: its rename changes nothing there.
    cast.push({ character: c.character_id, name: kind === 'ANIME' ? name : '', role: c.role, voices: voices.sort(byId((v) => `${v[0]} ${v[1]}`)) });
  }
  const staff = ((source.relations.staff ?? []) as StaffEntry[]).filter((s) => names.has(`PERSON#${s.person_id}`)).map((s) => ({ person: s.person_id, positions: s.positions }));
  return {
    kind,
    id: record.id,
    name: record.name,
    aired_from: kind === 'ANIME' ? (record.aired_from ?? null) : null,
    cast: cast.sort(byId((c) => c.character)),
    staff: staff.sort(byId((s) => s.person)),
  };
}

/** Current names of records (`KIND#id` → name), leaving out those absent or deleted. */
export async function namesOf(keys: readonly { kind: string; id: string }[], deleted: Deleted): Promise<Map<string, string>> {
  const items = await getItems(keys.map((k) => recordKeyOfKind(k.kind, k.id)));
  const names = new Map<string, string>();
  keys.forEach((k, i) => {
    const rec = items[i]?.rec as { name?: string } | undefined;
    if (rec && !deleted.has(k.kind, k.id)) names.set(`${k.kind}#${k.id}`, rec.name ?? '');
  });
  return names;
}

/** Orders derived entries by a title's name as §1.6 compares names, then by the ids shown. */
function byTitleName<T>(entries: readonly T[], name: (e: T) => string, ids: (e: T) => string): T[] {
  return entries
    .map((e) => ({ e, k: `${sortKey(name(e), 'text', '', 'asc')}\u0000${ids(e)}` }))
    .sort((a, b) => compareCodePoints(a.k, b.k))
    .map((x) => x.e);
}

type Appearance = { role: string; voices?: { person_id: string; language: string }[]; anime?: { id: string; name: string }; manga?: { id: string; name: string } };

/**
 * A character's `animes`, `mangas` and `voices` (§3.5): its first SHOWN_IN_DETAIL appearances
 * of each kind by title name (two Queries of that many items, in parallel), and the voice actors
 * of the animes shown, the first SHOWN_IN_DETAIL by anime name (their names: one BatchGetItem).
 */
export async function characterViews(id: string, deleted: Deleted): Promise<Record<string, unknown>> {
  const [animeItems, mangaItems] = await Promise.all([readAppearances(id, 'ANIME', SHOWN_IN_DETAIL), readAppearances(id, 'MANGA', SHOWN_IN_DETAIL)]);
  const shown = (items: readonly ReverseItem[], kind: 'ANIME' | 'MANGA', field: 'anime' | 'manga') =>
    items.map((i) => i.v as unknown as Appearance).filter((v) => !deleted.has(kind, v[field]!.id));
  // Already in title-name order (their keys); sorted again as the contract compares, which the key's cut can only approximate.
  const animes = byTitleName(shown(animeItems, 'ANIME', 'anime'), (a) => a.anime!.name, (a) => a.anime!.id);
  const mangas = byTitleName(shown(mangaItems, 'MANGA', 'manga'), (m) => m.manga!.name, (m) => m.manga!.id);
  const entries = byTitleName(
    animes.flatMap((a) => (a.voices ?? []).filter((x) => !deleted.has('PERSON', x.person_id)).map((x) => ({ ...x, anime: a.anime! }))),
    (x) => x.anime.name,
    (x) => `${x.anime.id}\u0000${x.person_id}\u0000${x.language}`,
  ).slice(0, SHOWN_IN_DETAIL);
  const persons = await namesOf([...new Set(entries.map((x) => x.person_id))].map((p) => ({ kind: 'PERSON', id: p })), deleted);
  return {
    // Written in the shape's key order (stored maps come back in any order).
    animes: animes.map((a) => ({ id: a.anime!.id, name: a.anime!.name, role: a.role })),
    mangas: mangas.map((m) => ({ id: m.manga!.id, name: m.manga!.name, role: m.role })),
    voices: entries
      .filter((x) => persons.has(`PERSON#${x.person_id}`))
      .map((x) => ({ person: { id: x.person_id, name: persons.get(`PERSON#${x.person_id}`)! }, language: x.language, anime: { id: x.anime.id, name: x.anime.name } })),
  };
}

/** A person's `staff_credits` (§3.6): the first SHOWN_IN_DETAIL by anime name (one Query of that many items). */
export async function personViews(id: string, deleted: Deleted): Promise<Record<string, unknown>> {
  return { staff_credits: staffCredits(await readStaffCredits(id, SHOWN_IN_DETAIL), deleted) };
}

/** Staff credits from their reverse items, without deleted animes, in the order of §1.8. */
export function staffCredits(items: readonly ReverseItem[], deleted: Deleted): { anime: { id: string; name: string }; positions: string[] }[] {
  const credits = items.map((i) => i.v as { anime: { id: string; name: string }; positions: string[] }).filter((c) => !deleted.has('ANIME', c.anime.id));
  return byTitleName(credits, (c) => c.anime.name, (c) => c.anime.id).map((c) => ({ anime: { id: c.anime.id, name: c.anime.name }, positions: c.positions }));
}

/**
 * The tokens of a character's appearances (`ANIME#<id>#<role>`), the values its list filters
 * index: each title once, also while an appearance is there under two keys (its title renamed, or
 * a schema-version-1 item beside its successor: reverse.ts writes the new one before deleting the
 * old one).
 */
export function appearanceTokens(items: readonly ReverseItem[]): string[] {
  const tokens = items.flatMap((i) => {
    const v = i.v as Appearance | undefined;
    const title = v?.anime ? `ANIME#${v.anime.id}` : v?.manga ? `MANGA#${v.manga.id}` : null;
    return title && /^(ANIME|MANGA)#/.test(i.sk) ? [`${title}#${v!.role}`] : [];
  });
  return [...new Set(tokens)].sort();
}
