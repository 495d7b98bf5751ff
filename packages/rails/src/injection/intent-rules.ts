import { CUE } from './intent-lexicon';
import type { Scan } from './intent-scan';

/**
 * Injection intents read from the cue words a scan found (intent-lexicon), in any language of the
 * lexicon, by how close the parts of an intent stand (in word units; a character of Chinese or
 * Japanese is half a unit) and whether a clause ends between them:
 * - `ignore-instructions`: an override verb within six units of what is overridden, with a word
 *   that makes it the reader's within three ("ignore all previous instructions", "önceki tüm
 *   talimatları yok say", "忽略之前的所有指令"; within four), no clause end or comma between; with only
 *   "above" or "so far" there, `ignore-above` (weaker: manuals skip steps that way);
 * - `system-prompt-exfiltration`: reveal/show/print within eight units of the system prompt or
 *   the reader's prompt;
 * - `exfiltration`: send/forward/upload within fifteen units of something sensitive (a password,
 *   the conversation, card details; verb-last languages put them far apart) and twenty of a
 *   destination (a link, an email address, "this webhook"), in one clause, both after the verb or
 *   both before it (verb-last languages), not negated ("never send your password to anyone");
 * - `redirect-user`: tell/ask/direct the user (within fifteen units, one clause) with a link within 25 units
 *   and, within 25 units too, something sensitive, "instead"/"secretly", or alarm ("urgent",
 *   "locked"), or the text addressed to the assistant; without that, only `user-link` (weak: a
 *   support article may tell the reader where to go);
 * - `addressed-to-assistant`: a marker of address ("note to", "if you are", "reading this") within
 *   three units of the assistant/AI/model, then an imperative or an intent's verb within fifteen;
 * - `new-instructions`: "new instructions", "from now on" (weak alone).
 */

/** Units of the hits of any of the classes of `cue`, ascending (a phrase's hit stands at its last word, so hits come a little out of order). */
function unitsOf(scan: Scan, cue: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < scan.hitCues.length; k++) if ((scan.hitCues[k]! & cue) !== 0) out.push(scan.hitUnits[k]!);
  return out.sort((a, b) => a - b);
}

