/**
 * External ids (API.md §8.2): a title's ids on other sites. Each (kind, site, value) is unique
 * among the kind's non-deleted records, like a name: one unique claim per site that is set
 * (`<KIND>#U#external_ids.<site>#<value>`, records.ts), written in the record's transaction, so
 * a clash is a 409 naming the record that holds it, and a lookup by id (`mal_id=…`) is one GetItem
 * of the claim.
 */
import type { UniqueField } from './records.js';

export const ANIME_SITES = ['mal', 'anilist', 'anidb', 'kitsu', 'bangumi'] as const;
export const MANGA_SITES = ['mal', 'anilist', 'kitsu', 'mangadex'] as const;

/** A title's external ids: integers (1–10^9), a MangaDex id (a UUID, stored lower case). */
export type ExternalIds = Partial<Record<string, number | string>>;

/** The claim field of a site (the `errors` key of a clash). */
export const externalIdField = (site: string) => `external_ids.${site}`;

/** The value a site's claim is keyed by (null: the site is not set). */
export const externalIdKey = (ids: ExternalIds | undefined, site: string): string | null => {
  const v = ids?.[site];
  return v === undefined || v === null ? null : String(v).toLowerCase();
};

/** The unique fields of a kind's external ids. */
export function externalIdClaims<R extends { external_ids?: ExternalIds }>(sites: readonly string[], noun: string): UniqueField<R>[] {
  return sites.map((site) => ({ field: externalIdField(site), key: (r: R) => externalIdKey(r.external_ids, site), message: `${noun} with this ${site} id already exists.`, releaseLater: true }));
}
