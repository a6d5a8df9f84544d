/**
 * The catalogue index's items (shared/db/catalogue-index.ts): the word lists a record is on and
 * a term is looked up in (decision 103), and the sort keys of posting and word lists — the
 * record's key in the partition of the index's default ordering (decision 105), in either
 * direction.
 */
import { describe, expect, it } from 'vitest';
import { indexItems, termList, wordStarts, type IndexDef } from '../../shared/db/catalogue-index.js';
import type { BaseRecord } from '../../shared/db/records.js';
import { searchText } from '../../shared/text.js';

interface Rec extends BaseRecord {
  name: string;
  tag: string;
}

const indexOf = (listOrder: string): IndexDef<Rec> => ({
  kind: 'TEST',
  listOrder,
  orderings: { name: { value: (r) => r.name, type: 'text' }, created_at: { value: (r) => r.created_at, type: 'plain' } },
  filters: { tag: (r) => [r.tag] },
  postings: { tag: 'tag' },
  searchFields: (r) => [r.name],
  vectorBytes: 500,
});

const rec: Rec = { id: 'AAAAAAAAAAAAAAAAAAAAAA', created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-02T03:04:05.000Z', name: 'Shingeki no Kyojin 進撃の巨人', tag: 'x' };

describe('word lists', () => {
  it('a record is on the list of the first two and of the first three characters of each word (every Han or kana character starts a word)', () => {
    const starts = wordStarts(searchText([rec.name]));
    expect(starts).toEqual(expect.arrayContaining(['sh', 'shi', 'no', 'ky', 'kyo', '進撃', '進撃の', '撃の', '撃の巨', 'の巨', 'の巨人', '巨人']));
    // A two-letter word has no three-character list; a word's inside (Latin) starts nothing; a run's last character starts no list of two.
    expect(starts.filter((x) => x.startsWith('no') && [...x].length === 3)).toEqual([]);
    expect(starts).not.toContain('hi');
    expect(starts).not.toContain('人');
    expect(new Set(starts).size).toBe(starts.length);
  });

  it('a term is looked up in the list of its first three characters, or of its two; one character has none', () => {
    expect(termList('s')).toBeNull();
    expect(termList('sh')).toBe('W#sh');
    expect(termList('shi')).toBe('W#shi');
    expect(termList('shingeki')).toBe('W#shi');
    expect(termList('巨人')).toBe('W#巨人');
    expect(termList('進撃の巨人')).toBe('W#進撃の');
    // Code points, not UTF-16 units.
    expect(termList('𠀀𠀁𠀂𠀃')).toBe('W#𠀀𠀁𠀂');
  });
});

describe('list sort keys', () => {
  it('postings and word postings carry the record\'s key in the default ordering\'s partition, ascending or descending', () => {
    for (const [listOrder, pk] of [
      ['name', 'TEST#O#name#A'],
      ['-name', 'TEST#O#name#D'],
      ['-created_at', 'TEST#O#created_at#D'],
    ] as const) {
      const items = [...indexItems(indexOf(listOrder), rec).values()];
      const entry = items.find((i) => i.pk === pk)!;
      const lists = items.filter((i) => /^TEST#[PW]#/.test(String(i.pk)));
      expect(lists.length).toBeGreaterThan(10);
      expect(lists.every((i) => i.sk === entry.sk && i.id === rec.id)).toBe(true);
    }
  });

  it('an index whose default ordering is not one of its orderings is refused', () => {
    expect(() => indexItems(indexOf('score'), rec)).toThrow(/listOrder score/);
  });
});
