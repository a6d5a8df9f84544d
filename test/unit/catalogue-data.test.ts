/**
 * The benchmark catalogue (test/bench/catalogue-data.ts) at its small scale: deterministic,
 * every body valid under the write rules of API.md §1.2 and §3 that can be checked without the
 * server (fields, lengths, ranges, enums, distinctness, date order, https URLs, references to
 * records of the right kind), unique names, the distributions the brief asks for, placeholders
 * mapped to ids, and the query matrix's counts equal to a brute-force count.
 */
import { describe, expect, it } from 'vitest';
import {
  CREATION_ORDER,
  catalogue,
  matchCount,
  queryMatrix,
  resolveRefs,
  searchFields,
  SCALES,
  type AnimeWrite,
  type Bodies,
  type Catalogue,
  type Kind,
  type MangaWrite,
  type NewsWrite,
  type PersonWrite,
  type ProducerWrite,
  type Ref,
} from '../bench/catalogue-data.js';
import { normalize } from '../support/reference-list.js';

const TODAY = '2026-11-23';
const cat = catalogue({ scale: 'small', seed: 42, today: TODAY });
const all = <K extends Kind>(kind: K): Bodies[K][] => [...cat.bodies(kind)];

// Enumerations and write shapes as API.md §3.1–§3.8 list them.
const ENUMS = {
  animeMediaType: ['tv', 'ova', 'movie', 'special', 'ona', 'music'],
  animeSource: ['original', 'manga', 'novel', 'lnovel', 'vnovel', 'game', 'book', 'radio', 'music', 'other'],
  animeStatus: ['airing', 'finished', 'upcoming'],
  rating: ['g', 'pg', 'pg13', 'r', 'rplus', 'rx'],
  broadcastDay: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'other'],
  mangaMediaType: ['manga', 'light_novel', 'novel', 'oneshot', 'doujinshi', 'manhwa', 'manhua', 'oel'],
  mangaStatus: ['publishing', 'finished', 'upcoming', 'on_hiatus', 'discontinued'],
  producerType: ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'],
  characterRole: ['main', 'supporting'],
  personCategory: ['director', 'voice_actor', 'artist', 'writer', 'producer', 'other'],
  language: ['japanese', 'english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'korean', 'chinese'],
  authorRole: ['story', 'art', 'story_and_art'],
  videoKind: ['trailer', 'promo', 'music_video', 'other'],
  newsTag: ['pending', 'new_anime', 'new_manga', 'spoiler', 'review', 'interview', 'event', 'recommendation'],
};
const TITLE_FIELDS = ['name', 'name_jpn', 'name_rom', 'alternative_names', 'image', 'synopsis', 'background', 'website', 'genre_ids', 'theme_ids', 'pictures'];
const FIELDS: Record<Kind, string[]> = {
  genre: ['name', 'description'],
  theme: ['name', 'description'],
  demographic: ['name', 'description'],
  producer: ['name', 'name_jpn', 'type', 'about', 'established', 'image', 'website'],
  magazine: ['name'],
  person: ['name', 'given_name', 'family_name', 'alternate_names', 'image', 'birthday', 'about', 'website', 'language', 'category', 'pictures'],
  character: ['name', 'name_kanji', 'nicknames', 'about', 'image'],
  anime: [...TITLE_FIELDS, 'media_type', 'source', 'status', 'rating', 'episodes', 'duration_seconds', 'aired_from', 'aired_to', 'broadcast', 'studio_ids', 'producer_ids', 'licensor_ids', 'characters', 'staff', 'videos'],
  manga: [...TITLE_FIELDS, 'media_type', 'status', 'chapters', 'volumes', 'published_from', 'published_to', 'demographic_ids', 'magazine_ids', 'authors', 'characters'],
  news: ['name', 'description', 'content', 'image', 'source', 'tag', 'anime_ids', 'manga_ids'],
};

