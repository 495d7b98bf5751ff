/**
 * Levenshtein is O(n·m): two 1 MB outputs would take minutes. Texts longer than this are cut before
 * comparing (see capText). 4000 chars keeps one comparison in the low milliseconds while covering the
 * whole of typical agent inputs/outputs.
 */
export const DEFAULT_MAX_CHARS = 4000;

export interface RetrievalQuery {
  input: string;
  output: string;
}

/** What retrieval compares: the paper's nearest-neighbour key is the case's input and output together. */
export function retrievalText(item: { input: string; output: string }): string {
  return `${item.input}\n${item.output}`;
}

/**
 * Cut a text to maxChars, keeping its head and its tail (half each): the head carries the start of the input,
 * the tail the end of the output, which is usually the action being judged.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.ceil(maxChars / 2);
  const tail = maxChars - head;
  return text.slice(0, head) + (tail > 0 ? text.slice(text.length - tail) : '');
}

export function checkRetrievalArgs(k: number, maxChars: number): void {
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k must be a non-negative integer, got ${k}`);
}
