/**
 * A deterministic MyAnimeList-sized catalogue for the search and filter benchmarks: API write
 * bodies (the write shapes of API.md §3.3–§3.8, valid under every rule the server checks) of
 * genres, themes, demographics, producers, magazines, persons, characters, animes, mangas and
 * news, with the distributions that decide what search and filters cost: title words shared
 * with a Zipf-like frequency, Japanese (and Korean, Chinese) titles in their own scripts,
 * franchises whose sequels, movies and adaptations share names and casts, and a few very
 * prolific persons.
 *
 * Pure data, no database. Ids are the server's, so relations are placeholders `{ref, index}`
 * into the other collections; `resolveRefs` swaps them for the ids created so far (create the
 * kinds in CREATION_ORDER). Every record is a pure function of (seed, sizes, today, index), so
 * `body(kind, i)` may be called in any order and again; only a small plan (title names,
 * franchises, popularity, person pools) is computed up front.
 */
import { matches, normalize, terms, words } from '../support/reference-list.js';

export const CREATION_ORDER = ['genre', 'theme', 'demographic', 'producer', 'magazine', 'person', 'character', 'anime', 'manga', 'news'] as const;
export type Kind = (typeof CREATION_ORDER)[number];

/** The collection of each kind: `/api/<segment>/`. */
export const SEGMENTS: Readonly<Record<Kind, string>> = {
  genre: 'genres',
  theme: 'themes',
  demographic: 'demographics',
  producer: 'producers',
  magazine: 'magazines',
  person: 'persons',
  character: 'characters',
  anime: 'animes',
  manga: 'mangas',
  news: 'news',
};

export type Sizes = Readonly<Record<Kind, number>>;

export const SCALES = {
  mal: { genre: 80, theme: 50, demographic: 5, producer: 1500, magazine: 800, person: 60_000, character: 120_000, anime: 30_000, manga: 75_000, news: 20_000 },
  small: { genre: 8, theme: 5, demographic: 5, producer: 15, magazine: 8, person: 600, character: 1200, anime: 300, manga: 750, news: 200 },
  /** A tenth of MyAnimeList's titles (the community section's middle size, to see how its figures grow). */
  tenth: { genre: 80, theme: 50, demographic: 5, producer: 150, magazine: 80, person: 6_000, character: 12_000, anime: 3_000, manga: 7_500, news: 2_000 },
} as const satisfies Record<string, Sizes>;
export type ScaleName = keyof typeof SCALES;

/** The least sizes that leave enough candidates for every distinct relation array. */
const MIN_SIZES: Sizes = { genre: 5, theme: 4, demographic: 2, producer: 10, magazine: 2, person: 50, character: 60, anime: 1, manga: 1, news: 0 };

// ---- Write shapes (API.md §3.1–§3.8), relations as placeholders

export type AnimeMediaType = 'tv' | 'ova' | 'movie' | 'special' | 'ona' | 'music';
export type AnimeSource = 'original' | 'manga' | 'novel' | 'lnovel' | 'vnovel' | 'game' | 'book' | 'radio' | 'music' | 'other';
export type AnimeStatus = 'airing' | 'finished' | 'upcoming';
export type Rating = 'g' | 'pg' | 'pg13' | 'r' | 'rplus' | 'rx';
export type BroadcastDay = 'monday' | 'tuesday' | 'wednesday' | 'thursday' | 'friday' | 'saturday' | 'sunday' | 'other';
export type MangaMediaType = 'manga' | 'light_novel' | 'novel' | 'oneshot' | 'doujinshi' | 'manhwa' | 'manhua' | 'oel';
export type MangaStatus = 'publishing' | 'finished' | 'upcoming' | 'on_hiatus' | 'discontinued';
export type ProducerType = 'studio' | 'licensor' | 'publisher' | 'distributor' | 'network' | 'sponsor' | 'platform';
export type CharacterRole = 'main' | 'supporting';
export type PersonCategory = 'director' | 'voice_actor' | 'artist' | 'writer' | 'producer' | 'other';
export type Language = 'japanese' | 'english' | 'spanish' | 'french' | 'german' | 'italian' | 'portuguese' | 'korean' | 'chinese';
export type AuthorRole = 'story' | 'art' | 'story_and_art';
export type VideoKind = 'trailer' | 'promo' | 'music_video' | 'other';
export type NewsTag = 'pending' | 'new_anime' | 'new_manga' | 'spoiler' | 'review' | 'interview' | 'event' | 'recommendation';

/** The `index`-th record of a kind in generation order, standing for its server id. */
export interface Ref<K extends Kind = Kind> {
  readonly ref: K;
  readonly index: number;
}

/** Genre, theme and demographic. */
export interface TaxonomyWrite {
  name: string;
  description: string;
}
export interface ProducerWrite {
  name: string;
  name_jpn: string;
  type: ProducerType;
  about: string;
  established: string | null;
  image: string | null;
  website: string | null;
}
export interface MagazineWrite {
  name: string;
}
export interface PictureWrite {
  url: string;
  name: string;
}
export interface PersonWrite {
  name: string;
  given_name: string;
  family_name: string;
  alternate_names: string[];
  image: string | null;
  birthday: string | null;
  about: string;
  website: string | null;
  language: Language;
  category: PersonCategory;
  pictures: PictureWrite[];
}
export interface CharacterWrite {
  name: string;
  name_kanji: string;
  nicknames: string[];
  about: string;
  image: string | null;
}
export interface BroadcastWrite {
  day: BroadcastDay;
  time: string | null;
  timezone: string;
}
export interface AnimeCharacterWrite {
  character_id: Ref<'character'>;
  role: CharacterRole;
  voice_actors: { person_id: Ref<'person'>; language: Language }[];
}
export interface StaffWrite {
  person_id: Ref<'person'>;
  positions: string[];
}
export interface VideoWrite {
  title: string;
  url: string;
  kind: VideoKind;
}
interface TitleWrite {
  name: string;
  name_jpn: string;
  name_rom: string;
  alternative_names: string[];
  image: string | null;
  synopsis: string;
  background: string;
  website: string | null;
  genre_ids: Ref<'genre'>[];
  theme_ids: Ref<'theme'>[];
  pictures: PictureWrite[];
}
export interface AnimeWrite extends TitleWrite {
  media_type: AnimeMediaType;
  source: AnimeSource | null;
  status: AnimeStatus;
  rating: Rating | null;
  episodes: number | null;
  duration_seconds: number | null;
  aired_from: string | null;
  aired_to: string | null;
  broadcast: BroadcastWrite | null;
  studio_ids: Ref<'producer'>[];
  producer_ids: Ref<'producer'>[];
  licensor_ids: Ref<'producer'>[];
  characters: AnimeCharacterWrite[];
  staff: StaffWrite[];
  videos: VideoWrite[];
}
export interface MangaWrite extends TitleWrite {
  media_type: MangaMediaType;
  status: MangaStatus;
  chapters: number | null;
  volumes: number | null;
  published_from: string | null;
  published_to: string | null;
  demographic_ids: Ref<'demographic'>[];
  magazine_ids: Ref<'magazine'>[];
  authors: { person_id: Ref<'person'>; role: AuthorRole }[];
  characters: { character_id: Ref<'character'>; role: CharacterRole }[];
}
export interface NewsWrite {
  name: string;
  description: string;
  content: string;
  image: string | null;
  source: string | null;
  tag: NewsTag;
  anime_ids: Ref<'anime'>[];
  manga_ids: Ref<'manga'>[];
}

export interface Bodies {
  genre: TaxonomyWrite;
  theme: TaxonomyWrite;
  demographic: TaxonomyWrite;
  producer: ProducerWrite;
  magazine: MagazineWrite;
  person: PersonWrite;
  character: CharacterWrite;
  anime: AnimeWrite;
  manga: MangaWrite;
  news: NewsWrite;
}

// ---- Placeholders to ids

/** A body with its placeholders replaced by ids. */
export type Resolved<T> = T extends Ref ? string : T extends readonly (infer E)[] ? Resolved<E>[] : T extends object ? { [P in keyof T]: Resolved<T[P]> } : T;

/** The ids created so far, by kind, at the generation index of each record. */
export type CreatedIds = { readonly [K in Kind]?: readonly (string | undefined)[] };

const isRef = (v: object): v is Ref => 'ref' in v && 'index' in v;

/** The body with every placeholder replaced by the id created for it (throws when there is none yet). */
export function resolveRefs<T>(body: T, ids: CreatedIds): Resolved<T> {
  const resolve = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(resolve);
    if (v === null || typeof v !== 'object') return v;
    if (isRef(v)) {
      const id = ids[v.ref]?.[v.index];
      if (id === undefined) throw new Error(`No id yet for ${v.ref} #${v.index} (create the kinds in CREATION_ORDER)`);
      return id;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  };
  return resolve(body) as Resolved<T>;
}

// ---- Randomness

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The seed of one independent random stream: the catalogue's seed, a label and numbers. */
export function streamSeed(seed: number, label: string, ...nums: number[]): number {
  let h = fmix(seed ^ 0x9e3779b9);
  for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  h = fmix(h);
  for (const n of nums) h = fmix(h ^ Math.imul(n + 1, 0x9e3779b1));
  return h;
}

/** mulberry32, with the draws this module needs (and community-data.ts). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** An integer in [lo, hi] skewed towards lo (power > 1) . */
  skewed(lo: number, hi: number, power: number): number {
    return lo + Math.floor((hi - lo + 1) * this.next() ** power);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  /** A key of `table`, with probability proportional to its weight. */
  weighted<T extends string>(table: Readonly<Record<T, number>>): T {
    let total = 0;
    for (const key in table) total += table[key];
    let u = this.next() * total;
    let last!: T;
    for (const key in table) {
      if ((u -= table[key]) < 0) return key;
      last = key;
    }
    return last;
  }
  /** A rank in [0, n) with probability ∝ (rank + 1 + q)^-s (by the continuous inverse). */
  zipf(n: number, s = 1, q = 0): number {
    const a = q + 1;
    const b = n + q + 1;
    const u = this.next();
    const e = 1 - s;
    const t = Math.abs(e) < 1e-9 ? a * (b / a) ** u : (a ** e + u * (b ** e - a ** e)) ** (1 / e);
    return Math.min(n - 1, Math.floor(t - a));
  }
  /** A standard normal deviate (Box–Muller). */
  normal(): number {
    return Math.sqrt(-2 * Math.log(1 - this.next())) * Math.cos(2 * Math.PI * this.next());
  }
  /** Up to `count` distinct results of `draw` (fewer when it keeps repeating itself). */
  distinct<T>(count: number, draw: () => T): T[] {
    const seen = new Set<T>();
    for (let tries = 0; seen.size < count && tries < count * 20; tries++) seen.add(draw());
    return [...seen];
  }
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  }
}

/** A number drawn from a table of numbers and weights. */
const weightedInt = (table: Readonly<Record<number, number>>, r: Rng) => Number(r.weighted(table));

// ---- Vocabulary

/** A title or word in English, romanised, and in its original script. */
interface Word {
  en: string;
  rom: string;
  jpn: string;
}

/** Parses `en|rom|original; …` (a missing original repeats the romanisation). */
function vocabulary(list: string): Word[] {
  return list
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map((e) => {
      const [en = '', rom, jpn] = e.split('|').map((s) => s.trim());
      return { en, rom: rom || en, jpn: jpn || rom || en };
    });
}

