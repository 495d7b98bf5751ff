import type { NearbyCue } from './task-lexicon';

/** `.` in a pattern stops at these; so does the default gap between two nearby phrases. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

interface Span {
  start: number;
  end: number;
}

/**
 * Each cue pattern's global copy, compiled once (compiling it per call was a tenth of
 * classifyTask's time). matchAll clones the pattern it is given, so a shared copy's lastIndex
 * is never moved.
 */
const GLOBAL_COPIES = new WeakMap<RegExp, RegExp>();

function globalCopy(pattern: RegExp): RegExp {
  let copy = GLOBAL_COPIES.get(pattern);
  if (!copy) {
    copy = new RegExp(pattern.source, pattern.global ? pattern.flags : `${pattern.flags}g`);
    GLOBAL_COPIES.set(pattern, copy);
  }
  return copy;
}

/** Where `pattern` matches in `text`, left to right, without overlaps (one linear pass). */
function spans(text: string, pattern: RegExp): Span[] {
  return Array.from(text.matchAll(globalCopy(pattern)), (m) => ({ start: m.index, end: m.index + m[0].length }));
}

/**
 * The text of the first `cue.first` (leftmost) with a `cue.then` in reach, through that `then`;
 * null when there is none. Equal to the match of `first.{0,N}then` (`.{0,N}?` for the nearest
 * reach, `[^…]` for `notBetween`), found in time linear in the text: each phrase and gap character
 * is found once, and two cursors walk the `then` phrases as the `first` phrases advance.
 */
export function matchNearby(text: string, cue: NearbyCue): string | null {
  const firsts = spans(text, cue.first);
  if (firsts.length === 0) return null;
  const thens = spans(text, cue.then);
  const stops = spans(text, cue.notBetween ?? LINE_BREAK);
  let stop = 0; // the first gap stop at or after the current first phrase's end
  let nearest = 0; // the first `then` starting at or after it
  let farthest = -1; // the last `then` starting within reach
  for (const first of firsts) {
    while (stop < stops.length && stops[stop].start < first.end) stop++;
    const reach = Math.min(first.end + cue.within, stop < stops.length ? stops[stop].start : Infinity);
    while (nearest < thens.length && thens[nearest].start < first.end) nearest++;
    while (farthest + 1 < thens.length && thens[farthest + 1].start <= reach) farthest++;
    if (nearest <= farthest) {
      const then = thens[cue.reach === 'nearest' ? nearest : farthest];
      return text.slice(first.start, then.end);
    }
  }
  return null;
}