/** Collects the rule violations of one body, as `path: problem`. */
class Checker {
  readonly problems: string[] = [];
  constructor(private readonly where: string) {}
  private fail(path: string, problem: string) {
    this.problems.push(`${this.where}.${path}: ${problem}`);
  }
  /** A single-line string (§1.2): NFC, trimmed, no control characters, min–max code points. */
  string(path: string, v: unknown, min: number, max: number) {
    if (typeof v !== 'string') return this.fail(path, 'not a string');
    const length = [...v].length;
    if (v !== v.normalize('NFC')) this.fail(path, 'not NFC');
    if (v !== v.trim()) this.fail(path, 'not trimmed');
    // eslint-disable-next-line no-control-regex -- control characters are what is checked
    if (/[\u0000-\u001f\u007f]/.test(v)) this.fail(path, 'control character');
    if (length < min || length > max) this.fail(path, `length ${length} outside ${min}–${max}`);
  }
  /** A text field: \n, \r and \t allowed, no other control character. */
  text(path: string, v: unknown, min: number, max: number) {
    if (typeof v !== 'string') return this.fail(path, 'not a string');
    // eslint-disable-next-line no-control-regex -- control characters are what is checked
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(v)) this.fail(path, 'control character');
    const length = [...v].length;
    if (length < min || length > max) this.fail(path, `length ${length} outside ${min}–${max}`);
  }
  int(path: string, v: unknown, min: number, max: number, nullable = true) {
    if (v === null && nullable) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) this.fail(path, `${String(v)} not an integer in ${min}–${max}`);
  }
  enum(path: string, v: unknown, values: readonly string[], nullable = false) {
    if (v === null && nullable) return;
    if (typeof v !== 'string' || !values.includes(v)) this.fail(path, `${String(v)} not one of ${values.join(', ')}`);
  }
  /** A url (§1.2): absolute https (or http where allowed), host, no credentials, no white space. */
  url(path: string, v: unknown, httpToo = false) {
    if (v === null) return;
    if (typeof v !== 'string' || /\s/.test(v) || v.length > 2048) return this.fail(path, 'not a url');
    const u = new URL(v);
    if (!(u.protocol === 'https:' || (httpToo && u.protocol === 'http:')) || u.host === '' || u.username !== '' || u.password !== '') this.fail(path, `${v} is not allowed`);
  }
  date(path: string, v: unknown, min: string, max: string) {
    if (v === null) return;
    const real = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
    if (!real || v < min || v > max) this.fail(path, `${String(v)} not a date in ${min} – ${max}`);
  }
  dateOrder(path: string, from: string | null, to: string | null) {
    if (to !== null && (from === null || to < from)) this.fail(path, `${to} without or before ${String(from)}`);
  }
  array(path: string, v: unknown[], max: number, key: (x: any) => unknown = (x) => x) {
    if (v.length > max) this.fail(path, `${v.length} items, at most ${max}`);
    if (new Set(v.map(key)).size !== v.length) this.fail(path, 'items not distinct');
  }
  refs(path: string, v: Ref[], kind: Kind, max: number, ok: (index: number) => boolean = () => true) {
    this.array(path, v, max, (r: Ref) => r.index);
    v.forEach((r, k) => {
      if (r.ref !== kind || !Number.isInteger(r.index) || r.index < 0 || r.index >= cat.sizes[kind] || !ok(r.index)) this.fail(`${path}.${k}`, `bad reference ${JSON.stringify(r)}`);
    });
  }
  pictures(v: { url: string; name: string }[]) {
    this.array('pictures', v, 100, (p) => p.url);
    v.forEach((p, k) => {
      this.url(`pictures.${k}.url`, p.url);
      this.string(`pictures.${k}.name`, p.name, 0, 100);
    });
  }
  strings(path: string, v: string[], maxItems: number, maxLength: number) {
    this.array(path, v, maxItems);
    v.forEach((s, k) => this.string(`${path}.${k}`, s, 1, maxLength));
  }
}

const producerTypes = all('producer').map((p) => p.type);