/** Title nouns, most frequent first (sampled by Zipf rank). */
const NOUNS = vocabulary(`
  Love|Koi|恋; World|Sekai|世界; School|Gakkou|学校; Girl|Shoujo|少女; Magic|Mahou|魔法; Hero|Yuusha|勇者;
  Story|Monogatari|物語; Boy|Shounen|少年; Academy|Gakuen|学園; Demon King|Maou|魔王; Princess|Hime|姫;
  Sword|Tsurugi|剣; Dragon|Ryuu|竜; Heart|Kokoro|心; Star|Hoshi|星; Sky|Sora|空; Dream|Yume|夢; Light|Hikari|光;
  Night|Yoru|夜; Shadow|Kage|影; Life|Jinsei|人生; War|Sensou|戦争; Legend|Densetsu|伝説; Knight|Kishi|騎士;
  Angel|Tenshi|天使; Devil|Akuma|悪魔; God|Kami|神; Cat|Neko|猫; Flower|Hana|花; Moon|Tsuki|月; Sea|Umi|海;
  Wind|Kaze|風; Flame|Honoo|炎; Snow|Yuki|雪; Rain|Ame|雨; Forest|Mori|森; Island|Shima|島; Town|Machi|街;
  Castle|Shiro|城; Tower|Tou|塔; Time|Jikan|時間; Memory|Kioku|記憶; Promise|Yakusoku|約束; Miracle|Kiseki|奇跡;
  Fate|Unmei|運命; Future|Mirai|未来; Journey|Tabi|旅; Adventure|Bouken|冒険; Detective|Tantei|探偵;
  Ninja|Ninja|忍者; Samurai|Samurai|侍; Titan|Kyojin|巨人; Attack|Shingeki|進撃; Alchemist|Renkinjutsushi|錬金術師;
  Reaper|Shinigami|死神; Sorcery|Jujutsu|呪術; Battle|Tatakai|戦い; Club|Bu|部; Senpai|Senpai|先輩;
  Girlfriend|Kanojo|彼女; Little Sister|Imouto|妹; Family|Kazoku|家族; Friends|Tomodachi|友達; Warrior|Senshi|戦士;
  Chronicle|Senki|戦記; Steel|Hagane|鋼; Blood|Chi|血; Wings|Tsubasa|翼; Beast|Kemono|獣; Witch|Majo|魔女;
  Maid|Meido|メイド; Idol|Aidoru|アイドル; Game|Geemu|ゲーム; Cooking|Ryouri|料理; Baseball|Yakyuu|野球;
  Volleyball|Bareebooru|バレーボール; Soccer|Sakkaa|サッカー; Music|Ongaku|音楽; Song|Uta|歌; Spring|Haru|春;
  Summer|Natsu|夏; Autumn|Aki|秋; Winter|Fuyu|冬; Cherry Blossom|Sakura|桜; Garden|Niwa|庭; Door|Tobira|扉;
  Key|Kagi|鍵; Mirror|Kagami|鏡; Crown|Oukan|王冠; King|Ou|王; Queen|Joou|女王; Emperor|Koutei|皇帝;
  Empire|Teikoku|帝国; Kingdom|Oukoku|王国; Village|Mura|村; Labyrinth|Meikyuu|迷宮; Dungeon|Danjon|ダンジョン;
  Guild|Girudo|ギルド; Adventurer|Boukensha|冒険者; Slime|Suraimu|スライム; Villainess|Akuyaku Reijou|悪役令嬢;
  Saint|Seijo|聖女; Sage|Kenja|賢者; Ghost|Yuurei|幽霊; Monster|Kaibutsu|怪物; Robot|Robotto|ロボット;
  Mobile Suit|Kidou Senshi|機動戦士; Space|Uchuu|宇宙; Planet|Wakusei|惑星; Galaxy|Ginga|銀河; Pirate|Kaizoku|海賊;
  Ship|Fune|船; Train|Densha|電車; City|Toshi|都市; Tokyo|Toukyou|東京; Kyoto|Kyouto|京都; Clan|Ichizoku|一族;
  Hunter|Hantaa|ハンター; Assassin|Ansatsusha|暗殺者; Thief|Touzoku|盗賊; Doctor|Isha|医者; Teacher|Sensei|先生;
  Student Council|Seitokai|生徒会; Butler|Shitsuji|執事; Fox|Kitsune|狐; Wolf|Ookami|狼; Bear|Kuma|熊;
  Rabbit|Usagi|兎; Bird|Tori|鳥; Tea|Ocha|お茶; Ramen|Raamen|ラーメン; Bread|Pan|パン; Letter|Tegami|手紙;
  Diary|Nikki|日記; Library|Toshokan|図書館; Festival|Matsuri|祭り; Shrine|Jinja|神社; Fireworks|Hanabi|花火;
  Lighthouse|Toudai|灯台; Umbrella|Kasa|傘; Bell|Suzu|鈴; Compass|Rashinban|羅針盤; Calligraphy|Shodou|書道;
  Archery|Kyuudou|弓道; Karuta|Karuta|かるた; Shogi|Shougi|将棋; Mahjong|Maajan|麻雀; Bonsai|Bonsai|盆栽;
  Kimono|Kimono|着物; Lantern|Chouchin|提灯; Hot Spring|Onsen|温泉; Convenience Store|Konbini|コンビニ;
  Salaryman|Sarariiman|サラリーマン; Delinquent|Yankii|ヤンキー; Vampire|Kyuuketsuki|吸血鬼; Zombie|Zonbi|ゾンビ;
  Spirit|Seirei|精霊; Fairy|Yousei|妖精; Youkai|Youkai|妖怪; Oni|Oni|鬼; Tengu|Tengu|天狗; Kappa|Kappa|河童;
  Apothecary|Kusuriya|薬屋; Frontier|Henkyou|辺境; Duke|Koushaku|公爵; Tyrant|Boukun|暴君; Runaway|Toubousha|逃亡者
`);

const ADJECTIVES = vocabulary(`
  Black|Kuroi|黒い; Last|Saigo no|最後の; Strongest|Saikyou no|最強の; White|Shiroi|白い; Secret|Himitsu no|秘密の;
  Red|Akai|赤い; Eternal|Eien no|永遠の; Blue|Aoi|青い; Legendary|Densetsu no|伝説の; Little|Chiisana|小さな;
  Infinite|Mugen no|無限の; Forbidden|Kindan no|禁断の; Holy|Sei naru|聖なる; Great|Idai naru|偉大なる;
  New|Shin|新; Lonely|Kodoku na|孤独な; Silent|Shizuka na|静かな; Gentle|Yasashii|優しい; Crimson|Guren no|紅蓮の;
  Golden|Ougon no|黄金の; Silver|Gin no|銀の; Lost|Ushinawareta|失われた; Broken|Kowareta|壊れた;
  Hidden|Kakusareta|隠された; Wandering|Sasurai no|さすらいの; Magical|Mahou no|魔法の; Summer's|Natsu no|夏の;
  Distant|Tooi|遠い; Beautiful|Utsukushii|美しい; Cursed|Norowareta|呪われた
`);

/** Adjectives of the long light-novel titles ("… Can't Be This Cute"). */
const NOVEL_ADJECTIVES = vocabulary(`
  Cute|Kawaii|可愛い; Strong|Tsuyoi|強い; Lazy|Darashinai|だらしない; Popular|Moteru|モテる; Scary|Kowai|怖い;
  Serious|Majime na|真面目な; Honest|Sunao na|素直な; Clumsy|Bukiyou na|不器用な; Cool|Kakkoii|かっこいい
`);

/** Katakana loanwords: titles made of them keep the English words as romanisation. */
const LOANWORDS = vocabulary(`
  Idol|Idol|アイドル; Quest|Quest|クエスト; Online|Online|オンライン; Fantasy|Fantasy|ファンタジー;
  Heaven|Heaven|ヘヴン; Destiny|Destiny|デスティニー; Revolution|Revolution|レボリューション; Wonder|Wonder|ワンダー;
  Dream|Dream|ドリーム; Star|Star|スター; Live|Live|ライブ; Project|Project|プロジェクト; Force|Force|フォース;
  Zero|Zero|ゼロ; Over|Over|オーバー; Lord|Lord|ロード; Blade|Blade|ブレイド; Gear|Gear|ギア; Code|Code|コード;
  Break|Break|ブレイク; Magic|Magic|マジック; Girls|Girls|ガールズ; Party|Party|パーティー; Memories|Memories|メモリーズ;
  Art|Art|アート; Sword|Sword|ソード; Hero|Hero|ヒーロー; Academia|Academia|アカデミア; Tale|Tale|テイル;
  Cross|Cross|クロス; Black|Black|ブラック; Clover|Clover|クローバー
`);

/** Latin words with diacritics (accent-insensitive search must find them unaccented). */
const ACCENTED = vocabulary(`
  Café|Kafe|カフェ; Übel|Yuuberu|ユーベル; Fiancée|Fianse|フィアンセ; Déjà Vu|Dejavu|デジャヴ; Naïve|Naibu|ナイーブ;
  Señorita|Senyoriita|セニョリータ; Straße|Shutoraase|シュトラーセ; Crème|Kuriimu|クリーム; Noël|Noeru|ノエル;
  Soirée|Sowaree|ソワレ; Rêve|Reevu|レーヴ; Élan|Eran|エラン; Mädchen|Meetohyen|メートヒェン; Ångström|Ongusutoromu|オングストローム
`);

/** Manhwa title words: English, romanised Korean, Hangul. */
const KOREAN = vocabulary(`
  Solo|Na Honjaman|나 혼자만; Level Up|Rebeleop|레벨업; King|Wang|왕; Love|Sarang|사랑; School|Hakgyo|학교;
  World|Segye|세계; Magic|Mabeop|마법; Knight|Gisa|기사; Sword|Geom|검; Dragon|Yong|용; Legend|Jeonseol|전설;
  Girl|Sonyeo|소녀; Boy|Sonyeon|소년; Story|Iyagi|이야기; Game|Geim|게임; Tower|Tap|탑; God|Sin|신;
  Hunter|Heonteo|헌터; Villainess|Angnyeo|악녀; Duke|Gongjak|공작; Empress|Hwanghu|황후; Regression|Hoegwi|회귀;
  Academy|Akademi|아카데미; Return|Gwihwan|귀환; Star|Byeol|별; Flower|Kkot|꽃; Moon|Dal|달; Night|Bam|밤;
  Sky|Haneul|하늘; Sea|Bada|바다; Demon|Angma|악마; Princess|Gongju|공주; Prince|Wangja|왕자; Shadow|Geurimja|그림자;
  Blood|Pi|피; Fire|Bul|불; Heart|Maeum|마음; Secret|Bimil|비밀; Family|Gajok|가족; Warrior|Jeonsa|전사
`);

/** Manhua title words: English, pinyin, Chinese. */
const CHINESE = vocabulary(`
  Battle|Dou|斗; Break|Po|破; Heavens|Cangqiong|苍穹; Demon|Mo|魔; Dao|Dao|道; Grandmaster|Zushi|祖师;
  Cultivation|Xiuxian|修仙; Immortal|Xian|仙; Sky|Tian|天; King|Wang|王; Legend|Chuanqi|传奇; Record|Ji|记;
  Martial|Wu|武; Peak|Dianfeng|巅峰; Sword|Jian|剑; Soul|Hun|魂; Continent|Dalu|大陆; Emperor|Di|帝; God|Shen|神;
  Dragon|Long|龙; Star|Xing|星; Moon|Yue|月; Flower|Hua|花; Spirit|Ling|灵; Phoenix|Feng|凤; Fox|Hu|狐;
  Mountain|Shan|山; River|He|河; Blood|Xue|血; Heart|Xin|心; Thunder|Lei|雷; Jade|Yu|玉; Palace|Gong|宫;
  Tiger|Hu|虎; Ghost|Gui|鬼; Snow|Xue|雪; Wind|Feng|风; Cloud|Yun|云; Fire|Huo|火; Ice|Bing|冰
`);

/** Romaji syllables and their katakana, for made-up proper nouns. */
const SYLLABLES = vocabulary(`
  ka||カ; ki||キ; ku||ク; ke||ケ; ko||コ; sa||サ; shi||シ; su||ス; se||セ; so||ソ; ta||タ; chi||チ; tsu||ツ; te||テ;
  to||ト; na||ナ; ni||ニ; nu||ヌ; ne||ネ; no||ノ; ha||ハ; hi||ヒ; fu||フ; he||ヘ; ho||ホ; ma||マ; mi||ミ; mu||ム;
  me||メ; mo||モ; ya||ヤ; yu||ユ; yo||ヨ; ra||ラ; ri||リ; ru||ル; re||レ; ro||ロ; wa||ワ; ga||ガ; gi||ギ; gu||グ;
  ge||ゲ; go||ゴ; za||ザ; ji||ジ; zu||ズ; ze||ゼ; zo||ゾ; da||ダ; de||デ; do||ド; ba||バ; bi||ビ; bu||ブ; be||ベ;
  bo||ボ; pa||パ; pi||ピ; pu||プ; pe||ペ; po||ポ; a||ア; i||イ; u||ウ; e||エ; o||オ; ryu||リュ; kyo||キョ; sho||ショ
`).map((w) => ({ rom: w.en, kana: w.jpn }));

