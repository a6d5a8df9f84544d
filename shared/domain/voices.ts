/** The characters a person voices (API.md §4.9 `GET /api/persons/{id}/voices/`): item shape and query options. */
import * as z from 'zod/mini';
import { enumParam } from './params.js';
import { animeCard, characterCard } from './cards.js';
import { CharacterRole, Language } from './enums.js';

/** An entry of `GET /api/persons/{id}/voices/` (§4.9). */
export const voiceItem = z.object({ character: characterCard, anime: animeCard, role: z.enum(CharacterRole), language: z.enum(Language) });
export const voiceOrderings = ['aired_from', 'anime_name', 'character_name'] as const;
export const voiceFilters = { language: enumParam(Language), role: enumParam(CharacterRole) };
export const voiceCards = { anime: Object.keys(animeCard.shape), character: Object.keys(characterCard.shape) };
