/** A fenced code block of a Markdown reply. */
export interface FencedBlock {
  /** The info string's first word (`js` in ```js title), as written; '' when absent. */
  language: string;
  /** Everything between the opening line and the closing fence (untrimmed). */
  body: string;
}

/** An opening fence line: ``` or ~~~ (3 or more), then an optional info string. */
const OPENING = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)/;
/** A closing fence line: only the fence, with blanks around it. */
const CLOSING = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
/** What ends a line for `^` and `$` in a multiline pattern. */
const LINE_BREAK = /[\n\r\u2028\u2029]/g;

/** Where each line of `text` starts and ends, lines ending at any line break (as `^`/`$` with the m flag see them). */
function lineSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let start = 0;
  for (const m of text.matchAll(LINE_BREAK)) {
    spans.push({ start, end: m.index });
    start = m.index + 1;
  }
  spans.push({ start, end: text.length });
  return spans;
}

/**
 * The fenced blocks of `text`, in order: an opening fence line, then the body up to a line holding
 * only the same fence, or to the end of the text when the block was never closed (a reply cut
 * off). The opening line runs to the next \n. A line scan, one pass: the single pattern it
 * replaces (`^[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n([\s\S]*?)(?:^[ \t]*\1[ \t]*$|…)` with the
 * m flag) rescanned the rest of the text from every line start when no \n followed, and took
 * quadratic time on long fence-like lines.
 */
export function* fencedBlocks(text: string): Generator<FencedBlock> {
  const lines = lineSpans(text);
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(text.slice(lines[i].start, lines[i].end));
    if (!open) continue;
    const newline = text.indexOf('\n', lines[i].start + open[0].length);
    // No line break after the fence: neither this nor any later block can open.
    if (newline < 0) return;
    let close = i + 1;
    while (close < lines.length && lines[close].start <= newline) close++;
    while (close < lines.length && CLOSING.exec(text.slice(lines[close].start, lines[close].end))?.[1] !== open[1]) close++;
    yield { language: open[2], body: text.slice(newline + 1, close < lines.length ? lines[close].start : text.length) };
    i = close;
  }
}
