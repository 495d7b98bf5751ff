import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CallGuard } from './call-guard';
import { inspectFields } from './inspect-fields';
import { toolFields } from './text-fields';

/** A tool entry with more text than this (description, schemas, everything) is not inspected: it is hidden. */
export const MAX_TOOL_TEXT_CHARS = 200_000;
/** Tool entries inspected at once. */
const VETTING_CONCURRENCY = 16;

/**
 * What the client may see of one upstream tool. `show`: the entry as inspected, redactions applied.
 * `hide`: the entry is kept from `tools/list` and calls to the tool are refused; `decided` false
 * when it could not be inspected at all (no decision, quota), which is not remembered.
 */
export type ToolVerdict =
  | { outcome: 'show'; tool: Tool; redacted: string[] }
  | { outcome: 'hide'; reasons: string[]; decided: boolean };

/**
 * Decided verdicts on tool entries, by subject and exact content: a catalogue is inspected once,
 * not on every listing or session, and again as soon as an entry changes. Bounded in entries and
 * in the characters of the entries it keeps (oldest out), so a server that keeps changing large
 * entries cannot grow it without end.
 */
export class ToolVerdicts {
  private readonly verdicts = new Map<string, { verdict: ToolVerdict; chars: number }>();
  private chars = 0;

  constructor(private readonly limits: { maxEntries?: number; maxChars?: number } = {}) {}

  get(key: string): ToolVerdict | undefined {
    const kept = this.verdicts.get(key);
    if (kept) {
      this.verdicts.delete(key);
      this.verdicts.set(key, kept);
    }
    return kept?.verdict;
  }

  /** `chars`: the size of the entry the verdict keeps (0 for a hidden tool's reasons). */
  set(key: string, verdict: ToolVerdict, chars: number): void {
    this.delete(key);
    this.verdicts.set(key, { verdict, chars });
    this.chars += chars;
    const maxEntries = this.limits.maxEntries ?? 4096;
    const maxChars = this.limits.maxChars ?? 16_000_000;
    while (this.verdicts.size > maxEntries || (this.chars > maxChars && this.verdicts.size > 0)) this.delete(this.verdicts.keys().next().value as string);
  }

  private delete(key: string): void {
    const kept = this.verdicts.get(key);
    if (!kept) return;
    this.verdicts.delete(key);
    this.chars -= kept.chars;
  }

  get size(): number {
    return this.verdicts.size;
  }
}

/**
 * Inspects one tool entry (named as the client sees it) with the output rails, like a result:
 * every string of it (name, title, description, input and output schemas' descriptions, titles,
 * enums, defaults, examples and property names, annotations, icons, `_meta`) as one guard job.
 * A prompt injection anywhere, PII under a `deny` filter, PII in a place that cannot be rewritten
 * (the name, a key, a number), or an entry too large or too deep to inspect: the tool is hidden.
 * PII under a `redact` filter elsewhere: the entry is shown redacted.
 */
export async function vetTool(guard: CallGuard, verdicts: ToolVerdicts, exposed: string, tool: Tool): Promise<ToolVerdict> {
  const label = `the catalogue entry of tool '${exposed}'`;
  const flat = toolFields({ ...tool, name: exposed } as Tool & Record<string, unknown>, MAX_TOOL_TEXT_CHARS);
  if (!flat.ok) return { outcome: 'hide', decided: true, reasons: [`${label} cannot be inspected: ${flat.reason}`] };
  const json = JSON.stringify(flat.copy);
  const key = createHash('sha256').update(guard.subjectId).update('\u0000').update(json).digest('hex');
  const known = verdicts.get(key);
  if (known) return known;
  const inspection = await inspectFields(guard, flat.fields, { label, context: { mcp: { toolEntry: exposed } } });
  const verdict: ToolVerdict =
    inspection.outcome === 'pass'
      ? { outcome: 'show', tool: flat.copy, redacted: inspection.redacted }
      : { outcome: 'hide', decided: inspection.decided, reasons: inspection.reasons };
  if (verdict.outcome === 'show' || verdict.decided) verdicts.set(key, verdict, verdict.outcome === 'show' ? json.length : 0);
  return verdict;
}

/** Vets entries a few at a time (each is a guard job), in order. */
export async function vetTools<T>(items: readonly T[], vet: (item: T) => Promise<ToolVerdict>): Promise<ToolVerdict[]> {
  const out: ToolVerdict[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await vet(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(VETTING_CONCURRENCY, items.length) }, lane));
  return out;
}