function checkTitle(c: Checker, b: AnimeWrite | MangaWrite) {
  c.string('name', b.name, 1, 255);
  c.string('name_jpn', b.name_jpn, 0, 255);
  c.string('name_rom', b.name_rom, 0, 255);
  c.strings('alternative_names', b.alternative_names, 20, 255);
  c.url('image', b.image);
  c.text('synopsis', b.synopsis, 0, 10_000);
  c.text('background', b.background, 0, 5_000);
  c.url('website', b.website, true);
  c.refs('genre_ids', b.genre_ids, 'genre', 20);
  c.refs('theme_ids', b.theme_ids, 'theme', 20);
  c.pictures(b.pictures);
}

function checkAnime(c: Checker, b: AnimeWrite) {
  checkTitle(c, b);
  c.enum('media_type', b.media_type, ENUMS.animeMediaType);
  c.enum('source', b.source, ENUMS.animeSource, true);
  c.enum('status', b.status, ENUMS.animeStatus);
  c.enum('rating', b.rating, ENUMS.rating, true);
  c.int('episodes', b.episodes, 1, 5_000);
  c.int('duration_seconds', b.duration_seconds, 1, 86_400);
  c.date('aired_from', b.aired_from, '1900-01-01', '2100-12-31');
  c.date('aired_to', b.aired_to, '1900-01-01', '2100-12-31');
  c.dateOrder('aired_to', b.aired_from, b.aired_to);
  if (b.broadcast !== null) {
    expect(Object.keys(b.broadcast).sort()).toEqual(['day', 'time', 'timezone']);
    c.enum('broadcast.day', b.broadcast.day, ENUMS.broadcastDay);
    if (b.broadcast.day !== 'other' || b.broadcast.time !== null) {
      if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(b.broadcast.time ?? '')) c.problems.push(`broadcast.time ${String(b.broadcast.time)}`);
    }
    c.string('broadcast.timezone', b.broadcast.timezone, 1, 255);
  }
  c.refs('studio_ids', b.studio_ids, 'producer', 10, (i) => producerTypes[i] === 'studio');
  c.refs('producer_ids', b.producer_ids, 'producer', 30);
  c.refs('licensor_ids', b.licensor_ids, 'producer', 10, (i) => producerTypes[i] === 'licensor');
  c.array('characters', b.characters, 500, (x) => x.character_id.index);
  b.characters.forEach((x, k) => {
    expect(Object.keys(x).sort()).toEqual(['character_id', 'role', 'voice_actors']);
    c.refs(`characters.${k}.character_id`, [x.character_id], 'character', 1);
    c.enum(`characters.${k}.role`, x.role, ENUMS.characterRole);
    c.array(`characters.${k}.voice_actors`, x.voice_actors, 20, (v) => `${v.person_id.index}/${v.language}`);
    x.voice_actors.forEach((v, j) => {
      c.refs(`characters.${k}.voice_actors.${j}.person_id`, [v.person_id], 'person', 1);
      c.enum(`characters.${k}.voice_actors.${j}.language`, v.language, ENUMS.language);
    });
  });
  c.array('staff', b.staff, 300, (s) => s.person_id.index);
  b.staff.forEach((s, k) => {
    c.refs(`staff.${k}.person_id`, [s.person_id], 'person', 1);
    if (s.positions.length < 1) c.problems.push(`staff.${k}.positions empty`);
    c.strings(`staff.${k}.positions`, s.positions, 10, 100);
  });
  c.array('videos', b.videos, 50, (v) => v.url);
  b.videos.forEach((v, k) => {
    c.string(`videos.${k}.title`, v.title, 1, 200);
    c.url(`videos.${k}.url`, v.url);
    c.enum(`videos.${k}.kind`, v.kind, ENUMS.videoKind);
  });
}