/** Japanese family and given names (romanised|kanji), most frequent first. */
const JP_FAMILY = vocabulary(`
  Satou||佐藤; Suzuki||鈴木; Takahashi||高橋; Tanaka||田中; Watanabe||渡辺; Itou||伊藤; Yamamoto||山本; Nakamura||中村;
  Kobayashi||小林; Katou||加藤; Yoshida||吉田; Yamada||山田; Sasaki||佐々木; Yamaguchi||山口; Matsumoto||松本;
  Inoue||井上; Kimura||木村; Hayashi||林; Shimizu||清水; Saitou||斎藤; Mori||森; Ikeda||池田; Hashimoto||橋本;
  Abe||阿部; Ishikawa||石川; Yamashita||山下; Nakajima||中島; Fujita||藤田; Ogawa||小川; Okada||岡田; Gotou||後藤;
  Hasegawa||長谷川; Murakami||村上; Kondou||近藤; Sakamoto||坂本; Endou||遠藤; Aoki||青木; Nishimura||西村;
  Fukuda||福田; Oota||太田; Miura||三浦; Fujii||藤井; Okamoto||岡本; Matsuda||松田; Nakagawa||中川; Nakano||中野;
  Harada||原田; Ono||小野; Takeuchi||竹内; Kaneko||金子; Wada||和田; Ishii||石井; Ueda||上田; Morita||森田;
  Shibata||柴田; Sakai||酒井; Kudou||工藤; Miyazaki||宮崎; Uchida||内田; Takagi||高木; Andou||安藤; Sakurai||桜井;
  Kanzaki||神崎; Himura||緋村; Kurosaki||黒崎; Shiraishi||白石; Yukinoshita||雪ノ下; Hanazawa||花澤; Kamiya||神谷;
  Miyano||宮野; Sawashiro||沢城; Hayami||早見; Ichinose||一ノ瀬; Tsukishima||月島; Kirishima||霧島; Asakura||朝倉
`);
const JP_GIVEN = vocabulary(`
  Ren||蓮; Sakura||さくら; Haruto||陽翔; Yui||結衣; Shouta||翔太; Hina||陽菜; Yuuma||悠真; Aoi||葵; Minato||湊;
  Misaki||美咲; Souta||颯太; Rin||凛; Kenta||健太; Nanami||七海; Takumi||拓海; Mayu||真由; Tsubasa||翼; Asuka||明日香;
  Makoto||誠; Yuuko||優子; Hayato||隼人; Megumi||恵; Ichirou||一郎; Chihiro||千尋; Hikaru||光; Kaori||香織;
  Yuuki||勇気; Mai||麻衣; Ryou||亮; Nana||奈々; Kazuya||和也; Hitomi||瞳; Naoki||直樹; Kaede||楓; Kouji||浩二;
  Yuki||雪; Takeshi||剛; Ai||愛; Daisuke||大輔; Aya||彩; Kana||香菜; Hiroshi||浩; Mamoru||守; Emi||恵美;
  Shinji||真嗣; Rei||零; Kaito||海斗; Haruka||遥; Sousuke||宗介; Kyouko||京子; Tomoya||朋也; Nagisa||渚
`);

/** Kanji parts (romanised|kanji) of the less common family and given names. */
const FAMILY_PARTS = vocabulary(`
  Yama||山; Naka||中; Kawa||川; Moto||本; Ki||木; Mura||村; Fuji||藤; Hara||原; Matsu||松; Mori||森; Ishi||石; No||野;
  Ue||上; Shita||下; Ko||小; Oo||大; Taka||高; Hashi||橋; Shima||島; Sawa||沢; Oka||岡; Tani||谷; Ura||浦; Miya||宮;
  Saki||崎; Nishi||西; Kita||北; Naga||長; Ao||青; Shira||白; Kuro||黒; Aka||赤; Kane||金; Take||竹; Ume||梅;
  Hoshi||星; Tsuki||月; Mizu||水; Ike||池; Hama||浜; Saka||坂; Hori||堀; Furu||古; Haya||早; Hira||平; Fuku||福
`);
const GIVEN_PARTS = vocabulary(`
  Hiro||博; Kazu||和; Aki||明; Haru||春; Natsu||夏; Yuu||悠; Shou||翔; Ken||健; Dai||大; Masa||正; Nori||典;
  Mi||美; Sa||沙; Ka||香; Ri||里; Yu||結; Na||菜; Ma||真; Chi||千; Sumi||澄; Tomo||智; Yoshi||良
`);
const GIVEN_ENDINGS = vocabulary('to||斗; ki||輝; ya||也; ta||太; suke||介; rou||郎; ko||子; ka||花; na||奈; mi||美; ri||莉; e||恵; ne||音');

/** A Japanese family and given name: the common ones by frequency, else composed from kanji parts. */
function japaneseName(r: Rng): { family: Word; given: Word } {
  const compose = (first: readonly Word[], second: readonly Word[]): Word => {
    const a = r.pick(first);
    let b = r.pick(second);
    while (b === a) b = r.pick(second);
    return { en: a.rom + b.rom.toLowerCase(), rom: a.rom + b.rom.toLowerCase(), jpn: a.jpn + b.jpn };
  };
  return {
    family: r.chance(0.45) ? JP_FAMILY[r.zipf(JP_FAMILY.length, 0.55)]! : compose(FAMILY_PARTS, FAMILY_PARTS),
    given: r.chance(0.5) ? JP_GIVEN[r.zipf(JP_GIVEN.length, 0.6)]! : compose(GIVEN_PARTS, GIVEN_ENDINGS),
  };
}

/** Given and family names of persons by language (native script after `|` where it differs). */
const FOREIGN_NAMES: Readonly<Record<Exclude<Language, 'japanese'>, { given: Word[]; family: Word[] }>> = {
  english: {
    given: vocabulary('John; Michael; Sarah; Emily; David; Jessica; Chris; Laura; Matthew; Ashley; Daniel; Amanda; James; Jennifer; Robert; Megan; Kyle; Erica; Todd; Bryce'),
    family: vocabulary('Smith; Johnson; Williams; Brown; Jones; Miller; Davis; Wilson; Anderson; Taylor; Thomas; Moore; Martin; Jackson; White; Harris; Clark; Lewis; Walker; Hall'),
  },
  spanish: {
    given: vocabulary('José; María; Carlos; Lucía; Javier; Sofía; Alejandro; Valentina'),
    family: vocabulary('García; Rodríguez; Martínez; López; González; Hernández; Pérez; Sánchez'),
  },
  french: {
    given: vocabulary('Jean; Marie; Pierre; Camille; Louis; Chloé; Élodie; François'),
    family: vocabulary('Martin; Bernard; Dubois; Thomas; Robert; Lefèvre; Moreau; Girard'),
  },
  german: {
    given: vocabulary('Hans; Anna; Jürgen; Lena; Klaus; Sophie; Stefan; Katrin'),
    family: vocabulary('Müller; Schmidt; Schneider; Fischer; Weber; Meyer; Wagner; Groß'),
  },
  italian: {
    given: vocabulary('Marco; Giulia; Luca; Francesca; Matteo; Chiara; Alessandro; Sara'),
    family: vocabulary('Rossi; Russo; Ferrari; Esposito; Bianchi; Romano; Colombo; Ricci'),
  },
  portuguese: {
    given: vocabulary('João; Ana; Pedro; Mariana; Lucas; Beatriz; Gabriel; Larissa'),
    family: vocabulary('Silva; Santos; Oliveira; Souza; Pereira; Lima; Carvalho; Gonçalves'),
  },
  korean: {
    given: vocabulary('Min-jun||민준; Seo-yeon||서연; Ji-ho||지호; Ha-eun||하은; Do-yun||도윤; Su-ah||수아; Ye-jun||예준; Ji-woo||지우'),
    family: vocabulary('Kim||김; Lee||이; Park||박; Choi||최; Jung||정; Kang||강; Cho||조; Yoon||윤'),
  },
  chinese: {
    given: vocabulary('Wei||伟; Fang||芳; Min||敏; Jing||静; Lei||磊; Yang||洋; Yan||艳; Jun||军'),
    family: vocabulary('Wang||王; Li||李; Zhang||张; Liu||刘; Chen||陈; Yang||杨; Zhao||赵; Huang||黄'),
  },
};

const GENRES = [
  'Comedy', 'Action', 'Fantasy', 'Romance', 'Drama', 'Slice of Life', 'Adventure', 'Sci-Fi', 'Supernatural', 'Mystery',
  'Sports', 'Ecchi', 'Suspense', 'Horror', 'Award Winning', 'Boys Love', 'Girls Love', 'Gourmet', 'Avant Garde', 'Erotica', 'Hentai',
];
const GENRE_MODIFIERS = ['Dark', 'Hard', 'Soft', 'Urban', 'Historical', 'Romantic', 'Psychological', 'Military', 'Cosmic', 'Surreal', 'Gothic', 'Heroic', 'Cozy', 'Epic', 'Post-Apocalyptic', 'Cyberpunk', 'Steampunk'];
const GENRE_BASES = ['Fantasy', 'Comedy', 'Drama', 'Mystery', 'Romance', 'Sci-Fi', 'Horror', 'Adventure', 'Action', 'Thriller'];
const THEMES = [
  'School', 'Music', 'Mecha', 'Historical', 'Military', 'Isekai', 'Super Power', 'Martial Arts', 'Harem', 'Parody',
  'Mythology', 'Psychological', 'Space', 'Adult Cast', 'Gag Humor', 'Idols (Female)', 'Reincarnation', 'Romantic Subtext',
  'Urban Fantasy', 'Detective', 'Team Sports', 'Vampire', 'Samurai', 'Iyashikei', 'Strategy Game', 'Video Game',
  'Workplace', 'Love Polygon', 'Gore', 'Survival', 'Time Travel', 'Mahou Shoujo', 'Anthropomorphic', 'CGDCT',
  'Otaku Culture', 'Organized Crime', 'Delinquents', 'Combat Sports', 'Performing Arts', 'Visual Arts', 'Showbiz',
  'Medical', 'Reverse Harem', 'Idols (Male)', 'High Stakes Game', 'Racing', 'Pets', 'Childcare', 'Educational',
  'Crossdressing', 'Love Status Quo', 'Villainess', 'Magical Sex Shift',
];
const DEMOGRAPHICS = ['Shounen', 'Seinen', 'Shoujo', 'Josei', 'Kids'];

const PRODUCER_ROOTS = vocabulary(`
  Sunrise|サンライズ; Silver Link|シルバーリンク; Blue Lynx|ブルーリンクス; Kumo|雲; Hoshizora|星空; Tsubame|燕;
  Orange Grove|オレンジグローブ; White Fox|ホワイトフォックス; Madhouse|マッドハウス; Bones|ボンズ; Lerche|ラルケ;
  Kinema|キネマ; Aurora|オーロラ; Pierrot|ぴえろ; Shaft|シャフト; Gainax|ガイナックス; Trigger|トリガー;
  Asahi|朝日; Kaze|風; Hikari|光; Midori|緑; Akatsuki|暁; Yamato|大和; Fuji|富士; Sakura|桜; Kitsune|狐;
  Tanuki|狸; Neko|猫; Lantern|ランタン; Comet|コメット; Nova|ノヴァ; Polaris|ポラリス; Orbit|オービット;
  Prism|プリズム; Echo|エコー; Maple|メープル; Cedar|シーダー; Harbor|ハーバー; Lumen|ルーメン; Vertex|ヴァーテックス;
  Zephyr|ゼファー; Kyokutou|極東; Shinsei|新星; Tenkuu|天空; Gekkou|月光; Seiran|青嵐; Hakuun|白雲; Kohaku|琥珀;
  Ruri|瑠璃; Suisei|彗星; Arcadia|アルカディア; Pegasus|ペガサス; Griffin|グリフォン; Daybreak|デイブレイク;
  Northwind|ノースウインド; Lighthouse|ライトハウス; Paper Crane|ペーパークレーン; Red Kite|レッドカイト; Blue Whale|ブルーホエール
`);
const PRODUCER_SUFFIXES: Readonly<Record<ProducerType, Word[]>> = {
  studio: vocabulary('Animation||アニメーション; Studio||スタジオ; Works||ワークス; Pictures||ピクチャーズ; Productions||プロダクション; Film||フィルム; Graphics||グラフィックス; Studios||スタジオズ'),
  licensor: vocabulary('Entertainment||エンタテインメント; Films||フィルムズ; Media||メディア; Distribution||ディストリビューション; Home Video||ホームビデオ; USA||USA'),
  publisher: vocabulary('Shoten||書店; Publishing||出版; Shobou||書房; Comics||コミックス; Press||プレス; Bunko||文庫'),
  distributor: vocabulary('Releasing||リリーシング; Video||ビデオ; Cinema||シネマ; Haikyuu||配給'),
  network: vocabulary('TV||テレビ; Broadcasting||放送; Television||テレビジョン; Channel||チャンネル; Radio||ラジオ'),
  sponsor: vocabulary('Music||ミュージック; Records||レコード; Toys||トイズ; Games||ゲームス; Holdings||ホールディングス; Shouji||商事; Advertising||広告'),
  platform: vocabulary('Stream||ストリーム; Play||プレイ; Video Pass||ビデオパス; Online||オンライン; Plus||プラス'),
};
/** Shares of producer types (percent) and the least count of each. */
const PRODUCER_SHARES: Readonly<Record<ProducerType, number>> = { studio: 30, licensor: 6, publisher: 15, distributor: 7, network: 10, sponsor: 22, platform: 10 };
const PRODUCER_MINIMUMS: Readonly<Record<ProducerType, number>> = { studio: 3, licensor: 2, publisher: 1, distributor: 1, network: 1, sponsor: 1, platform: 1 };

const MAGAZINE_PREFIXES = ['Weekly', 'Monthly', 'Bimonthly', 'Quarterly', 'Young', 'Big', 'Daily', 'Comic', 'Manga'];
const MAGAZINE_CORES = [
  'Shounen Jump', 'Shounen Magazine', 'Shounen Sunday', 'Champion', 'Afternoon', 'Morning', 'Ace', 'Gangan', 'Dragon Age',
  'Alive', 'Flapper', 'Beam', 'Spirits', 'Zero-Sum', 'Hana to Yume', 'LaLa', 'Ribon', 'Nakayoshi', 'Margaret', 'Cookie',
  'Kiss', 'Feel Young', 'Zenon', 'Bunch', 'Jump SQ', 'Shoujo Friend', 'Valkyrie', 'Gene', 'Blade', 'Rex', 'Yuri Hime',
  'Dengeki Daioh', 'Evening', 'Action', 'Ultra Jump', "Hero's", 'Sirius', 'Be Love', 'Cheese!', 'Betsucomi',
];
const MAGAZINE_SUFFIXES = ['', '', '', ' Plus', ' Special', ' Next', ' Original', ' Digital', ' GX', ' Extra'];