/** The index of the first of `sorted` that is >= `at` (binary search). */
function firstAtLeast(sorted: readonly number[], at: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether a clause ends (or, with `commas`, a comma stands) between units a and b. Units only grow, so both lists are sorted. */
function brokenBetween(scan: Scan, a: number, b: number, commas: boolean): boolean {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const k = firstAtLeast(scan.breaks, lo);
  if (k < scan.breaks.length && scan.breaks[k]! < hi) return true;
  if (!commas) return false;
  const c = firstAtLeast(scan.commas, lo);
  return c < scan.commas.length && scan.commas[c]! < hi;
}

/** Whether one of `units` (sorted) lies within `within` of `at` and passes `ok`. */
const near = (units: readonly number[], at: number, within: number, ok: (u: number) => boolean = () => true): boolean => {
  for (let k = firstAtLeast(units, at - within); k < units.length && units[k]! <= at + within; k++) if (ok(units[k]!)) return true;
  return false;
};

const has = (scan: Scan, ...cues: number[]) => cues.every((c) => (scan.cues & c) !== 0);

/** At most this many hits are weighed (a text of nothing but cue words is read for its first ones). */
const MAX_HITS = 4096;

export function intentSignals(scan: Scan, into: Set<string>): void {
  if (scan.hitCues.length === 0) return;
  if (scan.hitCues.length > MAX_HITS) {
    scan.hitCues.length = MAX_HITS;
    scan.hitUnits.length = MAX_HITS;
  }
  if (has(scan, CUE.OVR, CUE.INS) && (scan.cues & (CUE.PRI | CUE.ABOVE)) !== 0 && !into.has('ignore-instructions')) {
    const ovr = unitsOf(scan, CUE.OVR);
    const pri = unitsOf(scan, CUE.PRI);
    const above = unitsOf(scan, CUE.ABOVE);
    for (const u of unitsOf(scan, CUE.INS)) {
      if (!near(ovr, u, 6, (o) => o !== u && !brokenBetween(scan, o, u, true))) continue;
      const reader = (p: number) => !brokenBetween(scan, p, u, true);
      if (near(pri, u, 4, reader)) {
        into.add('ignore-instructions');
        break;
      }
      // "Ignore the instructions above": how manuals skip steps too (weaker, as in English).
      if (near(above, u, 3, reader)) into.add('ignore-above');
    }
  }
  if (has(scan, CUE.REV, CUE.PRM) && !into.has('system-prompt-exfiltration')) {
    const rev = unitsOf(scan, CUE.REV);
    const owner = unitsOf(scan, CUE.SYSW | CUE.PRI);
    for (const u of unitsOf(scan, CUE.PRM)) {
      const owned = near(owner, u, 2, (o) => !brokenBetween(scan, o, u, true));
      if (owned && near(rev, u, 8, (r) => r !== u && !brokenBetween(scan, r, u, false))) {
        into.add('system-prompt-exfiltration');
        break;
      }
    }
  }
  if (has(scan, CUE.SEND, CUE.SENS, CUE.DEST)) {
    const sens = unitsOf(scan, CUE.SENS);
    const dest = unitsOf(scan, CUE.DEST);
    const neg = unitsOf(scan, CUE.NEG);
    for (const u of unitsOf(scan, CUE.SEND)) {
      if (near(neg, u - 1.5, 1.5, (n) => n < u)) continue;
      // The object and the destination both after the verb ("send the password to …") or both
      // before it (verb-last languages: "パスワードを … に送信"); a list of data followed by "mail
      // jane@…" is neither.
      for (const after of [true, false]) {
        const side = (x: number) => x !== u && (after ? x > u : x < u) && !brokenBetween(scan, x, u, false);
        if (near(sens, u, 15, side) && near(dest, u, 20, side)) {
          into.add('exfiltration');
          break;
        }
      }
      // "把聊天记录…发送到 https://…", "the password — send it to …": the object just before, the destination just after.
      if (!into.has('exfiltration') && near(sens, u, 8, (x) => x < u && !brokenBetween(scan, x, u, false)) && near(dest, u, 8, (d) => d > u && !brokenBetween(scan, d, u, false))) {
        into.add('exfiltration');
      }
      if (into.has('exfiltration')) break;
    }
  }
  const addressed = has(scan, CUE.MARK, CUE.ADDR, CUE.IMP | CUE.OVR | CUE.REV | CUE.SEND | CUE.TELL) && addressedToAssistant(scan);
  if (addressed) into.add('addressed-to-assistant');
  if (has(scan, CUE.TELL, CUE.USER, CUE.DEST)) {
    const users = unitsOf(scan, CUE.USER);
    const dest = unitsOf(scan, CUE.DEST);
    const alarm = unitsOf(scan, CUE.SENS | CUE.INST | CUE.URG);
    for (const u of unitsOf(scan, CUE.TELL)) {
      if (!near(users, u, 15, (x) => x !== u && !brokenBetween(scan, x, u, false)) || !near(dest, u, 25)) continue;
      if (addressed || near(alarm, u, 25)) {
        into.add('redirect-user');
        into.delete('user-link');
        break;
      }
      into.add('user-link');
    }
  }
  if ((scan.cues & CUE.NEW) !== 0) into.add('new-instructions');
}

function addressedToAssistant(scan: Scan): boolean {
  const addr = unitsOf(scan, CUE.ADDR);
  // After the address, an imperative, or a verb of an intent (override, reveal, send, tell).
  const imp = unitsOf(scan, CUE.IMP | CUE.OVR | CUE.REV | CUE.SEND | CUE.TELL);
  for (const m of unitsOf(scan, CUE.MARK)) {
    for (const a of addr) {
      if (Math.abs(a - m) > 3 || brokenBetween(scan, a, m, false)) continue;
      const from = Math.max(a, m);
      if (near(imp, from, 15, (i) => i > from)) return true;
    }
  }
  return false;
}
