/**
 * The reverse views of the relations written on animes and mangas (API.md §1.8, §3.5, §3.6,
 * §4.9): what a title's cast and staff put in the partitions of the characters and persons they
 * name (shared/db/reverse.ts), and how those items become a character's `animes`, `mangas` and
 * `voices`, a person's `staff_credits` and `/api/persons/{id}/voices/`.
 *
 *   CHARACTER#<c>#X  ANIME#<a>            { anime: {id, name}, role, voices: [{person_id, language}] }
 *   CHARACTER#<c>#X  MANGA#<m>            { manga: {id, name}, role }
 *   PERSON#<p>#X     VOICE#<a>#<c>#<lang> { anime: {id, name, aired_from}, character: {id, name}, role, language }
 *   PERSON#<p>#X     STAFF#<a>            { anime: {id, name}, positions }
 *
 * Names embedded here follow renames through the consumer (≤ 60 s, §1.8); records deleted since
 * are left out at read time by the tombstones (shared/db/tombstones.ts), and the names of voice
 * actors are read with the view, so a person's rename or deletion shows at once.
 */
import { getItems } from '../db/batch.js';
import { compareCodePoints } from '../db/sort-keys.js';
import { recordKeyOfKind } from '../db/records.js';
import { reversePk, type ReverseItem } from '../db/reverse.js';
import { sortKey } from '../db/sort-keys.js';
import type { Relations } from '../db/titles.js';
import type { Deleted } from '../db/tombstones.js';

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

/**
 * The reverse items a title's current state asks for. `names` holds the current names of the
 * records it names (`KIND#id` → name); an entry naming a record that is not there (deleted, its
 * cleanup still to come) gives no item.
 */
export function reverseItemsOf(source: Source, names: ReadonlyMap<string, string>): ReverseItem[] {
  const { kind, record } = source;
  const items: ReverseItem[] = [];
  const title = { id: record.id, name: record.name };
  for (const c of (source.relations.characters ?? []) as CastEntry[]) {
    const character = names.get(`CHARACTER#${c.character_id}`);
    if (character === undefined) continue;
    const voices = (c.voice_actors ?? []).filter((a) => names.has(`PERSON#${a.person_id}`));
    items.push({
      pk: reversePk('CHARACTER', c.character_id),
      sk: `${kind}#${record.id}`,
      v: kind === 'ANIME' ? { anime: title, role: c.role, voices } : { manga: title, role: c.role },
    });
    for (const a of voices) {
      items.push({
        pk: reversePk('PERSON', a.person_id),
        sk: `VOICE#${record.id}#${c.character_id}#${a.language}`,
        v: { anime: { ...title, aired_from: record.aired_from ?? null }, character: { id: c.character_id, name: character }, role: c.role, language: a.language },
      });
    }
  }
  for (const s of (source.relations.staff ?? []) as StaffEntry[]) {
    if (!names.has(`PERSON#${s.person_id}`)) continue;
    items.push({ pk: reversePk('PERSON', s.person_id), sk: `STAFF#${record.id}`, v: { anime: title, positions: s.positions } });
  }
  return items;
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

/** A character's `animes`, `mangas` and `voices` (§3.5) from its reverse items. */
export async function characterViews(items: readonly ReverseItem[], deleted: Deleted): Promise<Record<string, unknown>> {
  const appearances = (kind: 'ANIME' | 'MANGA', field: 'anime' | 'manga') =>
    items
      .filter((i) => i.sk.startsWith(`${kind}#`))
      .map((i) => i.v as unknown as Appearance)
      .filter((v) => !deleted.has(kind, v[field]!.id));
  const animes = appearances('ANIME', 'anime');
  const mangas = appearances('MANGA', 'manga');
  const personIds = [...new Set(animes.flatMap((a) => (a.voices ?? []).map((x) => x.person_id)))];
  const persons = await namesOf(personIds.map((id) => ({ kind: 'PERSON', id })), deleted);
  const voices = animes.flatMap((a) =>
    (a.voices ?? [])
      .filter((x) => persons.has(`PERSON#${x.person_id}`))
      .map((x) => ({ person: { id: x.person_id, name: persons.get(`PERSON#${x.person_id}`)! }, language: x.language, anime: { id: a.anime!.id, name: a.anime!.name } })),
  );
  return {
    // Written in the shape's key order (stored maps come back in any order).
    animes: byTitleName(animes, (a) => a.anime!.name, (a) => a.anime!.id).map((a) => ({ id: a.anime!.id, name: a.anime!.name, role: a.role })),
    mangas: byTitleName(mangas, (m) => m.manga!.name, (m) => m.manga!.id).map((m) => ({ id: m.manga!.id, name: m.manga!.name, role: m.role })),
    voices: byTitleName(voices, (x) => x.anime.name, (x) => `${x.anime.id}\u0000${x.person.id}\u0000${x.language}`),
  };
}

/** A person's `staff_credits` (§3.6) from its reverse items. */
export function personViews(items: readonly ReverseItem[], deleted: Deleted): Record<string, unknown> {
  const credits = items
    .filter((i) => i.sk.startsWith('STAFF#'))
    .map((i) => i.v as { anime: { id: string; name: string }; positions: string[] })
    .filter((c) => !deleted.has('ANIME', c.anime.id));
  return { staff_credits: byTitleName(credits, (c) => c.anime.name, (c) => c.anime.id).map((c) => ({ anime: { id: c.anime.id, name: c.anime.name }, positions: c.positions })) };
}

/** The tokens of a character's appearances (`ANIME#<id>#<role>`), the values its list filters index. */
export function appearanceTokens(items: readonly ReverseItem[]): string[] {
  return items
    .filter((i) => /^(ANIME|MANGA)#/.test(i.sk))
    .map((i) => `${i.sk}#${(i.v as { role: string }).role}`)
    .sort();
}
