/** The pure parts of the relations: what a title asks of its reverse side, the items and keys that gives, and how views and counts read them. */
import { describe, expect, it } from 'vitest';
import { fanOutItems, reverseItems, sortVoices, stateId, voiceGroups, type ReverseState, type VoiceEntry } from '../../shared/db/reverse.js';
import { compareCodePoints } from '../../shared/db/sort-keys.js';
import { Deleted } from '../../shared/db/tombstones.js';
import { appearanceTokens, namedBy, reverseStateOf, staffCredits } from '../../shared/domain/reverse-views.js';
import { withoutPaths } from '../../shared/domain/title-writes.js';
import { searchNormalize } from '../../shared/text.js';

const id = (s: string) => s.padEnd(22, '0');
const [A1, C1, C2, P1, P2, P3] = ['A1', 'C1', 'C2', 'P1', 'P2', 'P3'].map(id) as [string, string, string, string, string, string];

const anime = {
  kind: 'ANIME' as const,
  record: { id: A1, name: 'Title', aired_from: '2001-01-01' },
  relations: {
    characters: [
      { character_id: C2, role: 'supporting', voice_actors: [] },
      { character_id: C1, role: 'main', voice_actors: [{ person_id: P2, language: 'english' }, { person_id: P1, language: 'japanese' }] },
    ],
    staff: [{ person_id: P3, positions: ['Director'] }],
  },
};
const names = new Map([[`CHARACTER#${C1}`, 'Alpha'], [`CHARACTER#${C2}`, 'Beta'], [`PERSON#${P1}`, 'One'], [`PERSON#${P2}`, 'Two'], [`PERSON#${P3}`, 'Three']]);