/** Staff departments: the persons they usually come from and their positions, most frequent first. */
const DEPARTMENTS = {
  direction: { pool: 'director', positions: ['Episode Director', 'Storyboard', 'Director', 'Assistant Director', 'Chief Director'] },
  writing: { pool: 'writer', positions: ['Script', 'Series Composition', 'Screenplay'] },
  art: {
    pool: 'artist',
    positions: ['Key Animation', 'Animation Director', '2nd Key Animation', 'In-Between Animation', 'Background Art', 'Color Design', 'Chief Animation Director', 'Character Design', 'Art Director', 'Mechanical Design', 'Prop Design'],
  },
  production: { pool: 'producer', positions: ['Producer', 'Production Manager', 'Animation Producer', 'Executive Producer', 'Planning'] },
  sound: { pool: 'other', positions: ['Music', 'Sound Director', 'Sound Effects', 'Theme Song Composition', 'Theme Song Lyrics', 'Theme Song Arrangement'] },
  photography: { pool: 'other', positions: ['Director of Photography', 'Editing', 'Compositing', '3D Director'] },
} as const;
type Department = keyof typeof DEPARTMENTS;
type StaffPool = (typeof DEPARTMENTS)[Department]['pool'];
/** The positions every production credits first. */
const CORE_STAFF: readonly (readonly [Department, string])[] = [
  ['direction', 'Director'],
  ['writing', 'Series Composition'],
  ['art', 'Character Design'],
  ['sound', 'Music'],
  ['sound', 'Sound Director'],
  ['production', 'Producer'],
];

const SUBJECTS = ['A high school student', 'A young swordsman', 'An exiled princess', 'A retired hero', 'Two childhood friends', 'A lonely witch', 'A rookie detective', 'An ordinary office worker', 'A girl who cannot lie', 'The last of a fallen clan', 'A boy raised by wolves', 'A washed-up idol'];
const VERBS = ['discovers', 'is dragged into', 'sets out to find', 'stumbles upon', 'fights to protect', 'must survive', 'swears to uncover', 'accidentally inherits'];
const OBJECTS = ['a hidden world of magic', 'a deadly game with no rules', 'a promise made ten years ago', 'the secret of the old tower', 'a journey across a ruined continent', 'a café that opens only at night', 'a war between gods', 'a club on the verge of closing', 'a curse that spreads through dreams'];
const CLOSERS = ['But nothing is what it seems.', 'Friendships will be tested.', 'The clock is already ticking.', 'Their everyday life will never be the same.', 'Who can be trusted?', 'And it all starts with a single letter.'];

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** The long-vowel spelling some romanisations use (Shōnen for Shounen). */
const macrons = (s: string) => s.replace(/ou/g, 'ō').replace(/uu/g, 'ū').replace(/Ou/g, 'Ō').replace(/Uu/g, 'Ū');
const ordinal = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th')}`;
const pad2 = (n: number) => String(n).padStart(2, '0');

function sentences(r: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      r.chance(0.25)
        ? r.pick(CLOSERS)
        : `${r.pick(SUBJECTS)} ${r.pick(VERBS)} ${r.pick(OBJECTS)} in the ${NOUNS[r.zipf(NOUNS.length)]!.en.toLowerCase()} of ${r.pick(NOUNS).en}.`,
    );
  }
  return out.join(' ');
}

/** A made-up proper noun (Karimo / カリモ); a few carry a diacritic (Pokémon-like). */
function properNoun(r: Rng): Word {
  const n = weightedInt({ 2: 35, 3: 45, 4: 20 }, r);
  let rom = '';
  let kana = '';
  for (let i = 0; i < n; i++) {
    const s = r.pick(SYLLABLES);
    rom += s.rom;
    kana += s.kana;
    if (i > 0 && i < n - 1 && r.chance(0.08)) {
      rom += s.rom.slice(-1);
      kana += 'ー';
    }
  }
  if (r.chance(0.15)) {
    rom += 'n';
    kana += 'ン';
  }
  rom = capitalise(rom);
  if (r.chance(0.04)) {
    const accents: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ü' };
    const at = rom.slice(1).search(/[aeiou][^aeiou]*$/) + 1;
    if (at > 0) rom = rom.slice(0, at) + accents[rom[at]!]! + rom.slice(at + 1);
  }
  return { en: rom, rom, jpn: kana };
}

type Script = 'ja' | 'ko' | 'zh';

function japaneseTitle(r: Rng): Word {
  const noun = () => NOUNS[r.zipf(NOUNS.length, 1, 1)]!;
  const two = () => {
    const a = noun();
    let b = noun();
    while (b === a) b = noun();
    return [a, b] as const;
  };
  switch (
    r.weighted({ of: 20, adjective: 15, proper: 8, properNoun: 10, possessive: 6, cross: 2, novel: 3, isekai: 3, exclaim: 4, and: 5, loanword: 9, numbered: 3, accented: 3, single: 6 })
  ) {
    case 'of': {
      const [a, b] = two();
      return { en: r.chance(0.5) ? `The ${b.en} of the ${a.en}` : `${b.en} of ${a.en}`, rom: `${a.rom} no ${b.rom}`, jpn: `${a.jpn}の${b.jpn}` };
    }
    case 'adjective': {
      const j = ADJECTIVES[r.zipf(ADJECTIVES.length, 1, 1)]!;
      const n = noun();
      return { en: `${j.en} ${n.en}`, rom: `${j.rom} ${n.rom}`, jpn: `${j.jpn}${n.jpn}` };
    }
    case 'proper':
      return properNoun(r);
    case 'properNoun': {
      const p = properNoun(r);
      const n = noun();
      return { en: `${p.en} ${n.en}`, rom: `${p.rom} ${n.rom}`, jpn: `${p.jpn}${n.jpn}` };
    }
    case 'possessive': {
      const p = properNoun(r);
      const n = noun();
      return { en: `${p.en}${r.chance(0.25) ? '\u2019' : "'"}s ${n.en}`, rom: `${p.rom} no ${n.rom}`, jpn: `${p.jpn}の${n.jpn}` };
    }
    case 'cross': {
      const [a, b] = two();
      return { en: `${a.en} × ${b.en}`, rom: `${a.rom} × ${b.rom}`, jpn: `${a.jpn}×${b.jpn}` };
    }
    case 'novel': {
      const n = noun();
      const j = r.pick(NOVEL_ADJECTIVES);
      return { en: `My ${n.en} Can't Be This ${j.en}!`, rom: `Ore no ${n.rom} ga Konna ni ${j.rom} Wake ga Nai`, jpn: `俺の${n.jpn}がこんなに${j.jpn}わけがない` };
    }
    case 'isekai': {
      const n = noun();
      return { en: `Reincarnated as a ${n.en} in Another World`, rom: `Isekai de ${n.rom} ni Tensei Shita Ken`, jpn: `異世界で${n.jpn}に転生した件` };
    }
    case 'exclaim': {
      const n = noun();
      return { en: `${n.en}!!`, rom: `${n.rom}!!`, jpn: `${n.jpn}！！` };
    }
    case 'and': {
      const [a, b] = two();
      return { en: `${a.en} and ${b.en}`, rom: `${a.rom} to ${b.rom}`, jpn: `${a.jpn}と${b.jpn}` };
    }
    case 'loanword': {
      const ws = r.distinct(weightedInt({ 1: 20, 2: 55, 3: 25 }, r), () => LOANWORDS[r.zipf(LOANWORDS.length, 0.8)]!);
      const en = ws.map((w) => w.en).join(' ');
      return { en, rom: en, jpn: ws.map((w) => w.jpn).join(r.chance(0.3) ? '・' : '') };
    }
    case 'numbered': {
      const n = noun();
      const k = r.chance(0.5) ? r.int(2000, 2300) : r.int(2, 99);
      return { en: `${n.en} ${k}`, rom: `${n.rom} ${k}`, jpn: `${n.jpn}${k}` };
    }
    case 'accented': {
      const x = r.pick(ACCENTED);
      const p = properNoun(r);
      return r.chance(0.5) ? { en: `${x.en} ${p.en}`, rom: `${x.rom} ${p.rom}`, jpn: `${x.jpn}・${p.jpn}` } : { en: `${p.en} ${x.en}`, rom: `${p.rom} ${x.rom}`, jpn: `${p.jpn}・${x.jpn}` };
    }
    case 'single':
      return noun();
  }
}

/** A manhwa (Korean) or manhua (Chinese) title; `jpn` holds the original script. */
function continentalTitle(r: Rng, vocab: readonly Word[], of: (a: Word, b: Word) => Word): Word {
  const w = () => vocab[r.zipf(vocab.length, 0.9, 1)]!;
  const [a, b, c] = [w(), w(), w()];
  const join = r.chance(0.5) && vocab === KOREAN ? ' ' : '';
  switch (r.weighted({ of: 35, pair: 30, triple: 35 })) {
    case 'of':
      return of(a, b);
    case 'pair':
      return { en: `${a.en} ${b.en}`, rom: `${a.rom} ${b.rom}`, jpn: `${a.jpn}${join}${b.jpn}` };
    case 'triple':
      return { en: `${a.en} ${b.en}: ${c.en}`, rom: `${a.rom} ${b.rom}: ${c.rom}`, jpn: `${a.jpn}${join}${b.jpn} ${c.jpn}` };
  }
}

function baseTitle(r: Rng, script: Script): Word {
  switch (script) {
    case 'ja':
      return japaneseTitle(r);
    case 'ko':
      return continentalTitle(r, KOREAN, (a, b) => ({ en: `${b.en} of the ${a.en}`, rom: `${a.rom}ui ${b.rom}`, jpn: `${a.jpn}의 ${b.jpn}` }));
    case 'zh':
      return continentalTitle(r, CHINESE, (a, b) => ({ en: `${b.en} of the ${a.en}`, rom: `${a.rom} Zhi ${b.rom}`, jpn: `${a.jpn}之${b.jpn}` }));
  }
}

// ---- The plan: franchises, title names, casts, popularity, pools

interface Franchise {
  name: Word;
  script: Script;
  /** The media type of its first manga, when the franchise started as a manga. */
  origin: MangaMediaType | null;
  animes: number;
  mangas: number;
  /** Its first `mains` cast members are main characters. */
  mains: number;
  castStart: number;
  castSize: number;
}

interface TitlePlan<M> {
  franchise: number;
  /** 0 for the franchise's first title of this kind. */
  entry: number;
  name: Word;
  mediaType: M;
  characters: number;
}

interface Popularity {
  /** Zipf weight by rank (1 for the most popular title). */
  weights: Float64Array;
  /** Title indexes, most popular first. */
  order: Int32Array;
}

interface Plan {
  franchises: Franchise[];
  anime: TitlePlan<AnimeMediaType>[];
  manga: TitlePlan<MangaMediaType>[];
  popularity: { anime: Popularity; manga: Popularity };
  producerTypes: ProducerType[];
  studios: number[];
  licensors: number[];
  staff: Record<StaffPool, number[]>;
  authors: number[];
  voices: Record<Language, number[]>;
}

/** Title names unique per kind (compared as N(name), stricter than the contract's case-insensitive rule). */
class Names {
  private readonly taken = { anime: new Set<string>(), manga: new Set<string>() };
  private readonly bases = new Set<string>();
  constructor(private readonly r: Rng) {}

  /** A new franchise name, free in both kinds. */
  base(script: Script): Word {
    for (let attempt = 0; ; attempt++) {
      const w = baseTitle(this.r, script);
      const name = attempt < 20 ? w : { ...w, en: `${w.en} ${attempt}`, rom: `${w.rom} ${attempt}` };
      const key = normalize(name.en);
      if (!this.bases.has(key) && !this.taken.anime.has(key) && !this.taken.manga.has(key)) {
        this.bases.add(key);
        return name;
      }
    }
  }

  /** The name of a franchise's first title of a kind: its own name, free by construction. */
  first(kind: 'anime' | 'manga', f: Franchise): Word {
    this.taken[kind].add(normalize(f.name.en));
    return f.name;
  }

  /** The name of a later title of the franchise: a sequel, movie, spin-off, … */
  sequel(kind: 'anime' | 'manga', f: Franchise, mediaType: AnimeMediaType | MangaMediaType): Word {
    const n = (kind === 'anime' ? f.animes : f.mangas) + 1;
    const candidates = this.r.shuffle(kind === 'anime' ? animeSequels(this.r, f, mediaType as AnimeMediaType, n) : mangaSequels(this.r, f, mediaType as MangaMediaType, n));
    for (let extra = 0; ; extra++) {
      for (const c of candidates) {
        const name = extra === 0 ? c : { en: `${c.en} ${extra + 1}`, rom: `${c.rom} ${extra + 1}`, jpn: `${c.jpn} ${extra + 1}` };
        const key = normalize(name.en);
        if (!this.bases.has(key) && !this.taken[kind].has(key)) {
          this.taken[kind].add(key);
          return name;
        }
      }
    }
  }
}

