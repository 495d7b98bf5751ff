import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallGuard } from './call-guard';
import { inspectFields, listPaths } from './inspect-fields';
import { errorFields, resultFields } from './text-fields';

/** At most this many content blocks are inspected; a result with more is withheld. */
export const MAX_RESULT_BLOCKS = 64;
/** Upstream error messages are cut to this many characters before they are inspected. */
export const MAX_ERROR_CHARS = 2000;

export type FilteredResult = { outcome: 'pass'; result: CallToolResult; redacted: string[] } | { outcome: 'block'; reasons: string[] };

/**
 * Every text the upstream returns passes through the guard before it reaches the model: each
 * string of each content block (text; resource links' name, title, description and uri; embedded
 * resources' text; blobs and image/audio data that decode to text), `structuredContent`, `_meta`
 * of the result and of each block, object keys and numbers. They go as one guard job (see
 * inspectFields); redactions are applied in place; a refusal withholds the whole result. When the
 * model would read two or more texts in order (the blocks' prose), they are read once more as one
 * joined text, after redaction: anything found only there (a card split over two blocks, an
 * instruction spread over several) withholds the result. Binary data passes on unchanged.
 */
export async function filterToolResult(guard: CallGuard, tool: string, result: CallToolResult): Promise<FilteredResult> {
  const content = result.content ?? [];
  if (content.length > MAX_RESULT_BLOCKS) return { outcome: 'block', reasons: [`the result of '${tool}' has more than ${MAX_RESULT_BLOCKS} content blocks`] };
  const label = `the result of '${tool}'`;
  const flat = resultFields(result as CallToolResult & Record<string, unknown>);
  if (!flat.ok) return { outcome: 'block', reasons: [`${label} cannot be inspected: ${flat.reason}`] };

  const fieldsInspection = await inspectFields(guard, flat.fields, { label, context: { mcp: { resultOf: tool } } });
  if (fieldsInspection.outcome === 'block') return fieldsInspection;

  // Read after redaction, so only what the blocks carry together (and no block alone) is found here.
  const readable = flat.fields.filter((f) => f.readable);
  if (readable.length >= 2) {
    const verdict = await guard.checkText(`${label} read as one text`, readable.map((f) => f.text).join('\n'), { mcp: { resultOf: tool, joined: true } });
    const where = `in ${listPaths(readable.map((f) => f.path))} read together`;
    if (verdict.outcome === 'block') return { outcome: 'block', reasons: verdict.reasons.map((r) => (verdict.inspected ? `${r} (${where})` : r)) };
    if (verdict.redacted) return { outcome: 'block', reasons: [`${label}: PII that no single field holds, split across fields (${where})`] };
  }
  return { outcome: 'pass', result: flat.copy as CallToolResult, redacted: fieldsInspection.redacted };
}

export type FilteredError = { outcome: 'pass'; message: string } | { outcome: 'block'; reasons: string[] };

/**
 * An upstream's error message (a protocol error, not an error result) through the guard like a
 * result: any server that echoes what it was sent ("file not found: <name>") carries the
 * attacker's text in it.
 */
export async function filterUpstreamError(guard: CallGuard, tool: string, message: string): Promise<FilteredError> {
  const flat = errorFields(message.slice(0, MAX_ERROR_CHARS));
  if (!flat.ok) return { outcome: 'block', reasons: [flat.reason] };
  const inspection = await inspectFields(guard, flat.fields, { label: `the error message of '${tool}'`, context: { mcp: { errorOf: tool } } });
  return inspection.outcome === 'block' ? inspection : { outcome: 'pass', message: flat.copy.message };
}
