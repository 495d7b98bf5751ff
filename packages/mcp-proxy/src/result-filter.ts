import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallGuard } from './call-guard';

/** At most this many content blocks are inspected; a result with more is withheld. */
export const MAX_RESULT_BLOCKS = 64;

export type FilteredResult = { outcome: 'pass'; result: CallToolResult } | { outcome: 'block'; reasons: string[] };

/**
 * Every text the upstream returns passes through the guard before it reaches the model: `text`
 * blocks, the text of embedded resources, and `structuredContent` (as its JSON). Redactions are
 * applied in place; any block the guard refuses withholds the whole result. Binary blocks (image,
 * audio, blob resources) are passed on unchanged: the rails' filters read only text.
 */
export async function filterToolResult(guard: CallGuard, tool: string, result: CallToolResult): Promise<FilteredResult> {
  const content = result.content ?? [];
  if (content.length > MAX_RESULT_BLOCKS) return { outcome: 'block', reasons: [`the result of '${tool}' has more than ${MAX_RESULT_BLOCKS} content blocks`] };
  const reasons: string[] = [];

  const check = async (text: string): Promise<string | null> => {
    const verdict = await guard.checkText(tool, text);
    if (verdict.outcome === 'block') {
      reasons.push(...verdict.reasons);
      return null;
    }
    return verdict.text;
  };

  const blocks = await Promise.all(
    content.map(async (block) => {
      if (block.type === 'text') {
        const text = await check(block.text);
        return text === null ? null : { ...block, text };
      }
      if (block.type === 'resource' && 'text' in block.resource && typeof block.resource.text === 'string') {
        const text = await check(block.resource.text);
        return text === null ? null : { ...block, resource: { ...block.resource, text } };
      }
      return block;
    }),
  );

  let structuredContent = result.structuredContent;
  if (structuredContent !== undefined) {
    const json = JSON.stringify(structuredContent);
    const text = await check(json);
    if (text !== null && text !== json) {
      // Redaction replaces matches inside JSON strings; if that ever broke the JSON, withhold.
      try {
        structuredContent = JSON.parse(text) as Record<string, unknown>;
      } catch {
        reasons.push(`the structured result of '${tool}' could not be redacted safely`);
      }
    }
  }

  if (reasons.length > 0) return { outcome: 'block', reasons: [...new Set(reasons)] };
  const filtered: CallToolResult = { ...result, content: blocks.filter((b) => b !== null) };
  if (structuredContent !== undefined) filtered.structuredContent = structuredContent;
  return { outcome: 'pass', result: filtered };
}
