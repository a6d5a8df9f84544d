/**
 * What the change feed's items must be once the sequencer has caught up (API.md §8.5; decision
 * EX10): no change left unnumbered, entries numbered 1..head without a gap or a repeat, `at`
 * never decreasing, each naming a kind of the feed and a change. Returns the problems found.
 */
import type { Item } from '../../shared/db/batch.js';
import { FEED_KINDS } from '../../shared/db/feed.js';

export function feedProblems(items: ReadonlyMap<string, Item>): string[] {
  const problems: string[] = [];
  const entries = [...items.values()].filter((i) => i.pk === 'FEED' && String(i.sk).startsWith('E#')).sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  const head = [...items.values()].find((i) => i.pk === 'FEED' && i.sk === 'H');
  const left = [...items.values()].filter((i) => i.pk === 'FEED#P');
  if (left.length > 0) problems.push(`${left.length} change(s) not numbered: ${left.slice(0, 3).map((i) => `${String(i.k)} ${String(i.id)}`).join(', ')}`);
  entries.forEach((e, i) => {
    const seq = Number(String(e.sk).slice(2));
    if (seq !== i + 1) problems.push(`entry ${i + 1} is numbered ${seq}`);
    if (!(FEED_KINDS as readonly string[]).includes(String(e.k)) || !['created', 'updated', 'deleted'].includes(String(e.c))) problems.push(`entry ${seq} names ${String(e.k)} ${String(e.c)}`);
    if (i > 0 && String(e.at) < String(entries[i - 1]!.at)) problems.push(`entry ${seq}'s time goes back`);
  });
  if (entries.length > 0 && Number(head?.seq) !== entries.length) problems.push(`the head says ${String(head?.seq)}, the entries end at ${entries.length}`);
  return problems;
}