describe('what a title asks of its reverse side', () => {
  it('its state: the cast by character id with its voices by person, the staff, the name and date that order them', () => {
    expect(namedBy(anime)).toEqual({ characters: [C2, C1], persons: [P2, P1, P3] });
    expect(reverseStateOf(anime, names)).toEqual({
      kind: 'ANIME',
      id: A1,
      name: 'Title',
      aired_from: '2001-01-01',
      cast: [
        { character: C1, name: 'Alpha', role: 'main', voices: [[P1, 'japanese'], [P2, 'english']] },
        { character: C2, name: 'Beta', role: 'supporting', voices: [] },
      ],
      staff: [{ person: P3, positions: ['Director'] }],
    });
  });

  it('records that are gone (not in names) are left out, with their voices and credits; a manga shows no character name', () => {
    const state = reverseStateOf(anime, new Map([[`CHARACTER#${C1}`, 'Alpha'], [`PERSON#${P2}`, 'Two']]));
    expect(state.cast).toEqual([{ character: C1, name: 'Alpha', role: 'main', voices: [[P2, 'english']] }]);
    expect(state.staff).toEqual([]);
    const manga = reverseStateOf({ kind: 'MANGA', record: { id: A1, name: 'M' }, relations: { characters: [{ character_id: C1, role: 'main' }] } }, names);
    expect(manga).toEqual({ kind: 'MANGA', id: A1, name: 'M', aired_from: null, cast: [{ character: C1, name: '', role: 'main', voices: [] }], staff: [] });
  });

  it('one appearance per character, one voice group per voice actor, one credit per staff member', () => {
    const items = [...reverseItems(reverseStateOf(anime, names)).values()];
    const where = (re: RegExp) => items.filter((i) => re.test(String(i.pk)));
    expect(where(/^CHARACTER#/).map((i) => [i.pk, String(i.sk).slice(0, 7)])).toEqual([[`CHARACTER#${C1}#X`, 'ANIME#1'], [`CHARACTER#${C2}#X`, 'ANIME#1']]);
    expect(where(/^CHARACTER#/)[0]!.v).toEqual({ anime: { id: A1, name: 'Title' }, role: 'main', voices: [{ person_id: P1, language: 'japanese' }, { person_id: P2, language: 'english' }] });
    // No names are copied into voice groups: voices/ orders them by the indexes, and reads the cards with the page.
    expect(where(/^PERSON#P[12]/)).toEqual([
      { pk: `PERSON#${P1}#X`, sk: `VA#${A1}`, e: [[C1, 'japanese', 'main']] },
      { pk: `PERSON#${P2}#X`, sk: `VA#${A1}`, e: [[C1, 'english', 'main']] },
    ]);
    expect(where(/^PERSON#P3/)).toEqual([{ pk: `PERSON#${P3}#X`, sk: `STAFF#1title\u0001${A1}`, v: { anime: { id: A1, name: 'Title' }, positions: ['Director'] } }]);
    expect(appearanceTokens(where(/^CHARACTER#C1/) as never)).toEqual([`ANIME#${A1}#main`]);
  });

  it('a character’s appearance tokens count a title once, also while its appearance is there under two keys', () => {
    const appearance = [...reverseItems(reverseStateOf(anime, names)).values()].find((i) => i.pk === `CHARACTER#${C1}#X`)!;
    // The title renamed (the new key written before the old one is deleted), or schema version 1's item beside its successor.
    const renamed = { ...appearance, sk: `ANIME#1other title\u0001${A1}` };
    const legacy = { pk: appearance.pk, sk: `ANIME#${A1}`, v: appearance.v };
    expect(appearanceTokens([appearance, renamed, legacy] as never)).toEqual([`ANIME#${A1}#main`]);
  });

  it('every key fits DynamoDB’s 1,024 bytes, even with names of 255 four-byte characters', () => {
    const long = '𠀀'.repeat(255);
    const state: ReverseState = { kind: 'ANIME', id: A1, name: long, aired_from: null, cast: [{ character: C1, name: long, role: 'main', voices: [[P1, 'portuguese']] }], staff: [{ person: P3, positions: ['X'] }] };
    for (const i of reverseItems(state).values()) expect(Buffer.byteLength(String(i.sk)), String(i.pk)).toBeLessThanOrEqual(1024);
  });
});

describe('the orderings of voices/ (API.md §1.6, §4.9)', () => {
  // Random animes (some without a date, some sharing one or a name), characters (some sharing a name), languages.
  const rng = (() => {
    let x = 42;
    return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  })();
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)]!;
  const ids = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${String(i).padStart(3, '0')}${'x'.repeat(22 - p.length - 3)}`).sort(() => rng() - 0.5);
  const animes = ids('a', 12).map((a) => ({ id: a, name: pick(['Zeta', 'alpha', 'Alpha!', 'Émile', 'beta', '進撃']), aired_from: pick([null, '2001-04-01', '2001-04-01', '1999-12-31', '2020-01-05']) }));
  const characters = ids('c', 15).map((c) => ({ id: c, name: pick(['Narrator', 'narrator', 'Ann', 'Bob', 'Łukasz']) }));
  const entries: VoiceEntry[] = animes.flatMap((a) =>
    characters.filter(() => rng() < 0.5).flatMap((c) => ['japanese', ...(rng() < 0.4 ? ['english'] : [])].map((language) => ({ anime: a.id, character: c.id, language, role: pick(['main', 'supporting']) }))),
  );
  const anime = new Map(animes.map((a) => [a.id, a]));
  const character = new Map(characters.map((c) => [c.id, c]));

  // The contract's order, brute force: the value (text as N(value) by code point; nulls last both ways), then the character's id, the anime's id, the language.
  const cmp = (x: string | null, y: string | null, desc: boolean) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : compareCodePoints(x, y) * (desc ? -1 : 1));
  const ties = (e: VoiceEntry) => `${e.character}${e.anime}${e.language}`;
  const expected = (value: (e: VoiceEntry) => string | null, desc: boolean) =>
    [...entries].sort((x, y) => cmp(value(x), value(y), desc) || (ties(x) < ties(y) ? -1 : ties(x) > ties(y) ? 1 : 0)).map(ties);

  for (const [ordering, raw, normalised] of [
    ['aired_from', (e: VoiceEntry) => anime.get(e.anime)!.aired_from, (e: VoiceEntry) => anime.get(e.anime)!.aired_from],
    ['anime_name', (e: VoiceEntry) => anime.get(e.anime)!.name, (e: VoiceEntry) => searchNormalize(anime.get(e.anime)!.name)],
    ['character_name', (e: VoiceEntry) => character.get(e.character)!.name, (e: VoiceEntry) => searchNormalize(character.get(e.character)!.name)],
  ] as const) {
    for (const desc of [false, true]) {
      it(`${desc ? '-' : ''}${ordering}: the contract's order, every entry once under its own key`, () => {
        const sorted = sortVoices([...entries].sort(() => rng() - 0.5), ordering, desc, raw);
        expect(sorted.map(({ e }) => ties(e))).toEqual(expected(normalised, desc));
        expect(new Set(sorted.map((r) => r.sk)).size).toBe(entries.length);
      });
    }
  }
});

describe('voice groups', () => {
  it('a group per voice actor of the title: its characters, languages and roles, sorted', () => {
    const state = reverseStateOf(anime, names);
    expect([...voiceGroups(state)]).toEqual([[P1, [[C1, 'japanese', 'main']]], [P2, [[C1, 'english', 'main']]]]);
    const two = voiceGroups({ ...state, cast: [{ character: C2, name: 'Beta', role: 'supporting', voices: [[P1, 'japanese'], [P1, 'english']] }, ...state.cast] });
    expect(two.get(P1)).toEqual([[C1, 'japanese', 'main'], [C2, 'english', 'supporting'], [C2, 'japanese', 'supporting']]);
  });
});

describe('the fan-out', () => {
  it('a state recorded whole, in parts of at most 100,000 UTF-16 units, under an id equal states share; none for a state that asks for nothing', () => {
    const big: ReverseState = { ...reverseStateOf(anime, names), staff: Array.from({ length: 300 }, (_, i) => ({ person: id(`P${i}`), positions: Array.from({ length: 10 }, () => '𠀀'.repeat(100)) })) };
    const items = fanOutItems(big);
    expect(items[0]).toEqual({ pk: `ANIME#${A1}#F`, sk: 'H', s: stateId(big) });
    const parts = items.slice(1);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.every((p) => String(p.part).length <= 100_000 && Buffer.byteLength(String(p.part)) < 400_000 && p.parts === parts.length)).toBe(true);
    expect(JSON.parse(parts.map((p) => String(p.part)).join(''))).toEqual(big);
    expect(stateId(structuredClone(big))).toBe(stateId(big));
    expect(fanOutItems({ ...big, cast: [], staff: [] })).toEqual([]);
  });
});

describe('a person’s staff credits', () => {
  it('ordered by the title name as §1.6 compares names, then by id; deleted animes are left out', () => {
    const credit = (cid: string, name: string) => ({ pk: 'PERSON#P#X', sk: `STAFF#${cid}`, v: { anime: { id: cid, name }, positions: ['X'] } });
    const items = [credit('b', 'beta'), credit('a', 'Éclair'), credit('c', 'Alpha'), credit('d', 'alpha'), credit('e', 'Gone')];
    const tomb = new Deleted({ ANIME: new Set(['e']) });
    expect(staffCredits(items, tomb).map((c) => c.anime.id)).toEqual(['c', 'd', 'b', 'a']);
  });
});

describe('dropping references by path', () => {
  it('removes the entry at the last index of each path', () => {
    const values = { genre_ids: ['g1', 'g2', 'g3'], characters: [{ character_id: 'c1', voice_actors: [{ person_id: 'p1' }, { person_id: 'p2' }] }, { character_id: 'c2', voice_actors: [] }] };
    expect(withoutPaths(values, ['genre_ids.0', 'genre_ids.2', 'characters.0.voice_actors.1.person_id', 'characters.1.character_id'])).toEqual({
      genre_ids: ['g2'],
      characters: [{ character_id: 'c1', voice_actors: [{ person_id: 'p1' }] }],
    });
    expect(values.genre_ids).toHaveLength(3);
  });

  it('paths into an entry that goes too, or into an array before an entry that goes, each remove what they named (a deleted character and its deleted voice actor)', () => {
    const cast = (id: string, persons: string[]) => ({ character_id: id, voice_actors: persons.map((p) => ({ person_id: p })) });
    const values = { characters: [cast('c0', ['p0', 'p1']), cast('c1', ['p2']), cast('c2', ['p3', 'p4'])] };
    // c1 is gone, and so is p4 (a voice actor of c2, after it) and p2 (c1's own).
    expect(withoutPaths(values, ['characters.1.character_id', 'characters.2.voice_actors.1.person_id', 'characters.1.voice_actors.0.person_id', 'characters.0.voice_actors.0.person_id'])).toEqual({
      characters: [cast('c0', ['p1']), cast('c2', ['p3'])],
    });
  });
});
