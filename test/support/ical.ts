/**
 * Reading an airing calendar (API.md §8.6) back as a client would, with ical.js (an independent
 * parser), and §5.3's episode sequence the calendar must equal.
 */
import ICAL from 'ical.js';
import { nextEpisode, type Airing } from '../../shared/domain/broadcast.js';

/** The events of a calendar: instants from its own VTIMEZONE, the written local DTSTART, and the other properties. */
export function calendarEvents(text: string) {
  const root = new ICAL.Component(ICAL.parse(text));
  for (const tz of root.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
  return root.getAllSubcomponents('vevent').map((v) => {
    const event = new ICAL.Event(v);
    const start = v.getFirstProperty('dtstart')!;
    return {
      uid: event.uid,
      at: event.startDate.toJSDate().getTime(),
      local: start.toICALString().split(':')[1]!,
      tzid: start.getParameter('tzid'),
      seconds: event.duration.toSeconds(),
      summary: event.summary,
      url: String(v.getFirstPropertyValue('url')),
      stamp: (v.getFirstPropertyValue('dtstamp') as ICAL.Time).toJSDate().getTime(),
    };
  });
}

/** An anime's episodes in (from, to]: §5.3's next_episode, then again after each one. */
export function episodeSequence(a: Airing, from: number, to: number): { number: number; at: number }[] {
  const out: { number: number; at: number }[] = [];
  for (let now = from; ; ) {
    const e = nextEpisode(a, now);
    if (!e || Date.parse(e.airs_at) > to) return out;
    out.push({ number: e.number, at: Date.parse(e.airs_at) });
    now = Date.parse(e.airs_at);
  }
}