function subtitle(r: Rng): Word {
  const j = ADJECTIVES[r.zipf(ADJECTIVES.length)]!;
  const n = NOUNS[r.zipf(NOUNS.length, 1, 1)]!;
  return { en: `${j.en} ${n.en}`, rom: `${j.rom} ${n.rom}`, jpn: `${j.jpn}${n.jpn}` };
}

const suffixed = (b: Word, en: string, rom: string, jpn: string): Word => ({ en: `${b.en}${en}`, rom: `${b.rom}${rom}`, jpn: `${b.jpn}${jpn}` });

function animeSequels(r: Rng, f: Franchise, type: AnimeMediaType, n: number): Word[] {
  const b = f.name;
  const s = subtitle(r);
  switch (type) {
    case 'tv':
      return [
        suffixed(b, ` ${ordinal(n)} Season`, ` ${ordinal(n)} Season`, ` 第${n}期`),
        suffixed(b, ` Season ${n}`, ` Season ${n}`, ` 第${n}期`),
        suffixed(b, `: ${s.en}`, `: ${s.rom}`, ` ${s.jpn}`),
        suffixed(b, `: ${s.en} Arc`, `: ${s.rom}-hen`, ` ${s.jpn}編`),
        suffixed(b, ` ${n}`, ` ${n}`, ` ${n}`),
        suffixed(b, ' Final Season', ' Final Season', ' The Final Season'),
      ];
    case 'movie':
      return [
        { en: `${b.en} Movie ${n}: ${s.en}`, rom: `${b.rom} Movie ${n}: ${s.rom}`, jpn: `劇場版 ${b.jpn} ${s.jpn}` },
        suffixed(b, ': The Movie', ' Movie', ' 劇場版'),
      ];
    case 'ova':
      return [suffixed(b, ' OVA', ' OVA', ' OVA'), suffixed(b, `: ${s.en} OVA`, `: ${s.rom} OVA`, ` ${s.jpn} OVA`)];
    case 'special':
      return [suffixed(b, ' Specials', ' Specials', ' 特別編'), suffixed(b, ': Recap', ': Soushuuhen', ' 総集編'), suffixed(b, ' Picture Drama', ' Picture Drama', ' ピクチャードラマ')];
    case 'ona':
      return [suffixed(b, ' (ONA)', ' (ONA)', ' (ONA)'), suffixed(b, ' Web Shorts', ' Mini Anime', ' ミニアニメ')];
    case 'music':
      return [suffixed(b, ': Music Video', ': Music Video', ' ミュージックビデオ'), suffixed(b, ': Character Song', ': Character Song', ' キャラクターソング')];
  }
}

function mangaSequels(r: Rng, f: Franchise, type: MangaMediaType, n: number): Word[] {
  const b = f.name;
  const s = subtitle(r);
  if (f.script !== 'ja') return [suffixed(b, ` Season ${n}`, ` Season ${n}`, f.script === 'ko' ? ` 시즌 ${n}` : ` 第${n}季`)];
  if (type === 'manga' && (f.origin === 'light_novel' || f.origin === 'novel')) return [suffixed(b, ' (Manga)', ' (Manga)', ' (漫画)')];
  if (type === 'light_novel' && f.origin !== 'light_novel') return [suffixed(b, ' (Light Novel)', ' (Light Novel)', ' (ライトノベル)')];
  if (type === 'oneshot') return [suffixed(b, ' (One Shot)', ' (Yomikiri)', ' 読切'), suffixed(b, ': Pilot', ': Pilot', ' パイロット版')];
  return [
    suffixed(b, ` Part ${n}`, ` Dai ${n} Bu`, ` 第${n}部`),
    suffixed(b, `: ${s.en}`, `: ${s.rom}`, ` ${s.jpn}`),
    suffixed(b, ' Side Story', ' Gaiden', ' 外伝'),
    suffixed(b, ' Comic Anthology', ' Comic Anthology', ' コミックアンソロジー'),
    suffixed(b, ' Zero', ' Zero', ' ゼロ'),
  ];
}

const MANGA_TYPES: Readonly<Record<MangaMediaType, number>> = { manga: 62, light_novel: 12, novel: 4, oneshot: 9, doujinshi: 3, manhwa: 6, manhua: 3, oel: 1 };
const FIRST_ANIME_TYPES: Readonly<Record<AnimeMediaType, number>> = { tv: 45, movie: 8, ova: 10, ona: 17, special: 5, music: 15 };
const LATER_ANIME_TYPES: Readonly<Record<AnimeMediaType, number>> = { tv: 35, movie: 20, ova: 15, special: 20, ona: 6, music: 4 };

function laterMangaType(r: Rng, origin: MangaMediaType): MangaMediaType {
  if (origin === 'manhwa' || origin === 'manhua') return origin;
  if (origin === 'light_novel' || origin === 'novel') return r.chance(0.6) ? 'manga' : origin;
  return r.weighted({ manga: 70, oneshot: 15, light_novel: 10, doujinshi: 5 });
}

/** Characters of a title: anime 10–60, manga 5–40, most near the low end (there are far fewer
 * characters than places in casts, so every extra place is one more appearance). */
function characterCount(r: Rng, kind: 'anime' | 'manga', type: string): number {
  if (kind === 'manga') return r.skewed(5, 40, 5);
  return type === 'music' ? r.int(10, 14) : r.skewed(10, 60, type === 'tv' ? 2.5 : 3.5);
}

function producerTypes(r: Rng, n: number): ProducerType[] {
  const types = Object.keys(PRODUCER_SHARES) as ProducerType[];
  const quota = Object.fromEntries(types.map((t) => [t, Math.max(PRODUCER_MINIMUMS[t], Math.floor((n * PRODUCER_SHARES[t]) / 100))])) as Record<ProducerType, number>;
  let total = types.reduce((s, t) => s + quota[t], 0);
  for (let i = 0; total < n; i++, total++) quota[types[i % types.length]!]++;
  for (let i = 0; total > n; i++) {
    const t = types[i % types.length]!;
    if (quota[t] > PRODUCER_MINIMUMS[t]) {
      quota[t]--;
      total--;
    }
  }
  return r.shuffle(types.flatMap((t) => Array<ProducerType>(quota[t]).fill(t)));
}

interface PersonTraits {
  language: Language;
  category: PersonCategory;
}

function personTraits(seed: number, i: number): PersonTraits {
  const r = new Rng(streamSeed(seed, 'person-traits', i));
  return {
    language: r.weighted({ japanese: 80, english: 9, korean: 3, chinese: 2, spanish: 1.5, french: 1.2, german: 1.2, italian: 1, portuguese: 1.1 }),
    category: r.weighted({ voice_actor: 35, artist: 20, writer: 10, director: 8, producer: 7, other: 20 }),
  };
}

function popularity(r: Rng, titles: readonly TitlePlan<unknown>[], franchises: readonly Franchise[]): Popularity {
  const score = titles.map((t) => {
    const f = franchises[t.franchise]!;
    return (f.animes + f.mangas) ** 0.7 * Math.exp(0.8 * r.normal()) * (t.entry === 0 ? 1 : 0.6);
  });
  const order = Int32Array.from(titles.keys()).sort((a, b) => score[b]! - score[a]! || a - b);
  const weights = new Float64Array(titles.length);
  order.forEach((t, rank) => (weights[t] = 1 / (rank + 1)));
  return { weights, order };
}

function buildPlan(seed: number, sizes: Sizes): Plan {
  const r = new Rng(streamSeed(seed, 'plan'));
  const names = new Names(r);
  const franchises: Franchise[] = [];
  const newFranchise = (script: Script, origin: MangaMediaType | null) =>
    franchises.push({ name: names.base(script), script, origin, animes: 0, mangas: 0, mains: weightedInt({ 1: 30, 2: 35, 3: 20, 4: 15 }, r), castStart: 0, castSize: 0 }) - 1;

  const manga: TitlePlan<MangaMediaType>[] = [];
  for (let i = 0; i < sizes.manga; i++) {
    let f: number;
    let mediaType: MangaMediaType;
    if (manga.length > 0 && r.chance(0.12)) {
      f = manga[r.int(0, manga.length - 1)]!.franchise;
      mediaType = laterMangaType(r, franchises[f]!.origin!);
    } else {
      mediaType = r.weighted(MANGA_TYPES);
      f = newFranchise(mediaType === 'manhwa' ? 'ko' : mediaType === 'manhua' ? 'zh' : 'ja', mediaType);
    }
    const fr = franchises[f]!;
    const name = fr.mangas === 0 ? names.first('manga', fr) : names.sequel('manga', fr, mediaType);
    manga.push({ franchise: f, entry: fr.mangas++, name, mediaType, characters: characterCount(r, 'manga', mediaType) });
  }

  const anime: TitlePlan<AnimeMediaType>[] = [];
  for (let i = 0; i < sizes.anime; i++) {
    const u = r.next();
    const adapted = manga.length > 0 ? manga[r.int(0, manga.length - 1)]!.franchise : -1;
    const f =
      anime.length > 0 && u < 0.4
        ? anime[r.int(0, anime.length - 1)]!.franchise
        : adapted >= 0 && franchises[adapted]!.script === 'ja' && u < 0.7
          ? adapted
          : newFranchise('ja', null);
    const fr = franchises[f]!;
    const mediaType = r.weighted(fr.animes === 0 ? FIRST_ANIME_TYPES : LATER_ANIME_TYPES);
    const name = fr.animes === 0 ? names.first('anime', fr) : names.sequel('anime', fr, mediaType);
    anime.push({ franchise: f, entry: fr.animes++, name, mediaType, characters: characterCount(r, 'anime', mediaType) });
  }

  // Casts: each franchise gets a window of the characters, large enough for its biggest title
  // and larger for long franchises; the windows are stretched over all characters, so
  // neighbouring franchises share some (there are far fewer characters than cast places).
  const biggest = new Int32Array(franchises.length);
  for (const t of [...anime, ...manga]) biggest[t.franchise] = Math.max(biggest[t.franchise]!, t.characters);
  let total = 0;
  franchises.forEach((fr, f) => {
    fr.castSize = Math.min(sizes.character, Math.ceil(biggest[f]! * (1 + 0.25 * Math.min(fr.animes + fr.mangas - 1, 4))));
    total += fr.castSize;
  });
  let cumulative = 0;
  for (const fr of franchises) {
    fr.castStart = total > sizes.character ? Math.floor((cumulative * sizes.character) / total) : cumulative;
    cumulative += fr.castSize;
  }

  const types = producerTypes(r, sizes.producer);
  const traits = Array.from({ length: sizes.person }, (_, i) => personTraits(seed, i));
  const byCategory = (...categories: PersonCategory[]) => traits.flatMap((t, i) => (categories.includes(t.category) ? [i] : []));
  const everyone = traits.map((_, i) => i);
  const orEveryone = (xs: number[]) => (xs.length >= 10 ? xs : everyone);
  const voiceActors = byCategory('voice_actor');
  const languages: Language[] = ['japanese', 'english', 'spanish', 'french', 'german', 'italian', 'portuguese', 'korean', 'chinese'];
  return {
    franchises,
    anime,
    manga,
    popularity: { anime: popularity(r, anime, franchises), manga: popularity(r, manga, franchises) },
    producerTypes: types,
    studios: types.flatMap((t, i) => (t === 'studio' ? [i] : [])),
    licensors: types.flatMap((t, i) => (t === 'licensor' ? [i] : [])),
    staff: {
      director: orEveryone(byCategory('director')),
      writer: orEveryone(byCategory('writer')),
      artist: orEveryone(byCategory('artist')),
      producer: orEveryone(byCategory('producer')),
      other: orEveryone(byCategory('other')),
    },
    authors: orEveryone(byCategory('artist', 'writer')),
    voices: Object.fromEntries(
      languages.map((l) => {
        const own = voiceActors.filter((p) => traits[p]!.language === l);
        return [l, own.length >= 3 ? own : orEveryone(voiceActors)];
      }),
    ) as Record<Language, number[]>,
  };
}

// ---- Records

interface Ctx {
  seed: number;
  sizes: Sizes;
  /** Today (UTC) as days since 1970-01-01. */
  today: number;
  plan: Plan;
}

const DAY_MS = 86_400_000;
const dayOf = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const FIRST_DAY = dayOf('1960-01-01');
const WEEKDAYS: readonly BroadcastDay[] = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A day from 1960 to `latest`, spread roughly as MyAnimeList's titles are: as many per year
 * over the last 12 years, 6% fewer each year before that (by rejection). */
function pastDay(r: Rng, latest: number): number {
  const span = Math.max(0, latest - FIRST_DAY);
  for (;;) {
    const back = r.int(0, span);
    if (r.chance(Math.exp(-0.06 * Math.max(0, back / 365 - 12)))) return latest - back;
  }
}

