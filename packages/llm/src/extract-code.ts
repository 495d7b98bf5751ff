import { LlmReplyError } from '@guardagent/errors';
import { fencedBlocks } from './fenced-blocks';

const ACCEPTED_LANGUAGES = new Set(['', 'js', 'javascript', 'ts', 'typescript', 'mjs', 'jsx', 'tsx']);

/**
 * Guard code from an LLM reply: the body of the FIRST JavaScript/TypeScript (or unlabelled)
 * fenced block, or the whole reply when it has no fence at all.
 */
export function extractCode(reply: string): string {
  const text = reply.replace(/\r\n?/g, '\n');
  const seen: string[] = [];
  for (const block of fencedBlocks(text)) {
    const language = block.language.toLowerCase();
    if (!ACCEPTED_LANGUAGES.has(language)) {
      seen.push(language);
      continue;
    }
    const code = block.body.trim();
    if (!code) throw new LlmReplyError('The LLM reply has an empty code block', { language });
    return code;
  }
  if (seen.length > 0) {
    throw new LlmReplyError(`The LLM reply has no JavaScript code block (only: ${[...new Set(seen)].join(', ')})`, {
      languages: seen,
    });
  }
  // Some models open a fence mid-line ("Here it is: ```js"); accept that only when no line fence exists.
  // `$` is the end of the reply (no m flag): written so rather than `(?![\s\S])`, a checker proves it linear.
  const loose = /```[ \t]*([A-Za-z]*)[ \t]*\n?([\s\S]*?)(?:```|$)/.exec(text);
  if (loose && ACCEPTED_LANGUAGES.has(loose[1].toLowerCase()) && loose[2].trim()) return loose[2].trim();
  const whole = text.trim();
  if (!whole) throw new LlmReplyError('The LLM reply is empty: no code');
  return whole;
}
