/** The pure parts of the relations: which reverse items a title asks for, and how views read them. */
import { describe, expect, it } from 'vitest';
import { Deleted } from '../../shared/db/tombstones.js';
import { appearanceTokens, namedBy, personViews, reverseItemsOf } from '../../shared/domain/reverse-views.js';
import { withoutPaths } from '../../shared/domain/title-writes.js';

const anime = {
  kind: 'ANIME' as const,
  record: { id: 'A1', name: 'Title', aired_from: '2001-01-01' },
  relations: {
    characters: [
      { character_id: 'C1', role: 'main', voice_actors: [{ person_id: 'P1', language: 'japanese' }, { person_id: 'P2', language: 'english' }] },
      { character_id: 'C2', role: 'supporting', voice_actors: [] },
    ],
    staff: [{ person_id: 'P3', positions: ['Director'] }],
  },
};

describe('reverse items of a title', () => {
  it('one appearance per character, one voice entry per voice actor, one credit per staff member', () => {
    expect(namedBy(anime)).toEqual({ characters: ['C1', 'C2'], persons: ['P1', 'P2', 'P3'] });
    const names = new Map([['CHARACTER#C1', 'Alpha'], ['CHARACTER#C2', 'Beta'], ['PERSON#P1', 'One'], ['PERSON#P2', 'Two'], ['PERSON#P3', 'Three']]);
    const items = reverseItemsOf(anime, names);
    expect(items.map((i) => `${i.pk} ${i.sk}`)).toEqual([
      'CHARACTER#C1#X ANIME#A1',
      'PERSON#P1#X VOICE#A1#C1#japanese',
      'PERSON#P2#X VOICE#A1#C1#english',
      'CHARACTER#C2#X ANIME#A1',
      'PERSON#P3#X STAFF#A1',
    ]);
    expect(items[1]!.v).toEqual({ anime: { id: 'A1', name: 'Title', aired_from: '2001-01-01' }, character: { id: 'C1', name: 'Alpha' }, role: 'main', language: 'japanese' });
    expect(appearanceTokens(items.filter((i) => i.pk.startsWith('CHARACTER#C1')))).toEqual(['ANIME#A1#main']);
  });

  it('records that are gone (not in names) give no items, and leave the voice lists', () => {
    const items = reverseItemsOf(anime, new Map([['CHARACTER#C1', 'Alpha'], ['PERSON#P2', 'Two']]));
    expect(items.map((i) => `${i.pk} ${i.sk}`)).toEqual(['CHARACTER#C1#X ANIME#A1', 'PERSON#P2#X VOICE#A1#C1#english']);
    expect(items[0]!.v.voices).toEqual([{ person_id: 'P2', language: 'english' }]);
  });

  it('staff credits are ordered by the title name as §1.6 compares names, then by id; deleted animes are left out', () => {
    const credit = (id: string, name: string) => ({ pk: 'PERSON#P#X', sk: `STAFF#${id}`, v: { anime: { id, name }, positions: ['X'] } });
    const items = [credit('b', 'beta'), credit('a', 'Éclair'), credit('c', 'Alpha'), credit('d', 'alpha'), credit('e', 'Gone')];
    const tomb = new Deleted({ ANIME: new Set(['e']) });
    expect((personViews(items, tomb).staff_credits as { anime: { id: string } }[]).map((c) => c.anime.id)).toEqual(['c', 'd', 'b', 'a']);
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
