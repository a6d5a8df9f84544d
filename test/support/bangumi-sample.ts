/**
 * Small data sets in the shape of bangumi-data, for the import's tests: real items of the
 * installed package (its version is pinned) and items written out here to change between runs.
 */
import { loadBangumiData } from '../../shared/domain/bangumi-data.js';

export type RawItem = Record<string, unknown> & { title: string; sites: { site: string; id?: string }[] };

const bangumiId = (item: RawItem) => item.sites.find((s) => s.site === 'bangumi')?.id;

/**
 * Real items chosen for what they exercise: seven titles named "CARDFIGHT!! Vanguard" (two in
 * 2019) and two "ゲゲゲの鬼太郎" of 1968 (names made distinct), one-off and daily broadcasts,
 * a broadcast after midnight in Japan (鉄腕アトム: Monday 16:00 UTC is Tuesday 01:00), an OVA, a
 * series without an end (サザエさん), a Chinese web series, an item that shares its bangumi id
 * (一人之下, keyed otherwise), an item with neither a bangumi nor a MyAnimeList id (keyed by
 * title), and the first titles of April 2026 (airing and upcoming in mid-April 2026).
 */
export async function realSample(): Promise<{ items: RawItem[]; siteMeta: unknown }> {
  const { items, siteMeta } = (await loadBangumiData()) as { items: RawItem[]; siteMeta: unknown };
  const ids = new Set(['10225', '35977', '55783', '90632', '209764', '285664', '290591', '40379', '211091', '304727', '386628', '806', '300356', '32585', '137937', '175457']);
  const titles = new Set(['ハムちゃんずの宝さがし大作戦 〜はむはー!!すてきな海のなつやすみ〜']);
  const april = items.filter((i) => String(i.begin).startsWith('2026-04')).slice(0, 6);
  return { items: [...items.filter((i) => ids.has(bangumiId(i) ?? '') || titles.has(i.title)), ...april], siteMeta };
}

/** An item written out, on bangumi.tv as `id` (fields as the package's data.d.ts). */
export function item(id: string, fields: Partial<RawItem> = {}): RawItem {
  return {
    title: `テスト作品${id}`,
    titleTranslate: { en: [`Test Work ${id}`], 'zh-Hans': [`测试作品${id}`] },
    type: 'tv',
    lang: 'ja',
    officialSite: `https://example.org/${id}/`,
    begin: '2026-07-02T15:00:00.000Z',
    broadcast: 'R/2026-07-02T15:00:00.000Z/P7D',
    end: '2026-09-17T15:30:00.000Z',
    comment: '',
    sites: [
      { site: 'bangumi', id },
      { site: 'mal', id: `9${id}` },
    ],
    ...fields,
  };
}
