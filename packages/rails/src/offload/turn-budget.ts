import { warmInjectionDetector } from '../injection/detect-injection';
import { detectPii } from '../pii/detect-pii';

/**
 * Detector work the rails may do inline in one turn of the event loop, in characters read (see
 * railsWeight). Measured worst case on this machine: about 0.5 µs per character read by every
 * filter (hostile floods of slipped keys and word pieces, under load), so about 8 ms a turn.
 * Anything heavier in one job goes to the rails worker thread (RailsWorkerPool); many light jobs
 * decided together (a chunk of 128 checks, a chunk's decision-log entries) take turns.
 */
export const TURN_BUDGET_CHARS = 16_384;

let spent = 0;
let resetQueued = false;
const reset = () => {
  spent = 0;
  resetQueued = false;
};

/**
 * Waits, when this turn of the event loop has already done TURN_BUDGET_CHARS of inline detector
 * work, until a later turn (timers and I/O run between), then counts `chars` against it. A job
 * alone never waits: at most one job's work runs past the budget in one turn.
 */
export async function takeTurn(chars: number): Promise<void> {
  while (spent > 0 && spent + chars > TURN_BUDGET_CHARS) await new Promise<void>((resolve) => setImmediate(resolve));
  spent += chars;
  if (!resetQueued) {
    resetQueued = true;
    setImmediate(reset);
  }
}

/**
 * Builds what the detectors build on first use in this thread (the injection filter's trie of cue
 * words in every language, slip index, word-break reader and cipher words; the decodings' cipher
 * words: 0.1–0.5 s, more on a loaded machine), and runs every part of both detectors once, so
 * that no job pays for it on the event loop or within its rails budget. Call it when a process or
 * worker starts serving, before it takes jobs (the executor, the rails worker threads, the
 * sandbox worker processes do).
 */
export function warmDetectors(): void {
  warmInjectionDetector();
  detectPii(`warm up 4111 1111 1111 1111 jane@example.com ${Buffer.from('jane@example.com').toString('base64')} jane%40example.com`);
}
