/**
 * The catalogue source of the season refresh (API.md §5.5): the bangumi-data data set
 * (https://github.com/bangumi-data/bangumi-data, CC BY 4.0), read from the npm package
 * `bangumi-data`. This module checks its items, gives each a source key and maps it to an anime's
 * write values (API.md §3.3). The rules, in order (docs/decisions.md I1–I3):
 *
 *  1. Source key: the item's bangumi.tv id (`bangumi:<id>`); when the data set has no bangumi id
 *     for it, or several items share it, its MyAnimeList id (`mal:<id>`); else its original
 *     title and first broadcast date (`title:<title>@<YYYY-MM-DD>`). The first of these that no
 *     other item holds; an item with none of its own is skipped (an exact duplicate).
 *  2. `name`: the first English translation; without one, the original title (most older and
 *     lesser-known works: the data set has no romanisation). `name_jpn`: the original title of a
 *     Japanese work, else its Japanese translation, else "". `name_rom` is not given (""):
 *     nothing tells a romanised English entry from a translated one. `alternative_names`: the
 *     other titles (the original when it is not `name_jpn`, the other English ones, then the
 *     Chinese ones), distinct, at most 20.
 *  3. `media_type`: tv → tv, web → ona, movie → movie, ova → ova. `aired_from` / `aired_to`: the
 *     dates in Japan (Asia/Tokyo) of the first and the last broadcast (`begin`, `end`); a movie
 *     has one date (its `end` means nothing in the data set), so `aired_to` = `aired_from`.
 *  4. `broadcast`: a weekly recurrence `R/<start>/P7D` gives the weekday and HH:MM of its start
 *     in Asia/Tokyo; any other recurrence (`P0D` one broadcast, `P1D` daily, `P1M` monthly, …)
 *     gives `{day: other, time: null}`; none gives `null`.
 *  5. `website`: the official site when it is a valid http(s) URL, else `null`.
 *  5a. `external_ids` (API.md §8.2): the item's `mal`, `aniList`, `anidb` and `bangumi` site ids
 *     that are integers; one another item (earlier in import order) holds already is left out
 *     (catalogue-import.ts sourceCatalogue). `streaming`: its sites of type `onair` (the data
 *     set's `siteMeta`) with an id, as `{site: <the site's title>, url: <its page>}` (the
 *     item's own `url`, else the site's URL template filled with the id), https only, distinct,
 *     at most 20.
 *  6. Not in the data set, so left at their defaults: `episodes`, `duration_seconds` (the first
 *     and last broadcast do not give them: e.g. a first broadcast of several episodes), `source`,
 *     `rating`, `image`, `synopsis`, `background`, genres, studios and the other relations.
 * Each value goes through the API's own field schema (animeFields); a value that fails it is
 * left at its default and reported, never written as is.
 */
import * as z from 'zod/mini';
import { animeFields } from './animes.js';
import { line } from './fields.js';

/** The name of the source: its items' keys and the provenance of imported titles say where they came from. */
export const SOURCE = 'bangumi-data';

/**
 * The release of the data set: the package version pinned in package.json and the day it was
 * released (its release commit, `chore(release): 0.3.208`, from which the package is published).
 * The data carries no date of its own, and the airing status of titles without an end depends on
 * it (API.md §5.5; imported.ts statusOn). A unit test checks the version against the installed
 * package: a new version needs its date here.
 */
export const SOURCE_RELEASE = { version: '0.3.208', date: '2026-04-25' } as const;

const site = z.looseObject({ site: z.string(), id: z.optional(z.string()), url: z.optional(z.string()) });
/** The data set's description of a site: its title, kind (`info`, `onair`, `resource`) and page template. */
const siteMeta = z.record(z.string(), z.looseObject({ title: z.string(), type: z.string(), urlTemplate: z.optional(z.string()) }));
export type SiteMeta = z.output<typeof siteMeta>;

/** The fields of a bangumi-data item this import reads (the package's data.d.ts), others ignored. */
const sourceItem = z.looseObject({
  title: z.string(),
  titleTranslate: z.record(z.string(), z.array(z.string())),
  type: z.enum(['tv', 'web', 'movie', 'ova']),
  lang: z.string(),
  officialSite: z.optional(z.string()),
  begin: z.string(),
  broadcast: z.optional(z.string()),
  end: z.optional(z.string()),
  sites: z.array(site),
});
export type SourceItem = z.output<typeof sourceItem>;

/** An item of the source with its key and the ids it carries. */
export interface SourceEntry {
  key: string;
  bangumi: string | null;
  mal: string | null;
  item: SourceItem;
}