const rng = (ctx: Ctx, label: string, ...nums: number[]) => new Rng(streamSeed(ctx.seed, label, ...nums));
const image = (kind: string, i: number) => `https://cdn.example.org/images/${kind}/${i}.jpg`;

/** A YouTube-like address: 10 pseudo-random characters, then the video's position (distinct within a title). */
function videoUrl(ctx: Ctx, i: number, k: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let h = streamSeed(ctx.seed, 'video', i);
  let id = '';
  for (let c = 0; c < 10; c++) {
    if (c === 5) h = streamSeed(h, 'video', i);
    id += alphabet[h & 63];
    h >>>= 6;
  }
  return `https://www.youtube.com/watch?v=${id}${alphabet[k]}`;
}

function taxonomy(names: readonly string[], extra: (k: number) => string, i: number): string {
  return names[i] ?? extra(i - names.length);
}

function genreNames(ctx: Ctx): string[] {
  const combos = rng(ctx, 'genre-names').shuffle(GENRE_MODIFIERS.flatMap((m) => GENRE_BASES.map((b) => `${m} ${b}`)));
  return [...GENRES, ...combos];
}

function genre(names: readonly string[], i: number): TaxonomyWrite {
  const name = taxonomy(names, (k) => `Genre ${k + 1}`, i);
  return { name, description: `Titles in which ${name.toLowerCase()} drives the story.` };
}

function theme(ctx: Ctx, i: number): TaxonomyWrite {
  const name = taxonomy(THEMES, (k) => `Theme ${k + 1}`, i);
  return { name, description: rng(ctx, 'theme', i).chance(0.7) ? `Stories built around ${name.toLowerCase()}.` : '' };
}

function demographic(i: number): TaxonomyWrite {
  const name = taxonomy(DEMOGRAPHICS, (k) => `Demographic ${k + 1}`, i);
  return { name, description: `Titles published for the ${name} readership.` };
}

/** The producers' names (English and Japanese), unique, computed once per catalogue. */
function producerNames(ctx: Ctx): Word[] {
  const r = rng(ctx, 'producer-names');
  const seen = new Set<string>();
  return ctx.plan.producerTypes.map((type, i) => {
    for (let attempt = 0; ; attempt++) {
      const root = r.pick(PRODUCER_ROOTS);
      const second = r.chance(0.25) ? r.pick(PRODUCER_ROOTS) : null;
      const suffix = r.pick(PRODUCER_SUFFIXES[type]);
      const stem = second && second !== root ? { en: `${root.en} ${second.en}`, jpn: `${root.jpn}${second.jpn}` } : root;
      const name =
        type === 'studio' && r.chance(0.2)
          ? { en: `Studio ${stem.en}`, rom: '', jpn: `スタジオ${stem.jpn}` }
          : { en: `${stem.en} ${suffix.en}`, rom: '', jpn: `${stem.jpn}${suffix.jpn}` };
      if (attempt >= 50) name.en = `${name.en} ${i + 1}`;
      const key = normalize(name.en);
      if (!seen.has(key)) {
        seen.add(key);
        return name;
      }
    }
  });
}

function producer(ctx: Ctx, names: readonly Word[], i: number): ProducerWrite {
  const r = rng(ctx, 'producer', i);
  const type = ctx.plan.producerTypes[i]!;
  const name = names[i]!;
  return {
    name: name.en,
    name_jpn: r.chance(0.8) ? name.jpn : '',
    type,
    about: r.chance(0.5) ? `${name.en} is a Japanese ${type === 'studio' ? 'animation studio' : type} founded in Tokyo.` : '',
    established: r.chance(0.6) ? isoDay(pastDay(r, ctx.today - 365)) : null,
    image: r.chance(0.5) ? image('producer', i) : null,
    website: r.chance(0.6) ? `https://producer-${i}.example.co.jp/` : null,
  };
}

/** The magazines' names, unique, computed once per catalogue. */
function magazineNames(ctx: Ctx): string[] {
  const r = rng(ctx, 'magazine-names');
  const seen = new Set<string>();
  const out: string[] = [];
  for (let attempt = 0; out.length < ctx.sizes.magazine; attempt++) {
    let name = `${r.pick(MAGAZINE_PREFIXES)} ${r.pick(MAGAZINE_CORES)}${r.pick(MAGAZINE_SUFFIXES)}`;
    if (attempt >= ctx.sizes.magazine * 20) name = `${name} ${out.length + 1}`;
    if (!seen.has(normalize(name))) {
      seen.add(normalize(name));
      out.push(name);
    }
  }
  return out;
}

function personName(r: Rng, language: Language): { name: string; given: string; family: string; native: string } {
  if (language === 'japanese') {
    const { family, given } = japaneseName(r);
    const spell = r.chance(0.1) ? macrons : (s: string) => s;
    return { name: `${spell(given.rom)} ${spell(family.rom)}`, given: spell(given.rom), family: spell(family.rom), native: `${family.jpn} ${given.jpn}` };
  }
  const names = FOREIGN_NAMES[language];
  const given = r.pick(names.given);
  const family = r.pick(names.family);
  const familyFirst = language === 'korean' || language === 'chinese';
  return {
    name: familyFirst ? `${family.en} ${given.en}` : `${given.en} ${family.en}`,
    given: given.en,
    family: family.en,
    native: familyFirst ? `${family.jpn}${given.jpn}` : '',
  };
}

function person(ctx: Ctx, i: number): PersonWrite {
  const r = rng(ctx, 'person', i);
  const { language, category } = personTraits(ctx.seed, i);
  const n = personName(r, language);
  const alternates = n.native !== '' && r.chance(0.5) ? [n.native] : [];
  if (r.chance(0.05)) alternates.push(`${n.family.toUpperCase()} ${n.given}`);
  return {
    name: n.name,
    given_name: r.chance(0.95) ? n.given : '',
    family_name: r.chance(0.95) ? n.family : '',
    alternate_names: alternates,
    image: r.chance(0.7) ? image('person', i) : null,
    birthday: r.chance(0.45) ? isoDay(Math.min(ctx.today - 6000, r.int(dayOf('1935-01-01'), dayOf('2005-12-31')))) : null,
    about: r.chance(0.4) ? `${n.name} is a ${language === 'japanese' ? 'Japanese' : capitalise(language)} ${category.replace('_', ' ')}.` : '',
    website: r.chance(0.1) ? `https://person-${i}.example.net/` : null,
    language,
    category,
    pictures: Array.from({ length: r.chance(0.1) ? r.int(1, 2) : 0 }, (_, k) => ({ url: `https://cdn.example.org/images/person/${i}/${k + 1}.jpg`, name: k === 0 ? '' : 'Portrait' })),
  };
}

function character(ctx: Ctx, i: number): CharacterWrite {
  const r = rng(ctx, 'character', i);
  let name: string;
  let kanji = '';
  let given: string;
  switch (r.weighted({ japanese: 70, western: 20, single: 10 })) {
    case 'japanese': {
      const { family, given: g } = japaneseName(r);
      given = g.rom;
      name = `${g.rom} ${family.rom}`;
      if (r.chance(0.8)) kanji = `${family.jpn} ${g.jpn}`;
      break;
    }
    case 'western': {
      const g = properNoun(r);
      const family = properNoun(r);
      given = g.en;
      name = `${g.en} ${family.en}`;
      if (r.chance(0.7)) kanji = `${g.jpn}・${family.jpn}`;
      break;
    }
    default: {
      const p = properNoun(r);
      given = p.en;
      name = p.en;
      if (r.chance(0.6)) kanji = p.jpn;
    }
  }
  const nickname = () =>
    r.pick([`${given}-chan`, `${given}-kun`, `The ${ADJECTIVES[r.zipf(ADJECTIVES.length)]!.en} ${NOUNS[r.zipf(NOUNS.length)]!.en}`, `Captain ${given}`, `${given}-senpai`]);
  return {
    name,
    name_kanji: kanji,
    nicknames: r.chance(0.2) ? r.distinct(r.int(1, 3), nickname) : [],
    about: r.chance(0.6) ? sentences(r, r.int(1, 3)) : '',
    image: r.chance(0.8) ? image('character', i) : null,
  };
}

/** The character's voice in a language: the same person in every title (prolific persons come first in each pool). */
function voiceActor(ctx: Ctx, c: number, language: Language): number {
  const pool = ctx.plan.voices[language];
  return pool[rng(ctx, `voice-${language}`, c).zipf(pool.length, 1, 300)]!;
}

/** The characters of a title: the franchise's mains, then supporting characters from its cast window. */
function castOf(ctx: Ctx, r: Rng, t: TitlePlan<unknown>): { index: number; role: CharacterRole }[] {
  const fr = ctx.plan.franchises[t.franchise]!;
  const mains = Math.min(fr.mains, t.characters);
  const offsets = new Set<number>();
  // Floyd's sampling of (characters − mains) distinct offsets among the supporting cast.
  const m = fr.castSize - fr.mains;
  for (let j = m - (t.characters - mains); j < m; j++) {
    const x = r.int(0, j);
    offsets.add(offsets.has(x) ? j : x);
  }
  const at = (offset: number) => (fr.castStart + offset) % ctx.sizes.character;
  return [
    ...Array.from({ length: mains }, (_, k) => ({ index: at(k), role: 'main' as const })),
    ...[...offsets].map((o) => ({ index: at(fr.mains + o), role: 'supporting' as const })),
  ];
}

function franchiseRelations(ctx: Ctx, f: number): { genres: number[]; themes: number[]; demographics: number[]; authors: number[]; studio: number } {
  const r = rng(ctx, 'franchise', f);
  const { sizes, plan } = ctx;
  return {
    genres: r.distinct(weightedInt({ 1: 35, 2: 45, 3: 20 }, r), () => r.zipf(sizes.genre, 1.1, 1)),
    themes: r.distinct(weightedInt({ 0: 35, 1: 45, 2: 20 }, r), () => r.zipf(sizes.theme, 0.9, 2)),
    demographics: r.distinct(weightedInt({ 0: 30, 1: 65, 2: 5 }, r), () => r.zipf(sizes.demographic, 1, 1)),
    authors: r.distinct(weightedInt({ 1: 72, 2: 25, 3: 3 }, r), () => plan.authors[r.zipf(plan.authors.length, 1, 60)]!),
    studio: plan.studios[r.zipf(plan.studios.length, 1.1, 3)]!,
  };
}

/** Genres and themes of a title: the franchise's, plus a few of its own. */
function genresAndThemes(ctx: Ctx, r: Rng, rel: { genres: number[]; themes: number[] }) {
  const genres = new Set(rel.genres);
  for (let k = weightedInt({ 0: 40, 1: 40, 2: 20 }, r); k > 0 && genres.size < 5; k--) genres.add(r.zipf(ctx.sizes.genre, 1.1, 1));
  const themes = new Set(rel.themes);
  for (let k = weightedInt({ 0: 60, 1: 30, 2: 10 }, r); k > 0 && themes.size < 4; k--) themes.add(r.zipf(ctx.sizes.theme, 0.9, 2));
  return { genre_ids: [...genres].map((g) => ref('genre', g)), theme_ids: [...themes].map((t) => ref('theme', t)) };
}

const ref = <K extends Kind>(kind: K, index: number): Ref<K> => ({ ref: kind, index });

/**
 * The names of a title, its search fields, from a stream of their own (so that searchTexts
 * need not build the body): some romanisations use macrons; alternative names are romanised
 * initials (SnK), the other long-vowel spelling, an English variant.
 */
function titleNames(ctx: Ctx, kind: 'anime' | 'manga', i: number) {
  const r = rng(ctx, `names-${kind}`, i);
  const { name } = ctx.plan[kind][i]!;
  const rom = r.chance(0.1) ? macrons(name.rom) : name.rom;
  const alternatives: string[] = [];
  const parts = name.rom.split(/\s+/).filter((w) => /^\p{L}/u.test(w));
  if (parts.length >= 2 && r.chance(0.35)) alternatives.push(parts.map((w) => (/^\p{Lu}/u.test(w) ? w[0] : w[0]!.toLowerCase())).join(''));
  const other = rom === name.rom ? macrons(name.rom) : name.rom;
  if (other !== rom && r.chance(0.3)) alternatives.push(other);
  if (!name.en.startsWith('The ') && r.chance(0.08)) alternatives.push(`The ${name.en}`);
  const seen = new Set([normalize(name.en)]);
  return {
    name: name.en,
    name_jpn: r.chance(0.97) ? name.jpn : '',
    name_rom: r.chance(0.98) ? rom : '',
    alternative_names: alternatives.filter((a) => !seen.has(normalize(a)) && seen.add(normalize(a))),
  };
}

function titleFields(ctx: Ctx, r: Rng, kind: 'anime' | 'manga', i: number) {
  return {
    ...titleNames(ctx, kind, i),
    image: r.chance(0.92) ? image(kind, i) : null,
    synopsis: r.chance(0.85) ? sentences(r, r.int(2, 6)) : '',
    background: r.chance(0.2) ? sentences(r, r.int(1, 2)) : '',
  };
}

