/**
 * Animes (API.md §3.3, §4.1.1): write shape, read shape, list options, and how a write becomes a
 * stored record — derived fields (`season`, `year`, `trailer_url`; `next_episode` at response
 * time, broadcast.ts), references checked against
 * the records they name (§1.2 "References"), videos and pictures keeping their ids by `url`
 * (§3.2, media.ts), and the counts of linked genres, themes and producers (§3.7).
 */
import * as z from 'zod/mini';
import { animeTitle, type AnimeRecord, type Ref } from '../db/animes.js';
import type { Relations } from '../db/titles.js';
import { addError, fieldErrors, type FieldErrors } from '../problem.js';
import { enumParam, idParam, scoreParam } from './params.js';
import { AnimeMediaType, AnimeSource, AnimeStatus, BroadcastDay, CharacterRole, Language, Rating, Season, VideoKind } from './enums.js';
import { date, dateOrderErrors, distinctList, id, idList, line, oneOf, optional, optionalNullable, required, url } from './fields.js';
import { keepByUrl, keepPictures, writtenPictures, type Picture } from './media.js';
import { checkReferences, linkCounts, type Reference } from './references.js';
import { isTimeZone, nextEpisode, WEEKDAYS } from './broadcast.js';
import { seasonOf, yearString } from './seasons.js';
import type { TitleResource } from './title-resource.js';
import { externalIdParams, externalIdsField, externalIdsRead, nullableUrl, refShape, streamingField, streamingRead, titleFields, titleRead } from './title-fields.js';
import { ANIME_SITES, externalIdField, type ExternalIds } from '../db/external-ids.js';


