/**
 * The cast and staff sub-resources of titles (API.md §4.1.2, §4.7): their item shapes, query
 * options and how an entry becomes an item (shared/http/casts.ts reads them). A person's voices
 * and authored mangas are in voices.ts and authored.ts.
 */
import * as z from 'zod/mini';
import type { BaseRecord } from '../db/records.js';
import type { TitleDef } from '../db/titles.js';
import type { CastListing } from './listings.js';
import { enumParam } from './params.js';
import { characterListItem } from './characters.js';
import { CharacterRole, Language } from './enums.js';
import { personListItem } from './persons.js';
import type { CastEntry, StaffEntry } from './reverse-views.js';

const personCard = z.object({ id: z.string(), name: z.string(), image: z.nullable(z.string().check(z.meta({ format: 'uri' }))) });

export const castItem = z.extend(characterListItem, { role: z.enum(CharacterRole), voice_actors: z.array(z.extend(personCard, { language: z.enum(Language) })) });
export const staffItem = z.extend(personListItem, { positions: z.array(z.string()) });
export const mangaCastItem = z.extend(characterListItem, { role: z.enum(CharacterRole) });

export const castOrderings = ['position', 'name', 'favorites'] as const;
export const staffOrderings = ['position', 'name'] as const;
export const castFilters = { role: enumParam(CharacterRole) };

const byRecord = {
  position: { position: true as const },
  name: { field: 'name', type: 'text' as const },
  favorites: { field: 'favorites', type: 'count' as const },
};

/** A title's characters (with their voice actors, in written order, where the title has them). */
export function castOf(title: TitleDef<BaseRecord>, noun: string): CastListing<CastEntry> {
  return {
    title,
    relation: 'characters',
    noun,
    kind: 'CHARACTER',
    idOf: (e) => e.character_id,
    orderings: byRecord,
    filters: { role: (e) => e.role },
    shape: Object.keys(characterListItem.shape),
    also: { kind: 'PERSON', ids: (e) => (e.voice_actors ?? []).map((a) => a.person_id) },
    extra: (e, person) => ({
      role: e.role,
      ...(e.voice_actors
        ? {
            voice_actors: e.voice_actors.flatMap((a) => {
              const p = person(a.person_id);
              return p ? [{ id: p.id, name: p.name, image: p.image, language: a.language }] : [];
            }),
          }
        : {}),
    }),
  };
}

/** A title's staff. */
export function staffOf(title: TitleDef<BaseRecord>, noun: string): CastListing<StaffEntry> {
  return {
    title,
    relation: 'staff',
    noun,
    kind: 'PERSON',
    idOf: (e) => e.person_id,
    orderings: { position: byRecord.position, name: byRecord.name },
    shape: Object.keys(personListItem.shape),
    extra: (e) => ({ positions: e.positions }),
  };
}
