/**
 * The kinds with an in-memory index (issue 19): the five catalogue titles, by key prefix, with
 * their index definitions (what their snapshots and deltas hold).
 */
import { animeIndex } from '../db/animes.js';
import type { IndexDef } from '../db/catalogue-index.js';
import { characterIndex } from '../db/characters.js';
import { mangaIndex } from '../db/mangas.js';
import { newsIndex } from '../db/news.js';
import { personIndex } from '../db/persons.js';
import type { BaseRecord } from '../db/records.js';

export const INDEXED: Readonly<Record<string, IndexDef<BaseRecord>>> = Object.fromEntries(
  ([animeIndex, mangaIndex, characterIndex, personIndex, newsIndex] as unknown as IndexDef<BaseRecord>[]).map((def) => [def.kind, def]),
);
export const INDEXED_KINDS = Object.keys(INDEXED);