const broadcastWrite = z
  .strictObject({
    day: oneOf(BroadcastDay),
    time: z.pipe(
      z.optional(z.nullable(z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Enter a time as HH:MM (24-hour).')))),
      z.transform((v) => v ?? null),
    ),
    timezone: z.pipe(
      z.optional(line({ max: 64 }).check(z.refine(isTimeZone, 'Not a known IANA time zone.'))),
      z.transform((v) => v ?? 'Asia/Tokyo'),
    ),
  })
  .check(
    z.superRefine((b, ctx) => {
      if (WEEKDAYS.includes(b.day) && b.time === null) ctx.addIssue({ code: 'custom', message: 'Required when day is a weekday.', path: ['time'] });
    }),
  );

const voiceActorWrite = z.strictObject({ person_id: id(), language: oneOf(Language) });
const characterWrite = z.strictObject({
  character_id: id(),
  role: oneOf(CharacterRole),
  voice_actors: z.pipe(
    z.optional(distinctList(voiceActorWrite, { max: 20, key: (v) => `${v.person_id} ${v.language}`, message: 'Duplicate voice actor and language.' })),
    z.transform((v) => v ?? []),
  ),
});
/**
 * §7.1: voice-actor entries of one anime, in total over `characters[].voice_actors` (each feeds
 * one entry of a person's `voices/`, which the relations consumer writes: decision N5).
 */
export const MAX_VOICE_ACTOR_ENTRIES = 1_000;
const voiceActorEntries = (cast: readonly { voice_actors: readonly unknown[] }[]) => cast.reduce((n, c) => n + c.voice_actors.length, 0);

const staffWrite = z.strictObject({
  person_id: id(),
  positions: distinctList(line({ min: 1, max: 100 }), { min: 1, max: 10, message: 'Duplicate position.' }),
});
const videoWrite = z.strictObject({
  title: line({ min: 1, max: 200 }),
  url: url(),
  kind: z.pipe(z.optional(oneOf(VideoKind)), z.transform((v) => v ?? 'other')),
});

export const animeFields = {
  name: required(line({ min: 1, max: 255 }), 'Unique among animes, case-insensitively.'),
  name_jpn: titleFields.name_jpn,
  name_rom: titleFields.name_rom,
  alternative_names: titleFields.alternative_names,
  image: titleFields.image,
  synopsis: titleFields.synopsis,
  background: titleFields.background,
  media_type: optional(oneOf(AnimeMediaType), () => 'tv'),
  source: optionalNullable(oneOf(AnimeSource)),
  status: optional(oneOf(AnimeStatus), () => 'upcoming'),
  rating: optionalNullable(oneOf(Rating)),
  episodes: optionalNullable(z.int().check(z.gte(1), z.lte(5_000))),
  duration_seconds: optionalNullable(z.int().check(z.gte(1), z.lte(86_400))),
  aired_from: optionalNullable(date({ min: '1900-01-01', max: '2100-12-31' })),
  aired_to: optionalNullable(date({ min: '1900-01-01', max: '2100-12-31' })),
  broadcast: optionalNullable(broadcastWrite),
  website: titleFields.website,
  external_ids: externalIdsField(ANIME_SITES),
  streaming: streamingField,
  genre_ids: titleFields.genre_ids,
  theme_ids: titleFields.theme_ids,
  studio_ids: optional(idList(10), () => []),
  producer_ids: optional(idList(30), () => []),
  licensor_ids: optional(idList(10), () => []),
  characters: optional(
    distinctList(characterWrite, { max: 500, key: (c) => c.character_id, field: 'character_id', message: 'Duplicate character.' }).check(
      z.refine((cast) => voiceActorEntries(cast) <= MAX_VOICE_ACTOR_ENTRIES, `At most ${MAX_VOICE_ACTOR_ENTRIES.toLocaleString('en')} voice-actor entries in total over characters[].voice_actors.`),
    ),
    () => [],
  ),
  staff: optional(distinctList(staffWrite, { max: 300, key: (s) => s.person_id, field: 'person_id', message: 'Duplicate person.' }), () => []),
  videos: optional(distinctList(videoWrite, { max: 50, key: (v) => v.url, field: 'url', message: 'Duplicate URL.' }), () => []),
  pictures: titleFields.pictures,
};

const t = titleRead;

export const animeRead = z.object({
  id: t.id,
  created_at: t.created_at,
  updated_at: t.updated_at,
  name: t.name,
  name_jpn: t.name_jpn,
  name_rom: t.name_rom,
  alternative_names: t.alternative_names,
  image: t.image,
  synopsis: t.synopsis,
  background: t.background,
  media_type: z.enum(AnimeMediaType),
  source: z.nullable(z.enum(AnimeSource)),
  status: z.enum(AnimeStatus),
  rating: z.nullable(z.enum(Rating)),
  episodes: z.nullable(z.int()),
  duration_seconds: z.nullable(z.int()),
  aired_from: t.from,
  aired_to: t.to,
  season: z.nullable(z.enum(Season)),
  year: z.nullable(z.int()),
  broadcast: z.nullable(z.object({ day: z.enum(BroadcastDay), time: z.nullable(z.string()), timezone: z.string() })),
  next_episode: z.nullable(z.object({ number: z.int(), airs_at: z.string().check(z.meta({ format: 'date-time' })) })),
  genres: t.genres,
  themes: t.themes,
  studios: z.array(refShape),
  producers: z.array(refShape),
  licensors: z.array(refShape),
  trailer_url: nullableUrl,
  website: t.website,
  external_ids: externalIdsRead(ANIME_SITES),
  streaming: streamingRead,
  score: t.score,
  scored_by: t.scored_by,
  members: t.members,
  favorites: t.favorites,
  rank: t.rank,
  popularity: t.popularity,
});

interface Video {
  id: string;
  title: string;
  url: string;
  kind: string;
  created_at: string;
  updated_at: string;
}

/** The references of an anime's write, each at its field path. */
function references(v: Record<string, unknown>): Reference[] {
  const list = (field: string) => v[field] as string[];
  const refs: Reference[] = [
    ...list('genre_ids').map((id, i) => ({ path: `genre_ids.${i}`, kind: 'GENRE', id, noun: 'genre' })),
    ...list('theme_ids').map((id, i) => ({ path: `theme_ids.${i}`, kind: 'THEME', id, noun: 'theme' })),
    ...list('studio_ids').map((id, i) => ({ path: `studio_ids.${i}`, kind: 'PRODUCER', id, noun: 'studio', type: 'studio' })),
    ...list('producer_ids').map((id, i) => ({ path: `producer_ids.${i}`, kind: 'PRODUCER', id, noun: 'producer' })),
    ...list('licensor_ids').map((id, i) => ({ path: `licensor_ids.${i}`, kind: 'PRODUCER', id, noun: 'licensor', type: 'licensor' })),
  ];
  (v.characters as { character_id: string; voice_actors: { person_id: string }[] }[]).forEach((c, i) => {
    refs.push({ path: `characters.${i}.character_id`, kind: 'CHARACTER', id: c.character_id, noun: 'character' });
    c.voice_actors.forEach((a, j) => refs.push({ path: `characters.${i}.voice_actors.${j}.person_id`, kind: 'PERSON', id: a.person_id, noun: 'person' }));
  });
  (v.staff as { person_id: string }[]).forEach((s, i) => refs.push({ path: `staff.${i}.person_id`, kind: 'PERSON', id: s.person_id, noun: 'person' }));
  return refs;
}

/** Cross-field rules, checked on the resulting record (§1.8). */
function crossFieldErrors(v: Record<string, unknown>): FieldErrors {
  const errors = fieldErrors();
  dateOrderErrors(errors, v, 'aired_from', 'aired_to');
  return errors;
}

/** The producers credited by an anime, with the credits each role adds (for their counts). */
function producerCredits(r: AnimeRecord): Map<string, Record<string, number>> {
  const credits = new Map<string, Record<string, number>>();
  const role = (refs: Ref[], attr?: string) => {
    for (const ref of refs) {
      const c = credits.get(ref.id) ?? { 'rec.anime_count': 1 };
      if (attr) c[attr] = 1;
      credits.set(ref.id, c);
    }
  };
  role(r.studios, 'priv.studio_credits');
  role(r.producers, 'priv.producer_credits');
  role(r.licensors, 'priv.licensor_credits');
  return credits;
}

/** Each linked record with what it counts of this anime. */
function linked(r: AnimeRecord | null): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  if (!r) return out;
  for (const g of r.genres) out.set(`GENRE#${g.id}`, { 'rec.anime_count': 1 });
  for (const t of r.themes) out.set(`THEME#${t.id}`, { 'rec.anime_count': 1 });
  for (const [id, c] of producerCredits(r)) out.set(`PRODUCER#${id}`, c);
  return out;
}

export const animes: TitleResource<AnimeRecord> = {
  segment: 'animes',
  noun: 'anime',
  title: animeTitle,
  writer: 'contributor',
  fields: animeFields,
  read: animeRead,
  list: {
    orderings: ['name', 'aired_from', 'score', 'members', 'favorites', 'rank', 'popularity', 'created_at', 'updated_at'],
    // The index's posting lists follow the default ordering (catalogue-index.ts).
    defaultOrdering: animeTitle.index.listOrder,
    search: true,
    relevance: true,
    filters: {
      media_type: enumParam(AnimeMediaType),
      status: enumParam(AnimeStatus),
      season: enumParam(Season),
      year: z.optional(yearString()),
      genre: idParam,
      theme: idParam,
      studio: idParam,
      rating: enumParam(Rating),
      min_score: scoreParam,
      ...externalIdParams(ANIME_SITES),
    },
    references: { genre: 'GENRE', theme: 'THEME', studio: 'PRODUCER' },
    ranges: { min_score: 'score' },
    sfw: 'ANIME',
    lookups: Object.fromEntries(ANIME_SITES.map((site) => [`${site}_id`, externalIdField(site)])),
  },
  writable: (r, rel) => ({
    ...Object.fromEntries(Object.keys(animeFields).filter((k) => k in r).map((k) => [k, (r as unknown as Record<string, unknown>)[k]])),
    genre_ids: r.genres.map((g) => g.id),
    theme_ids: r.themes.map((g) => g.id),
    studio_ids: r.studios.map((g) => g.id),
    producer_ids: r.producers.map((g) => g.id),
    licensor_ids: r.licensors.map((g) => g.id),
    broadcast: r.broadcast,
    external_ids: r.external_ids ?? {},
    streaming: r.streaming ?? [],
    characters: rel.characters,
    staff: rel.staff,
    videos: (rel.videos as Video[]).map((x) => ({ title: x.title, url: x.url, kind: x.kind })),
    pictures: writtenPictures(rel.pictures as Picture[]),
  }),
  async build(v, meta, before, check = checkReferences) {
    const errors = crossFieldErrors(v);
    const { errors: refErrors, names } = await check(references(v));
    for (const [path, messages] of Object.entries(refErrors)) for (const m of messages) addError(errors, path, m);
    if (Object.keys(errors).length > 0) return { errors };
    const refs = (kind: string, field: string) => (v[field] as string[]).map((id) => ({ id, name: names.get(`${kind}#${id}`)! }));
    const videos = keepByUrl<Video>(v.videos as Record<string, unknown>[], (before?.relations.videos ?? []) as Video[], meta.updated_at, (w) => ({
      title: w.title as string,
      url: w.url as string,
      kind: w.kind as string,
    }));
    const pictures = keepPictures(v.pictures as Record<string, unknown>[], (before?.relations.pictures ?? []) as Picture[], meta.updated_at);
    const prev = before?.record;
    const record: AnimeRecord = {
      id: meta.id,
      created_at: meta.created_at,
      updated_at: meta.updated_at,
      name: v.name as string,
      name_jpn: v.name_jpn as string,
      name_rom: v.name_rom as string,
      alternative_names: v.alternative_names as string[],
      image: v.image as string | null,
      synopsis: v.synopsis as string,
      background: v.background as string,
      media_type: v.media_type as string,
      source: v.source as string | null,
      status: v.status as string,
      rating: v.rating as string | null,
      episodes: v.episodes as number | null,
      duration_seconds: v.duration_seconds as number | null,
      aired_from: v.aired_from as string | null,
      aired_to: v.aired_to as string | null,
      ...seasonOf(v.aired_from as string | null),
      broadcast: v.broadcast as AnimeRecord['broadcast'],
      // Computed at response time (`present`).
      next_episode: null,
      genres: refs('GENRE', 'genre_ids'),
      themes: refs('THEME', 'theme_ids'),
      studios: refs('PRODUCER', 'studio_ids'),
      producers: refs('PRODUCER', 'producer_ids'),
      licensors: refs('PRODUCER', 'licensor_ids'),
      trailer_url: videos.find((x) => x.kind === 'trailer')?.url ?? null,
      website: v.website as string | null,
      external_ids: v.external_ids as ExternalIds,
      streaming: v.streaming as { site: string; url: string }[],
      score: prev?.score ?? null,
      scored_by: prev?.scored_by ?? 0,
      members: prev?.members ?? 0,
      favorites: prev?.favorites ?? 0,
      rank: prev?.rank ?? null,
      popularity: prev?.popularity ?? null,
    };
    const relations: Relations = { characters: v.characters as unknown[], staff: v.staff as unknown[], videos, pictures };
    return { record, relations };
  },
  links: (before, after) => linkCounts(linked(before), linked(after), { studio: 'studio', licensor: 'licensor' }),
  references,
  // A record written before §8.2 has no external ids nor streaming links: shown as none.
  present: (r, now) => ({ ...r, external_ids: r.external_ids ?? {}, streaming: r.streaming ?? [], next_episode: nextEpisode(r, now.getTime()) }),
  embedded: { genres: 'GENRE', themes: 'THEME', studios: 'PRODUCER', producers: 'PRODUCER', licensors: 'PRODUCER' },
};