function pictures(kind: string, i: number, n: number): PictureWrite[] {
  return Array.from({ length: n }, (_, k) => ({ url: `https://cdn.example.org/images/${kind}/${i}/${k + 1}.jpg`, name: k === 0 ? 'Key Visual' : '' }));
}

const LANGUAGES_OF_DUBS: readonly Language[] = ['spanish', 'french', 'german', 'italian', 'portuguese', 'korean', 'chinese'];

function animeSchedule(ctx: Ctx, r: Rng, type: AnimeMediaType) {
  const today = ctx.today;
  const status = r.weighted<AnimeStatus>({ finished: 91.5, airing: 2.5, upcoming: 6 });
  let episodes: number | null = (() => {
    switch (type) {
      case 'tv':
        return weightedInt({ 12: 40, 13: 15, 24: 10, 25: 6, 26: 9, 10: 3, 11: 2, 50: 4, 51: 2, 52: 3, 6: 2, 100: 1, 200: 1.5, 500: 0.5 }, r) + (r.chance(0.05) ? r.int(0, 40) : 0);
      case 'movie':
      case 'music':
        return 1;
      case 'ova':
      case 'special':
        return r.skewed(1, 6, 2);
      case 'ona':
        return r.skewed(1, 24, 1.5);
    }
  })();
  const minutes = { tv: r.chance(0.1) ? r.int(3, 5) : r.int(23, 24), movie: r.int(60, 150), ova: r.int(25, 50), special: r.int(5, 25), ona: r.int(2, 25), music: r.int(3, 5) }[type];
  let duration: number | null = minutes * 60 + (r.chance(0.3) ? r.int(0, 59) : 0);
  const weeks = (episodes ?? 12) - 1;
  const span = type === 'tv' || type === 'ona' ? weeks * 7 : type === 'ova' ? weeks * r.int(30, 90) : 0;
  let from: number | null;
  let to: number | null;
  if (status === 'upcoming') {
    from = r.chance(0.35) ? null : today + r.int(1, 540);
    to = null;
    if (r.chance(0.5)) episodes = null;
    if (r.chance(0.5)) duration = null;
  } else if (status === 'airing') {
    from = r.chance(0.04) ? today - r.int(730, 9000) : today - r.int(0, 180);
    to = r.chance(0.3) ? Math.max(today, from + span) : null;
    if (r.chance(0.3)) episodes = null;
  } else {
    from = pastDay(r, today - span - 1);
    to = r.chance(0.05) ? null : from + span;
    if (from < dayOf('1990-01-01') && r.chance(0.2)) duration = null;
  }
  return { status, episodes, duration, from, to };
}

function broadcast(r: Rng, from: number | null): BroadcastWrite | null {
  if (r.chance(0.1)) return null;
  if (r.chance(0.03)) return { day: 'other', time: null, timezone: 'Asia/Tokyo' };
  const day = from === null ? r.pick(WEEKDAYS) : WEEKDAYS[new Date(from * DAY_MS).getUTCDay()]!;
  const hour = (() => {
    switch (r.weighted({ late: 60, evening: 25, morning: 15 })) {
      case 'late':
        return r.pick([22, 23, 23, 0, 0, 1, 1, 2]);
      case 'evening':
        return r.int(17, 21);
      default:
        return r.int(6, 10);
    }
  })();
  return { day, time: `${pad2(hour)}:${r.pick(['00', '00', '00', '05', '15', '25', '30', '30', '45', '55'])}`, timezone: 'Asia/Tokyo' };
}

function staff(ctx: Ctx, r: Rng, n: number, creators: readonly number[]): StaffWrite[] {
  const members = new Map<number, string[]>();
  const add = (dept: Department, primary: string) => {
    const { pool, positions } = DEPARTMENTS[dept];
    const persons = ctx.plan.staff[pool];
    for (let tries = 0; tries < 10; tries++) {
      const p = persons[r.zipf(persons.length, 1, 100)]!;
      if (members.has(p)) continue;
      const more = r.distinct(weightedInt({ 0: 60, 1: 30, 2: 10 }, r), () => positions[r.zipf(positions.length)]!).filter((x) => x !== primary);
      members.set(p, [primary, ...more]);
      return;
    }
  };
  for (const [dept, position] of CORE_STAFF) if (members.size < n) add(dept, position);
  for (const p of creators) if (members.size < n && !members.has(p)) members.set(p, ['Original Creator']);
  for (let tries = 0; members.size < n && tries < n * 3; tries++) {
    const dept = r.weighted<Department>({ art: 50, direction: 15, writing: 10, production: 12, sound: 5, photography: 8 });
    const positions = DEPARTMENTS[dept].positions;
    add(dept, positions[r.zipf(positions.length)]!);
  }
  return [...members].map(([p, positions]) => ({ person_id: ref('person', p), positions }));
}

function anime(ctx: Ctx, i: number): AnimeWrite {
  const r = rng(ctx, 'anime', i);
  const { plan, sizes } = ctx;
  const t = plan.anime[i]!;
  const fr = plan.franchises[t.franchise]!;
  const rel = franchiseRelations(ctx, t.franchise);
  const type = t.mediaType;
  const { status, episodes, duration, from, to } = animeSchedule(ctx, r, type);
  const source: AnimeSource | null =
    type === 'music'
      ? 'music'
      : fr.origin === 'light_novel'
        ? 'lnovel'
        : fr.origin === 'novel'
          ? 'novel'
          : fr.origin !== null
            ? 'manga'
            : r.chance(0.03)
              ? null
              : r.weighted({ original: 55, game: 12, vnovel: 10, lnovel: 8, novel: 5, other: 5, book: 3, radio: 1, manga: 1 });
  const dubs: Language[] = ['japanese', ...(r.chance(0.3) ? (['english'] as const) : []), ...LANGUAGES_OF_DUBS.filter(() => r.chance(0.04))];
  const studios = r.distinct(weightedInt({ 1: 80, 2: 17, 3: 3 }, r), () => (r.chance(0.7) ? rel.studio : plan.studios[r.zipf(plan.studios.length, 1.1, 3)]!));
  const staffCount = type === 'music' ? r.int(5, 8) : type === 'tv' || type === 'movie' ? r.skewed(8, 40, 1.3) : r.skewed(5, 20, 1.3);
  return {
    ...titleFields(ctx, r, 'anime', i),
    media_type: type,
    source,
    status,
    rating: status === 'upcoming' && r.chance(0.5) ? null : r.chance(0.04) ? null : r.weighted<Rating>({ pg13: 55, g: 10, pg: 12, r: 13, rplus: 8, rx: 2 }),
    episodes,
    duration_seconds: duration,
    aired_from: from === null ? null : isoDay(from),
    aired_to: to === null ? null : isoDay(to),
    broadcast: type === 'tv' || (type === 'ona' && r.chance(0.3)) ? broadcast(r, from) : null,
    website: r.chance(0.4) ? `https://anime-${i}.example.jp/` : null,
    ...genresAndThemes(ctx, r, rel),
    studio_ids: studios.map((s) => ref('producer', s)),
    producer_ids: r.distinct(r.skewed(0, 6, 1.2), () => r.zipf(sizes.producer, 0.9, 5)).map((p) => ref('producer', p)),
    licensor_ids: r.distinct(weightedInt({ 0: 55, 1: 38, 2: 7 }, r), () => plan.licensors[r.zipf(plan.licensors.length, 1, 1)]!).map((l) => ref('producer', l)),
    characters: castOf(ctx, r, t).map(({ index, role }) => ({
      character_id: ref('character', index),
      role,
      voice_actors: dubs
        .filter((_, k) => k === 0 || r.chance(role === 'main' ? 0.9 : 0.6))
        .slice(0, 4)
        .map((language) => ({ person_id: ref('person', voiceActor(ctx, index, language)), language })),
    })),
    staff: staff(ctx, r, staffCount, fr.origin === null ? [] : rel.authors),
    videos: Array.from({ length: weightedInt({ 0: 40, 1: 30, 2: 20, 3: 10 }, r) }, (_, k) => {
      const kind = k === 0 ? r.weighted<VideoKind>({ trailer: 70, promo: 20, music_video: 5, other: 5 }) : r.weighted<VideoKind>({ promo: 40, trailer: 20, music_video: 25, other: 15 });
      const titles: Record<VideoKind, string> = { trailer: `Trailer ${k + 1}`, promo: `PV ${k + 1}`, music_video: r.pick(['Opening', 'Ending', 'Insert Song']), other: r.pick(['CM', 'Announcement', 'Teaser']) };
      return { title: titles[kind], url: videoUrl(ctx, i, k), kind };
    }),
    pictures: pictures('anime', i, r.skewed(0, 4, 1.5)),
  };
}

function mangaSchedule(ctx: Ctx, r: Rng, type: MangaMediaType) {
  const today = ctx.today;
  const status = type === 'oneshot' || type === 'doujinshi' ? 'finished' : r.weighted<MangaStatus>({ finished: 62, publishing: 24, on_hiatus: 5, discontinued: 4, upcoming: 5 });
  let chapters: number | null;
  let volumes: number | null;
  switch (type) {
    case 'oneshot':
    case 'doujinshi':
      chapters = 1;
      volumes = r.chance(0.5) ? 1 : null;
      break;
    case 'light_novel':
    case 'novel':
      volumes = r.skewed(1, type === 'novel' ? 10 : 30, 2);
      chapters = r.chance(0.5) ? null : volumes * r.int(4, 8);
      break;
    default:
      chapters = Math.min(2000, Math.max(1, Math.round(Math.exp(3.5 + 1.1 * r.normal()))));
      volumes = type === 'manhwa' || type === 'manhua' ? (r.chance(0.6) ? null : Math.ceil(chapters / 30)) : Math.min(1000, Math.ceil(chapters / r.int(8, 11)));
  }
  let from: number | null;
  let to: number | null = null;
  if (status === 'upcoming') {
    from = r.chance(0.4) ? null : today + r.int(1, 365);
    chapters = null;
    volumes = null;
  } else if (status === 'publishing' || status === 'on_hiatus') {
    from = today - Math.floor((today - FIRST_DAY) * r.next() ** 4);
    if (r.chance(0.6)) chapters = null;
    if (r.chance(0.3)) volumes = null;
  } else {
    const span = type === 'oneshot' || type === 'doujinshi' ? 0 : Math.min(365 * 40, (chapters ?? (volumes ?? 1) * 6) * r.int(7, 30));
    from = pastDay(r, today - span - 1);
    to = r.chance(0.05) ? null : from + span;
  }
  return { status, chapters, volumes, from, to };
}