export interface SourceData {
  entries: SourceEntry[];
  /** The sites the items name (the streaming links' titles and pages). */
  sites: SiteMeta;
  /** Items left out, by their position in the data set, and why. */
  skipped: { index: number; reason: string }[];
}

const siteId = (item: SourceItem, name: string) => item.sites.find((s) => s.site === name && s.id)?.id ?? null;

/** The dates and times of the source are instants; the catalogue's are in Japan. */
const TOKYO = 'Asia/Tokyo';
const tokyoDay = new Intl.DateTimeFormat('en-CA', { timeZone: TOKYO, year: 'numeric', month: '2-digit', day: '2-digit' });
const tokyoSlot = new Intl.DateTimeFormat('en-GB', { timeZone: TOKYO, weekday: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

const instant = (s: string | undefined): Date | null => {
  if (!s) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
};

/** The date in Japan of an instant, `YYYY-MM-DD`. */
export const tokyoDate = (at: Date): string => tokyoDay.format(at);

/** Rule 1: each item's key, or null when it has none of its own. */
function sourceKeys(items: readonly SourceItem[]): (string | null)[] {
  const candidates = items.map((item) => {
    const bangumi = siteId(item, 'bangumi');
    const mal = siteId(item, 'mal');
    const begin = instant(item.begin);
    return [bangumi && `bangumi:${bangumi}`, mal && `mal:${mal}`, `title:${item.title}@${begin ? tokyoDate(begin) : ''}`].filter((k): k is string => Boolean(k));
  });
  const holders = new Map<string, number>();
  for (const keys of candidates) for (const k of keys) holders.set(k, (holders.get(k) ?? 0) + 1);
  return candidates.map((keys) => keys.find((k) => holders.get(k) === 1) ?? null);
}

/** The items of the data set that can be imported, with their keys; the others with the reason. */
export function readSource(data: unknown): SourceData {
  const raw = (data as { items?: unknown })?.items;
  if (!Array.isArray(raw)) throw new Error(`${SOURCE}: the data set has no list of items`);
  const skipped: SourceData['skipped'] = [];
  const parsed: { index: number; item: SourceItem }[] = [];
  raw.forEach((value, index) => {
    const out = sourceItem.safeParse(value);
    if (out.success) parsed.push({ index, item: out.data });
    else skipped.push({ index, reason: `not an item: ${out.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
  });
  const meta = siteMeta.safeParse((data as { siteMeta?: unknown }).siteMeta ?? {});
  const keys = sourceKeys(parsed.map((p) => p.item));
  const entries: SourceEntry[] = [];
  parsed.forEach(({ index, item }, i) => {
    const key = keys[i]!;
    if (key === null) skipped.push({ index, reason: 'no identifier of its own (a duplicate of another item)' });
    else entries.push({ key, bangumi: siteId(item, 'bangumi'), mal: siteId(item, 'mal'), item });
  });
  return { entries, skipped, sites: meta.success ? meta.data : {} };
}

/** The values an item gives an anime (the fields the import owns; status comes from the dates). */
export interface SourceValues {
  name: string;
  name_jpn: string;
  alternative_names: string[];
  media_type: string;
  aired_from: string | null;
  aired_to: string | null;
  broadcast: { day: string; time: string | null; timezone: string } | null;
  website: string | null;
  external_ids: Record<string, number>;
  streaming: { site: string; url: string }[];
}

/** Rule 5a: the data set's sites that are external ids (its name → ours). */
const ID_SITES: Record<string, string> = { mal: 'mal', aniList: 'anilist', anidb: 'anidb', bangumi: 'bangumi' };

function externalIdsOf(item: SourceItem): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [theirs, ours] of Object.entries(ID_SITES)) {
    const id = siteId(item, theirs);
    if (id !== null && /^\d{1,10}$/.test(id) && Number(id) >= 1 && Number(id) <= 1_000_000_000) out[ours] = Number(id);
  }
  return out;
}

function streamingOf(item: SourceItem, sites: SiteMeta): { site: string; url: string }[] {
  const out: { site: string; url: string }[] = [];
  for (const s of item.sites) {
    const meta = sites[s.site];
    if (meta?.type !== 'onair' || !s.id) continue;
    const url = s.url ?? meta.urlTemplate?.replace('{{id}}', s.id);
    if (!url?.startsWith('https://') || out.some((o) => o.url === url) || out.length >= 20) continue;
    out.push({ site: meta.title, url });
  }
  return out;
}

const MEDIA_TYPES: Record<SourceItem['type'], string> = { tv: 'tv', web: 'ona', movie: 'movie', ova: 'ova' };
const nameLine = line({ min: 1, max: 255 });
/** A title as the API stores it (NFC, trimmed), or null when the API would refuse it. */
const cleanTitle = (s: string | undefined): string | null => {
  const out = s === undefined ? null : nameLine.safeParse(s);
  return out?.success ? out.data : null;
};

/** Rule 4. */
function broadcastOf(recurrence: string | undefined): SourceValues['broadcast'] {
  const m = /^R\/([^/]+)\/P(\d+)([DWM])$/.exec(recurrence ?? '');
  const start = instant(m?.[1]);
  if (!m || !start) return null;
  const weekly = (m[3] === 'D' && m[2] === '7') || (m[3] === 'W' && m[2] === '1');
  if (!weekly) return { day: 'other', time: null, timezone: TOKYO };
  const parts = Object.fromEntries(tokyoSlot.formatToParts(start).map((p) => [p.type, p.value]));
  return { day: parts.weekday!.toLowerCase(), time: `${parts.hour}:${parts.minute}`, timezone: TOKYO };
}

/** A field's value if the API's field schema accepts it, else its default (and the field is reported). */
function checked<T>(field: keyof typeof animeFields, value: T, fallback: T, dropped: string[]): T {
  if (value === fallback) return value;
  const out = animeFields[field]!.schema.safeParse(value);
  if (out.success) return out.data as T;
  dropped.push(field);
  return fallback;
}

/**
 * Rules 2–5: the values of one item, or null when it has no usable title. `dropped` names the
 * fields whose source value the API's rules refused (left at their defaults).
 */
export function sourceValues(item: SourceItem, sites: SiteMeta = {}): { values: SourceValues; dropped: string[] } | null {
  const t = item.titleTranslate;
  const english = (t.en ?? []).map(cleanTitle).filter((s): s is string => s !== null);
  const original = cleanTitle(item.title);
  const name = english[0] ?? original;
  if (name === null) return null;
  const name_jpn = (item.lang === 'ja' ? original : null) ?? (t.ja ?? []).map(cleanTitle).find((s) => s !== null) ?? '';
  const others = [original, ...english.slice(1), ...(t.ja ?? []), ...Object.keys(t).filter((lang) => !['en', 'ja'].includes(lang)).sort().flatMap((lang) => t[lang]!)];
  const alternative_names: string[] = [];
  for (const raw of others) {
    const s = cleanTitle(raw ?? undefined);
    if (s !== null && s !== name && s !== name_jpn && !alternative_names.includes(s) && alternative_names.length < 20) alternative_names.push(s);
  }
  const dropped: string[] = [];
  const begin = instant(item.begin);
  const aired_from = checked('aired_from', begin ? tokyoDate(begin) : null, null, dropped);
  const end = item.type === 'movie' ? null : instant(item.end);
  let aired_to = checked('aired_to', item.type === 'movie' ? aired_from : end ? tokyoDate(end) : null, null, dropped);
  // §3.3: aired_to requires aired_from and is not before it.
  if (aired_to !== null && (aired_from === null || aired_to < aired_from)) {
    dropped.push('aired_to');
    aired_to = null;
  }
  const values: SourceValues = {
    name,
    name_jpn,
    alternative_names,
    media_type: MEDIA_TYPES[item.type],
    aired_from,
    aired_to,
    broadcast: checked('broadcast', broadcastOf(item.broadcast), null, dropped),
    website: checked('website', item.officialSite?.trim() || null, null, dropped),
    external_ids: externalIdsOf(item),
    streaming: [],
  };
  // Each link through the API's own rules (a page the URL rules refuse is left out, and reported).
  for (const link of streamingOf(item, sites)) {
    if (animeFields.streaming!.schema.safeParse([link]).success) values.streaming.push(link);
    else dropped.push('streaming');
  }
  return { values, dropped };
}

/**
 * The names an imported title may take, in order (docs/decisions.md I2): its own, then with the
 * year of `aired_from`, then with the year and a counter — `Name`, `Name (2019)`,
 * `Name (2019, 2)`, … (without a year: `Name (2)`, …) — each cut to the 255 characters of §3.3.
 */
export function* nameCandidates(name: string, aired_from: string | null): Generator<string> {
  const year = aired_from?.slice(0, 4) ?? null;
  const fit = (suffix: string) => [...name].slice(0, 255 - [...suffix].length).join('').trimEnd() + suffix;
  yield name;
  if (year !== null) yield fit(` (${year})`);
  for (let n = 2; ; n++) yield fit(year === null ? ` (${n})` : ` (${year}, ${n})`);
}