function checkManga(c: Checker, b: MangaWrite) {
  checkTitle(c, b);
  c.enum('media_type', b.media_type, ENUMS.mangaMediaType);
  c.enum('status', b.status, ENUMS.mangaStatus);
  c.int('chapters', b.chapters, 1, 100_000);
  c.int('volumes', b.volumes, 1, 1_000);
  c.date('published_from', b.published_from, '1900-01-01', '2100-12-31');
  c.date('published_to', b.published_to, '1900-01-01', '2100-12-31');
  c.dateOrder('published_to', b.published_from, b.published_to);
  c.refs('demographic_ids', b.demographic_ids, 'demographic', 5);
  c.refs('magazine_ids', b.magazine_ids, 'magazine', 10);
  c.array('authors', b.authors, 20, (a) => a.person_id.index);
  b.authors.forEach((a, k) => {
    c.refs(`authors.${k}.person_id`, [a.person_id], 'person', 1);
    c.enum(`authors.${k}.role`, a.role, ENUMS.authorRole);
  });
  c.array('characters', b.characters, 500, (x) => x.character_id.index);
  b.characters.forEach((x, k) => {
    c.refs(`characters.${k}.character_id`, [x.character_id], 'character', 1);
    c.enum(`characters.${k}.role`, x.role, ENUMS.characterRole);
  });
}

function checkBody(kind: Kind, body: Bodies[Kind], where: string): string[] {
  const c = new Checker(where);
  expect(Object.keys(body).sort(), where).toEqual([...FIELDS[kind]].sort());
  switch (kind) {
    case 'genre':
    case 'theme':
    case 'demographic': {
      const b = body as Bodies['genre'];
      c.string('name', b.name, 1, 50);
      c.text('description', b.description, 0, 1_000);
      break;
    }
    case 'producer': {
      const b = body as ProducerWrite;
      c.string('name', b.name, 1, 255);
      c.string('name_jpn', b.name_jpn, 0, 255);
      c.enum('type', b.type, ENUMS.producerType);
      c.text('about', b.about, 0, 5_000);
      c.date('established', b.established, '1800-01-01', TODAY);
      c.url('image', b.image);
      c.url('website', b.website, true);
      break;
    }
    case 'magazine':
      c.string('name', (body as Bodies['magazine']).name, 1, 255);
      break;
    case 'person': {
      const b = body as PersonWrite;
      c.string('name', b.name, 1, 255);
      c.string('given_name', b.given_name, 0, 255);
      c.string('family_name', b.family_name, 0, 255);
      c.strings('alternate_names', b.alternate_names, 20, 255);
      c.url('image', b.image);
      c.date('birthday', b.birthday, '1800-01-01', TODAY);
      c.text('about', b.about, 0, 10_000);
      c.url('website', b.website, true);
      c.enum('language', b.language, ENUMS.language);
      c.enum('category', b.category, ENUMS.personCategory);
      c.pictures(b.pictures);
      break;
    }
    case 'character': {
      const b = body as Bodies['character'];
      c.string('name', b.name, 1, 255);
      c.string('name_kanji', b.name_kanji, 0, 255);
      c.strings('nicknames', b.nicknames, 20, 100);
      c.text('about', b.about, 0, 10_000);
      c.url('image', b.image);
      break;
    }
    case 'anime':
      checkAnime(c, body as AnimeWrite);
      break;
    case 'manga':
      checkManga(c, body as MangaWrite);
      break;
    case 'news': {
      const b = body as NewsWrite;
      c.string('name', b.name, 1, 200);
      c.text('description', b.description, 0, 500);
      c.text('content', b.content, 1, 50_000);
      c.url('image', b.image);
      c.url('source', b.source, true);
      c.enum('tag', b.tag, ENUMS.newsTag);
      c.refs('anime_ids', b.anime_ids, 'anime', 50);
      c.refs('manga_ids', b.manga_ids, 'manga', 50);
      break;
    }
  }
  return c.problems;
}