function manga(ctx: Ctx, i: number): MangaWrite {
  const r = rng(ctx, 'manga', i);
  const { plan, sizes } = ctx;
  const t = plan.manga[i]!;
  const rel = franchiseRelations(ctx, t.franchise);
  const type = t.mediaType;
  const { status, chapters, volumes, from, to } = mangaSchedule(ctx, r, type);
  const novel = type === 'light_novel' || type === 'novel';
  const authorRoles: AuthorRole[] = rel.authors.length === 1 ? [novel ? 'story' : 'story_and_art'] : ['story', 'art', 'art'];
  return {
    ...titleFields(ctx, r, 'manga', i),
    website: r.chance(0.15) ? `https://manga-${i}.example.jp/` : null,
    ...genresAndThemes(ctx, r, rel),
    pictures: pictures('manga', i, r.skewed(0, 2, 2)),
    media_type: type,
    status,
    chapters,
    volumes,
    published_from: from === null ? null : isoDay(from),
    published_to: to === null ? null : isoDay(to),
    demographic_ids: rel.demographics.map((d) => ref('demographic', d)),
    magazine_ids: r.distinct(novel ? weightedInt({ 0: 80, 1: 20 }, r) : weightedInt({ 0: 25, 1: 70, 2: 5 }, r), () => r.zipf(sizes.magazine, 1, 3)).map((m) => ref('magazine', m)),
    authors: rel.authors.map((p, k) => ({ person_id: ref('person', p), role: authorRoles[k]! })),
    characters: castOf(ctx, r, t).map(({ index, role }) => ({ character_id: ref('character', index), role })),
  };
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const EVENTS = ['Anime Expo', 'AnimeJapan', 'Jump Festa', 'Comiket', 'Crunchyroll Expo', 'Anime NYC', 'Japan Expo'];

function news(ctx: Ctx, i: number): NewsWrite {
  const r = rng(ctx, 'news', i);
  const { plan } = ctx;
  const popular = (kind: 'anime' | 'manga') => plan.popularity[kind].order[r.zipf(plan[kind].length, 1, 5)]!;
  const animes = plan.anime.length === 0 ? [] : r.distinct(weightedInt({ 0: 25, 1: 55, 2: 15, 3: 5 }, r), () => popular('anime'));
  const mangas = plan.manga.length === 0 ? [] : r.distinct(weightedInt({ 0: 55, 1: 38, 2: 7 }, r), () => popular('manga'));
  const tag = r.weighted<NewsTag>({ new_anime: 25, new_manga: 15, pending: 5, spoiler: 3, review: 12, interview: 10, event: 15, recommendation: 15 });
  const a = animes.length > 0 ? `'${plan.anime[animes[0]!]!.name.en}'` : null;
  const m = mangas.length > 0 ? `'${plan.manga[mangas[0]!]!.name.en}'` : null;
  const year = new Date(ctx.today * DAY_MS).getUTCFullYear();
  const headlines = [
    a && `${a} TV Anime Reveals ${ordinal(r.int(1, 4))} Promotional Video`,
    a && `${a} Anime Announces ${ordinal(r.int(2, 4))} Season`,
    a && `${a} Film Tops Box Office for ${r.int(2, 9)} Weeks`,
    m && `${m} Manga Ends in ${r.pick(MONTHS)}`,
    m && `${m} Manga Gets Anime Adaptation`,
    m && `${m} Manga Goes on Hiatus`,
    `${r.pick(EVENTS)} ${year} Announces Guests`,
    `Top ${r.int(5, 20)} ${NOUNS[r.zipf(NOUNS.length)]!.en} Anime of the ${r.pick(['Season', 'Year', 'Decade'])}`,
    `Interview: The Director of ${a ?? m ?? `'${r.pick(NOUNS).en}'`}`,
  ].filter((h): h is string => h !== null);
  const name = [...r.pick(headlines)].slice(0, 200).join('').trim();
  return {
    name,
    description: r.chance(0.7) ? sentences(r, r.int(1, 2)) : '',
    content: Array.from({ length: r.int(3, 10) }, () => sentences(r, r.int(3, 6))).join('\n\n'),
    image: r.chance(0.7) ? image('news', i) : null,
    source: r.chance(0.5) ? `https://news.example.com/articles/${i}` : null,
    tag,
    anime_ids: animes.map((x) => ref('anime', x)),
    manga_ids: mangas.map((x) => ref('manga', x)),
  };
}

// ---- The catalogue

export interface Catalogue {
  readonly seed: number;
  readonly sizes: Sizes;
  /** The date "today" the statuses and dates are consistent with (YYYY-MM-DD). */
  readonly today: string;
  /** The write body of the `index`-th record of a kind (0 ≤ index < sizes[kind]). */
  body<K extends Kind>(kind: K, index: number): Bodies[K];
  /** Every body of a kind, in index order. */
  bodies<K extends Kind>(kind: K): Generator<Bodies[K]>;
  /** The values of the list's search fields (§4) of a record: `q` is matched against them. */
  searchTexts(kind: Kind, index: number): string[];
  /** A Zipf weight of the title's popularity (1 for the most popular), to spread list items. */
  popularityWeight(kind: 'anime' | 'manga', index: number): number;
}

export interface CatalogueOptions {
  /** `mal` (default), `small`, or sizes of one's own (at least MIN_SIZES). */
  scale?: ScaleName | Sizes;
  seed?: number;
  /** Today's date, YYYY-MM-DD (default: the current UTC date). Part of what determines the data. */
  today?: string;
  /**
   * Titles without the relations that make most of a title's items: no casts, staff or authors
   * (so no reverse items and no chunks of them). The community benchmark loads 105,000 titles
   * this way (~53 items each instead of ~120); everything else of a body is the same.
   */
  lean?: boolean;
}

export function catalogue(options: CatalogueOptions = {}): Catalogue {
  const sizes: Sizes = typeof options.scale === 'object' ? options.scale : SCALES[options.scale ?? 'mal'];
  for (const kind of CREATION_ORDER) {
    if (!Number.isInteger(sizes[kind]) || sizes[kind] < MIN_SIZES[kind]) throw new RangeError(`${kind}: at least ${MIN_SIZES[kind]} records are needed`);
  }
  const seed = (options.seed ?? 1) >>> 0;
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const ctx: Ctx = { seed, sizes, today: dayOf(today), plan: buildPlan(seed, sizes) };
  const genres = genreNames(ctx);
  const producerWords = producerNames(ctx);
  const magazines = magazineNames(ctx);
  const builders: { [K in Kind]: (i: number) => Bodies[K] } = {
    genre: (i) => genre(genres, i),
    theme: (i) => theme(ctx, i),
    demographic: (i) => demographic(i),
    producer: (i) => producer(ctx, producerWords, i),
    magazine: (i) => ({ name: magazines[i]! }),
    person: (i) => person(ctx, i),
    character: (i) => character(ctx, i),
    anime: (i) => (options.lean ? { ...anime(ctx, i), characters: [], staff: [] } : anime(ctx, i)),
    manga: (i) => (options.lean ? { ...manga(ctx, i), characters: [], authors: [] } : manga(ctx, i)),
    news: (i) => news(ctx, i),
  };
  const body = <K extends Kind>(kind: K, index: number): Bodies[K] => {
    if (!Number.isInteger(index) || index < 0 || index >= sizes[kind]) throw new RangeError(`No ${kind} #${index} (there are ${sizes[kind]})`);
    return builders[kind](index);
  };
  return {
    seed,
    sizes,
    today,
    body,
    bodies: function* <K extends Kind>(kind: K) {
      for (let i = 0; i < sizes[kind]; i++) yield body(kind, i);
    },
    searchTexts(kind, index) {
      if (kind !== 'anime' && kind !== 'manga') return searchFields(kind, body(kind, index));
      if (!Number.isInteger(index) || index < 0 || index >= sizes[kind]) throw new RangeError(`No ${kind} #${index} (there are ${sizes[kind]})`);
      const b = titleNames(ctx, kind, index);
      return [b.name, b.name_jpn, b.name_rom, ...b.alternative_names];
    },
    popularityWeight: (kind, index) => ctx.plan.popularity[kind].weights[index]!,
  };
}

/** The search fields of each list (API.md §4.1–§4.11), for a body of that kind. */
export function searchFields(kind: Kind, body: Bodies[Kind]): string[] {
  switch (kind) {
    case 'anime':
    case 'manga': {
      const b = body as TitleWrite;
      return [b.name, b.name_jpn, b.name_rom, ...b.alternative_names];
    }
    case 'character': {
      const b = body as CharacterWrite;
      return [b.name, b.name_kanji, ...b.nicknames];
    }
    case 'person': {
      const b = body as PersonWrite;
      return [b.name, b.given_name, b.family_name, ...b.alternate_names];
    }
    case 'producer': {
      const b = body as ProducerWrite;
      return [b.name, b.name_jpn];
    }
    case 'news': {
      const b = body as NewsWrite;
      return [b.name, b.description];
    }
    default:
      return [(body as { name: string }).name];
  }
}

// ---- Statistics for the query matrix

/** The number of records of a kind that `q` matches (§1.6), by brute force. */
export function matchCount(cat: Catalogue, kind: Kind, q: string): number {
  const t = terms(q);
  let n = 0;
  for (let i = 0; i < cat.sizes[kind]; i++) if (t.length === 0 || matches(cat.searchTexts(kind, i), t)) n++;
  return n;
}

export interface QueryCase {
  kind: Kind;
  /** What the query exercises: `top`, `common`, `medium`, `rare`, `unique`, `prefix`, `two-terms`, `han`, `katakana`, `accent`, `none`. */
  label: string;
  q: string;
  /** The exact number of matching records. */
  matches: number;
}

/** The records whose words start with a term, from the postings of the sorted distinct words
 * (the words starting with a term are contiguous in any lexicographic order). */
class PrefixIndex {
  private readonly postings = new Map<string, number[]>();
  private sorted: string[] = [];
  constructor(private readonly records: number) {}

  add(record: number, recordWords: readonly string[]): void {
    for (const w of new Set(recordWords)) {
      const p = this.postings.get(w);
      if (p === undefined) this.postings.set(w, [record]);
      else p.push(record);
    }
  }

  /** Call once every record is added. */
  seal(): void {
    this.sorted = [...this.postings.keys()].sort();
  }

  private withPrefix(term: string): Set<number> {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid]! < term) lo = mid + 1;
      else hi = mid;
    }
    const found = new Set<number>();
    for (let i = lo; i < this.sorted.length && this.sorted[i]!.startsWith(term); i++) for (const r of this.postings.get(this.sorted[i]!)!) found.add(r);
    return found;
  }

  /** The number of records `q` matches (§1.6). */
  count(q: string): number {
    const t = terms(q);
    if (t.length === 0) return this.records;
    const sets = t.map((x) => this.withPrefix(x)).sort((a, b) => a.size - b.size);
    let n = 0;
    for (const r of sets[0]!) if (sets.every((s) => s.has(r))) n++;
    return n;
  }
}

const LATIN_WORD = /^[a-z]+$/;
const HAN = /^\p{Script=Han}{2}$/u;
const KATAKANA = /^\p{Script=Katakana}{2}$/u;
/** Marks that make a Latin word accented, except the macron of long-vowel romanisation (Shōnen). */
const ACCENT = /[\u0300-\u0303\u0305-\u036f]/u;

/**
 * A query's terms with a typo for the fuzzy cases (API.md §8.4): the middle letter of its longest
 * term of 5 or more letters dropped; null when no term has 5.
 */
export function withTypo(terms: readonly string[]): string[] | null {
  const longest = [...terms].sort((a, b) => [...b].length - [...a].length)[0];
  if (!longest || [...longest].length < 5) return null;
  const chars = [...longest];
  chars.splice(chars.length >> 1, 1);
  return terms.map((t) => (t === longest ? chars.join('') : t));
}

/**
 * Queries for the search benchmarks, chosen from the data of each kind: the most frequent word,
 * the most frequent word of 4+ letters, one matching about 1% of the records, a rare one
 * (about 3 records), one matching a single record, a 3-letter prefix, two terms that occur
 * together, the most frequent Han and katakana bigrams, an accented word queried without its
 * accent, and a word that matches nothing; each with its exact number of matches (a query
 * equal to an earlier one of the same kind is left out).
 */
export function queryMatrix(cat: Catalogue, kinds: readonly Kind[] = ['anime', 'manga', 'character', 'person']): QueryCase[] {
  return kinds.flatMap((kind) => {
    const index = new PrefixIndex(cat.sizes[kind]);
    /** The words of each record's `name`, for the two-term query (words of one title, not a title and its translation). */
    const nameRuns: string[][] = [];
    const runs = new Map<string, number>();
    const bigrams = new Map<string, number>();
    const accented = new Map<string, number>();
    const inc = (m: Map<string, number>, keys: Iterable<string>) => {
      for (const k of new Set(keys)) m.set(k, (m.get(k) ?? 0) + 1);
    };
    for (let i = 0; i < cat.sizes[kind]; i++) {
      const texts = cat.searchTexts(kind, i);
      const ws = texts.flatMap(words);
      const textRuns = texts.map(terms);
      index.add(i, ws);
      nameRuns.push(textRuns[0] ?? []);
      inc(runs, textRuns.flat());
      inc(bigrams, ws.map((w) => w.slice(0, 2)).filter((b) => HAN.test(b) || KATAKANA.test(b)));
      const nonAscii = texts.filter((s) => /[^ -~]/.test(s));
      inc(accented, nonAscii.flatMap((s) => (s.normalize('NFKD').match(/[\p{L}\p{N}\p{Mn}]+/gu) ?? []).filter((w) => ACCENT.test(w)).map(normalize)));
    }
    index.seal();
    const ranked = (m: Map<string, number>, keep: (w: string) => boolean) =>
      [...m].filter(([w]) => keep(w)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const latin = (min: number) => (w: string) => LATIN_WORD.test(w) && w.length >= min;
    const closest = (target: number, min: number) => ranked(runs, latin(min)).sort((a, b) => Math.abs(a[1] - target) - Math.abs(b[1] - target))[0]?.[0];
    const top = ranked(runs, latin(1))[0]?.[0];
    const common = ranked(runs, latin(4))[0]?.[0];
    const medium = closest(cat.sizes[kind] / 100, 4);
    const together = new Map<string, number>();
    for (const rs of nameRuns) if (common !== undefined && rs.includes(common)) inc(together, rs.filter((w) => w !== common));
    const partner = ranked(together, latin(4))[0]?.[0];
    const unique = ranked(runs, latin(6))
      .filter(([, n]) => n === 1)
      .map(([w]) => w)
      .find((w) => index.count(w) === 1);
    const candidates: [string, string | undefined][] = [
      ['top', top],
      ['common', common],
      ['medium', medium],
      ['rare', closest(3, 5)],
      ['unique', unique],
      ['prefix', common?.slice(0, 3)],
      ['two-terms', partner && `${common} ${partner}`],
      ['han', ranked(bigrams, (b) => HAN.test(b))[0]?.[0]],
      ['katakana', ranked(bigrams, (b) => KATAKANA.test(b))[0]?.[0]],
      ['accent', ranked(accented, latin(3))[0]?.[0]],
      ['none', 'zqxjv'],
    ];
    const seen = new Set<string>();
    return candidates.flatMap(([label, q]) => (q === undefined || seen.has(q) || !seen.add(q) ? [] : [{ kind, label, q, matches: index.count(q) }]));
  });
}
