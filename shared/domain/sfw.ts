/**
 * Safe-for-work filtering (API.md §8.3): `sfw=true` leaves out every title whose `rating` is `rx`
 * or that has an explicit genre or theme. The explicit genres and themes come with the tombstone
 * shard every title read gets anyway (shared/db/tombstones.ts), so the filter costs no read; it
 * is evaluated as exclusions of the index's filters (shared/search/evaluate.ts), or against a
 * record (`isExplicit`) where a list is not the index's.
 */
import type { Deleted } from '../db/tombstones.js';

/** Ratings a safe-for-work list leaves out (animes; mangas have none). */
const EXPLICIT_RATINGS = ['rx'];

/** The index exclusions of `sfw=true` for the titles of `kind`, by index filter name. */
export function sfwExclusions(kind: 'ANIME' | 'MANGA', deleted: Deleted): Record<string, string[]> {
  return {
    ...(kind === 'ANIME' ? { rating: EXPLICIT_RATINGS } : {}),
    genre: deleted.explicit('GENRE'),
    theme: deleted.explicit('THEME'),
  };
}

/** Whether a title record is left out by `sfw=true`. */
export function isExplicit(title: { rating?: string | null; genres?: readonly { id: string }[]; themes?: readonly { id: string }[] }, deleted: Deleted): boolean {
  if (title.rating && EXPLICIT_RATINGS.includes(title.rating)) return true;
  const genres = new Set(deleted.explicit('GENRE'));
  const themes = new Set(deleted.explicit('THEME'));
  return (title.genres ?? []).some((g) => genres.has(g.id)) || (title.themes ?? []).some((t) => themes.has(t.id));
}
