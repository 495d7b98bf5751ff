import { LlmReplyError } from '@guardagent/errors';
import type { ChatMessage } from '../chat-types';
import { TRUNCATION_NOTE, limitOf, section, type PromptLimits } from '../prompt-text';

/** Chat messages asking the LLM to put `text` into exactly one of `categories`. */
export function classifyPrompt(
  text: string,
  categories: readonly string[],
  instruction?: string,
  limits?: PromptLimits,
): ChatMessage[] {
  const system = `You classify text into exactly one of the given categories.
${instruction?.trim() ? `${instruction.trim()}\n` : ''}${TRUNCATION_NOTE}
Answer with the name of one category, written exactly as listed, and nothing else.`;
  const user = [
    `### Categories\n${categories.map((c) => `- ${c}`).join('\n')}`,
    section('Text', text, limitOf(limits)),
    'Which category? Answer with the category name only.',
  ].join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const LEADING_MARKUP = /[\s"'`*_]/;
const TRAILING_MARKUP = /[\s"'`*_.!]/;

/**
 * `text` without the quotes, emphasis and end punctuation around it. A scan from each end: the
 * pattern it replaces, `/^[…]+|[…]+$/g`, retried its unanchored second half at every character of
 * a long run, in quadratic time.
 */
function stripMarkup(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && LEADING_MARKUP.test(text[start])) start++;
  while (end > start && TRAILING_MARKUP.test(text[end - 1])) end--;
  return text.slice(start, end);
}

function normalize(text: string): string {
  return stripMarkup(text.trim().replace(/^(?:category|answer|label)\s*[:=-]\s*/i, '')).toLowerCase();
}

/**
 * One of `categories` from the reply: an exact (case-insensitive) answer first; else the category
 * named as a whole word earliest in the reply; else the longest category contained in it.
 */
export function parseClassifyReply(reply: string, categories: readonly string[]): string {
  if (categories.length === 0) throw new LlmReplyError('No categories to classify into');
  const answer = normalize(reply);
  const exact = categories.find((c) => c.trim().toLowerCase() === answer);
  if (exact !== undefined) return exact;

  const lower = reply.toLowerCase();
  // Longest first so "unsafe" wins over "safe" when both start at the same place.
  const byLength = [...categories].sort((a, b) => b.length - a.length);
  let best: { category: string; at: number } | undefined;
  for (const category of byLength) {
    const name = category.trim().toLowerCase();
    if (!name) continue;
    const wholeWord = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(name)}(?![\\p{L}\\p{N}_])`, 'u').exec(lower);
    if (wholeWord && (!best || wholeWord.index < best.at)) best = { category, at: wholeWord.index };
  }
  if (best) return best.category;

  const contained = byLength.find((c) => c.trim() && lower.includes(c.trim().toLowerCase()));
  if (contained !== undefined) return contained;
  throw new LlmReplyError(`The LLM reply names none of the categories (${categories.join(', ')})`, {
    reply: reply.slice(0, 200),
    categories: [...categories],
  });
}
