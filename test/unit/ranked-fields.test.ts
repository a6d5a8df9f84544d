/**
 * The vector values the rankings job publishes through the compactor's patch (IndexDef.ranked;
 * docs/decisions.md O13) are exactly those its numbers give: for random records of the four kinds
 * it writes and random new numbers, the record's vector before and after differs in no other
 * value (else a write of the numbers would change what no one publishes), and each ranked value
 * changes for some of them (else the patch would carry a value the numbers do not give, and could
 * overwrite a newer delta's). A patched title write (writeTitle `index: 'patched'`) relies on the
 * first; the job builds its patch with vectorOf, so the values cannot disagree with a delta's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { animeIndex } from '../../shared/db/animes.js';
import { sameBut, vectorFields, vectorOf, type IndexDef } from '../../shared/db/catalogue-index.js';
import { characterIndex } from '../../shared/db/characters.js';
import { mangaIndex } from '../../shared/db/mangas.js';
import { personIndex } from '../../shared/db/persons.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { animeArb, record } from '../support/random-animes.js';

const count = fc.integer({ min: 0, max: 6 });
const score = fc.option(fc.integer({ min: 100, max: 1000 }).map((n) => n / 100), { nil: null });
const titleNumbers = fc.record({ score, scored_by: count, members: count, favorites: count });
const at = fc.constantFrom('2024-01-01T00:00:00.000Z', '2025-06-30T12:00:00.000Z');
const id = fc.constantFrom('AAAAAAAAAAAAAAAAAAAAAA', 'zzzzzzzzzzzzzzzzzzzzzz');

const manga = fc.record({ id, created_at: at, updated_at: at, name: fc.constantFrom('Saga', 'Tale'), published_from: fc.constantFrom(null, '2001-04-01') }).map((m) => ({
  ...m,
  name_jpn: 'サーガ',
  name_rom: 'Saaga',
  alternative_names: [],
  media_type: 'manga',
  status: 'publishing',
  genres: [{ id: 'G1', name: 'Action' }],
  themes: [],
  demographics: [],
  serializations: [],
  authors: [{ id: 'P1', name: 'Author', role: 'story' }],
  rank: null,
  popularity: null,
}));
const character = fc.record({ id, created_at: at, updated_at: at, name: fc.constantFrom('Hero', 'Rival'), favorites: count, members: count }).map((c) => ({
  ...c,
  name_kanji: '英雄',
  nicknames: ['Nick'],
  appearances: ['ANIME#A1#main', 'MANGA#M1#supporting'],
}));
const person = fc.record({ id, created_at: at, updated_at: at, name: fc.constantFrom('Aiko', 'Ken'), favorites: count }).map((p) => ({
  ...p,
  given_name: 'Given',
  family_name: 'Family',
  alternate_names: [],
  birthday: '1980-01-02',
  category: 'director',
  language: 'japanese',
}));

interface Case {
  def: IndexDef<BaseRecord>;
  records: fc.Arbitrary<Record<string, unknown>>;
  numbers: fc.Arbitrary<Record<string, number | null>>;
}
const CASES: Record<string, Case> = {
  anime: { def: animeIndex as unknown as IndexDef<BaseRecord>, records: fc.tuple(animeArb, id, titleNumbers).map(([g, i, n]) => ({ ...record(g, i), ...n })), numbers: titleNumbers },
  manga: { def: mangaIndex as unknown as IndexDef<BaseRecord>, records: fc.tuple(manga, titleNumbers).map(([m, n]) => ({ ...m, ...n })), numbers: titleNumbers },
  character: { def: characterIndex as unknown as IndexDef<BaseRecord>, records: character, numbers: fc.record({ favorites: count, members: count }) },
  person: { def: personIndex as unknown as IndexDef<BaseRecord>, records: person, numbers: fc.record({ favorites: count }) },
};

describe('the ranked values of each index the rankings job writes', () => {
  for (const [name, { def, records, numbers }] of Object.entries(CASES)) {
    it(`${name}: new numbers change only the ranked values, and every one of them for some numbers`, () => {
      const ranked = def.ranked!;
      expect(ranked, name).toBeDefined();
      const changed = new Set<string>();
      fc.assert(
        fc.property(records, numbers, (r, n) => {
          const before = vectorOf(def, r as unknown as BaseRecord);
          const after = vectorOf(def, { ...r, ...n } as unknown as BaseRecord);
          expect(sameBut(before, after, ranked)).toBe(true);
          const [b, a] = [vectorFields(before, ranked), vectorFields(after, ranked)];
          for (const k of ranked.o) if (b.o[k] !== a.o[k]) changed.add(`o.${k}`);
          for (const k of ranked.x) if (b.x[k] !== a.x[k]) changed.add(`x.${k}`);
        }),
        { numRuns: 300, seed: 19 },
      );
      expect([...changed].sort()).toEqual([...ranked.o.map((k) => `o.${k}`), ...ranked.x.map((k) => `x.${k}`)].sort());
    });
  }

  it('the other indexes publish nothing through a patch', async () => {
    const { newsIndex } = await import('../../shared/db/news.js');
    expect(newsIndex.ranked).toBeUndefined();
  });
});
