/**
 * A user's review count (its item in the user's review partition, reviews.ts), in a module of its
 * own: the account flows and the user views read it without the review machinery.
 */
import type { ItemKey, Item } from './batch.js';
import type { KeyPattern } from './key-patterns.js';

export const userPk = (userId: string) => `REVIEWS#USER#${userId}`;
export const reviewCountKey = (userId: string): ItemKey => ({ pk: userPk(userId), sk: 'N' });
export const reviewCountOf = (item: Item | null | undefined): number => Number(item?.n ?? 0);

/** The users' review counts (and claims): what UserAbout reads. */
export const REVIEW_COUNT_KEYS: KeyPattern = 'REVIEWS#USER#*';
