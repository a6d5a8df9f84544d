/** Enumerations of API.md §3.1, written and read exactly as listed (each added with its first use). */
export const ProducerType = ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'] as const;
export const Gender = ['female', 'male', 'non_binary', 'other'] as const;
export const ReviewKind = ['anime', 'manga'] as const;
export const ReviewTag = ['recommended', 'mixed_feelings', 'not_recommended'] as const;
