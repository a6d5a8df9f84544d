/**
 * Safe-for-work filtering (API.md §8.3): `sfw=true` leaves out every title whose `rating` is `rx`
 * or that has an explicit genre or theme. The explicit genres and themes come with the tombstone
 * shard every title read gets anyway (shared/db/tombstones.ts), so the filter costs no read; it
 * is evaluated as exclusions of the index's filters (shared/search/evaluate.ts), or against a
 * record (`explicitTest`) where a list is not the index's.
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

type TitleLike = { rating?: string | null; genres?: readonly { id: string }[]; themes?: readonly { id: string }[] };

/** Whether a title (a record as shown) is left out by `sfw=true`: the explicit sets read once, for a whole page. */
export function explicitTest(deleted: Deleted): (title: object) => boolean {
  const genres = new Set(deleted.explicit('GENRE'));
  const themes = new Set(deleted.explicit('THEME'));
  return (title) => {
    const t = title as TitleLike;
    if (t.rating && EXPLICIT_RATINGS.includes(t.rating)) return true;
    return (t.genres ?? []).some((g) => genres.has(g.id)) || (t.themes ?? []).some((x) => themes.has(x.id));
  };
}