describe('the catalogue', () => {
  it('is deterministic: the same seed and day give the same data, another seed other data', () => {
    const again = catalogue({ scale: 'small', seed: 42, today: TODAY });
    const other = catalogue({ scale: 'small', seed: 43, today: TODAY });
    for (const kind of CREATION_ORDER) {
      expect(JSON.stringify([...again.bodies(kind)]), kind).toBe(JSON.stringify(all(kind)));
      expect(again.popularityWeight('anime', 3)).toBe(cat.popularityWeight('anime', 3));
    }
    expect(JSON.stringify([...other.bodies('anime')])).not.toBe(JSON.stringify(all('anime')));
    expect(cat.body('anime', 7)).toEqual(all('anime')[7]);
  });

  it('has the sizes of its scale', () => {
    for (const kind of CREATION_ORDER) expect(all(kind), kind).toHaveLength(SCALES.small[kind]);
    expect(() => cat.body('anime', SCALES.small.anime)).toThrow(RangeError);
    expect(() => catalogue({ scale: { ...SCALES.small, producer: 5 } })).toThrow(RangeError);
  });

  it('writes only valid bodies', () => {
    const problems = CREATION_ORDER.flatMap((kind) => all(kind).flatMap((b, i) => checkBody(kind, b, `${kind}#${i}`)));
    expect(problems.slice(0, 20)).toEqual([]);
  });

  it('gives unique names where the contract requires them', () => {
    for (const kind of ['genre', 'theme', 'demographic', 'producer', 'magazine', 'anime', 'manga'] as const) {
      const names = all(kind).map((b) => b.name);
      // The contract's rule (case-insensitive after NFC and trimming), and N(name) too.
      expect(new Set(names.map((n) => n.normalize('NFC').trim().toLowerCase())).size, kind).toBe(names.length);
      expect(new Set(names.map(normalize)).size, kind).toBe(names.length);
    }
  });

  it('keeps statuses and dates consistent with today', () => {
    for (const a of all('anime')) {
      if (a.status === 'upcoming') expect(a.aired_from === null || a.aired_from > TODAY).toBe(true);
      if (a.status === 'airing') expect(a.aired_from! <= TODAY && (a.aired_to === null || a.aired_to >= TODAY)).toBe(true);
      if (a.status === 'finished') expect(a.aired_to === null || a.aired_to < TODAY).toBe(true);
      expect((a.aired_from ?? '1960') >= '1960').toBe(true);
    }
    for (const m of all('manga')) {
      if (m.status === 'upcoming') expect(m.published_from === null || m.published_from > TODAY).toBe(true);
      else expect(m.published_from! <= TODAY && (m.published_to ?? TODAY) <= TODAY).toBe(true);
    }
  });

  it('has the relation counts of the brief', () => {
    const between = (n: number, lo: number, hi: number) => n >= lo && n <= hi;
    for (const a of all('anime')) {
      const mains = a.characters.filter((x) => x.role === 'main').length;
      expect(between(a.characters.length, 10, 60) && between(mains, 1, 4), a.name).toBe(true);
      expect(a.characters.every((x) => between(x.voice_actors.length, 1, 4))).toBe(true);
      expect(between(a.staff.length, 5, 40) && a.staff.every((s) => between(s.positions.length, 1, 3))).toBe(true);
      expect(between(a.genre_ids.length, 1, 5) && between(a.theme_ids.length, 0, 4)).toBe(true);
      expect(between(a.studio_ids.length, 1, 3) && between(a.producer_ids.length, 0, 6) && between(a.licensor_ids.length, 0, 2)).toBe(true);
      expect(between(a.videos.length, 0, 3) && between(a.pictures.length, 0, 4)).toBe(true);
      if (a.media_type === 'tv' && a.broadcast !== null && a.broadcast.day !== 'other') expect(a.broadcast.timezone).toBe('Asia/Tokyo');
    }
    for (const m of all('manga')) {
      expect(between(m.characters.length, 5, 40) && between(m.authors.length, 1, 3), m.name).toBe(true);
      expect(between(m.magazine_ids.length, 0, 2) && between(m.demographic_ids.length, 0, 2)).toBe(true);
    }
    for (const n of all('news')) expect(between(n.anime_ids.length, 0, 3) && between(n.manga_ids.length, 0, 2)).toBe(true);
    const animes = all('anime');
    const share = (p: (a: AnimeWrite) => boolean) => animes.filter(p).length / animes.length;
    expect(share((a) => a.media_type === 'tv')).toBeGreaterThan(0.3);
    expect(share((a) => a.status === 'finished')).toBeGreaterThan(0.8);
    expect(share((a) => a.rating === 'pg13')).toBeGreaterThan(0.4);
    expect(share((a) => a.name_jpn !== '' && /\p{Script=Han}|\p{Script=Katakana}|\p{Script=Hiragana}/u.test(a.name_jpn))).toBeGreaterThan(0.9);
  });

  it('shares title words with a skewed frequency and writes some accents and apostrophes', () => {
    const titles = [...all('anime'), ...all('manga')].map((t) => t.name);
    const df = new Map<string, number>();
    for (const t of titles) for (const w of new Set(normalize(t).match(/[\p{L}\p{N}]+/gu))) df.set(w, (df.get(w) ?? 0) + 1);
    const counts = [...df.values()].sort((a, b) => b - a);
    expect(counts[0]! / titles.length).toBeGreaterThan(0.05);
    expect(counts.filter((n) => n === 1).length).toBeGreaterThan(100);
    expect(titles.some((t) => /['\u2019]s\b/.test(t))).toBe(true);
    expect(titles.some((t) => t.normalize('NFKD') !== t)).toBe(true);
  });

  it('gives popularity weights by Zipf rank', () => {
    const weights = Array.from({ length: cat.sizes.manga }, (_, i) => cat.popularityWeight('manga', i)).sort((a, b) => b - a);
    expect(weights.slice(0, 3)).toEqual([1, 1 / 2, 1 / 3]);
    expect(weights.at(-1)).toBe(1 / cat.sizes.manga);
  });
});

describe('placeholders', () => {
  const ids = Object.fromEntries(CREATION_ORDER.map((k) => [k, Array.from({ length: cat.sizes[k] }, (_, i) => `${k}-${i}`)]));

  it('map to the ids created for them, everywhere in a body', () => {
    const body = cat.body('anime', 0);
    const resolved = resolveRefs(body, ids);
    expect(resolved.name).toBe(body.name);
    expect(resolved.genre_ids).toEqual(body.genre_ids.map((r) => `genre-${r.index}`));
    expect(resolved.characters[0]!.character_id).toBe(`character-${body.characters[0]!.character_id.index}`);
    expect(resolved.characters[0]!.voice_actors[0]!.person_id).toBe(`person-${body.characters[0]!.voice_actors[0]!.person_id.index}`);
    expect(JSON.stringify(resolved)).not.toContain('"ref"');
    expect(resolveRefs(cat.body('genre', 0), {})).toEqual(cat.body('genre', 0));
  });

  it('refuse a record that has no id yet', () => {
    const body = cat.body('news', cat.sizes.news - 1);
    const withRefs = body.anime_ids.length > 0 ? body : { ...body, anime_ids: [{ ref: 'anime' as const, index: 0 }] };
    expect(() => resolveRefs(withRefs, { ...ids, anime: [] })).toThrow(/anime #/);
  });
});

describe('search statistics', () => {
  it('reads the search fields of each list', () => {
    for (const kind of ['anime', 'manga', 'character', 'person', 'news'] as const) {
      for (let i = 0; i < 20; i++) expect(cat.searchTexts(kind, i)).toEqual(searchFields(kind, cat.body(kind, i)));
    }
  });

  it('counts the matches of the query matrix exactly', () => {
    const matrix = queryMatrix(cat);
    const labels = (kind: Kind) => matrix.filter((c) => c.kind === kind).map((c) => c.label);
    expect(labels('anime')).toEqual(expect.arrayContaining(['top', 'common', 'unique', 'prefix', 'two-terms', 'han', 'none']));
    for (const c of matrix) expect(c.matches, `${c.kind} ${c.label} ${c.q}`).toBe(matchCount(cat as Catalogue, c.kind, c.q));
    const byLabel = (label: string) => matrix.find((c) => c.kind === 'anime' && c.label === label)!.matches;
    expect(byLabel('top')).toBeGreaterThan(byLabel('common'));
    expect(byLabel('unique')).toBe(1);
    expect(byLabel('none')).toBe(0);
  });
});
