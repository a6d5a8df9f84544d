/** Enumerations of API.md §3.1, written and read exactly as listed (each added with its first use). */
export const ProducerType = ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'] as const;
