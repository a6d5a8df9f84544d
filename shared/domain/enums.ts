/** Enumerations of API.md §3.1, written and read exactly as listed (each added with its first use). */
export const ProducerType = ['studio', 'licensor', 'publisher', 'distributor', 'network', 'sponsor', 'platform'] as const;
export const Gender = ['female', 'male', 'non_binary', 'other'] as const;
export const ReviewKind = ['anime', 'manga'] as const;
export const ReviewTag = ['recommended', 'mixed_feelings', 'not_recommended'] as const;
export const AnimeMediaType = ['tv', 'ova', 'movie', 'special', 'ona', 'music'] as const;
export const AnimeSource = ['original', 'manga', 'novel', 'lnovel', 'vnovel', 'game', 'book', 'radio', 'music', 'other'] as const;
export const AnimeStatus = ['airing', 'finished', 'upcoming'] as const;
export const Rating = ['g', 'pg', 'pg13', 'r', 'rplus', 'rx'] as const;
export const Season = ['winter', 'spring', 'summer', 'fall'] as const;
export const BroadcastDay = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'other'] as const;
export const CharacterRole = ['main', 'supporting'] as const;
export const PersonCategory = ['director', 'voice_actor', 'artist', 'writer', 'producer', 'other'] as const;
export const Language = ['japanese', 'english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'korean', 'chinese'] as const;
export const VideoKind = ['trailer', 'promo', 'music_video', 'other'] as const;
export const ProducerRole = ['studio', 'producer', 'licensor'] as const;
export const NewsTag = ['pending', 'new_anime', 'new_manga', 'spoiler', 'review', 'interview', 'event', 'recommendation'] as const;
