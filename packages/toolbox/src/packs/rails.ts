import { detectInjection, detectPii, PII_KINDS, redactPii } from '@guardagent/rails/detectors';
import { ValidationError } from '@guardagent/errors';
import { PiiKindSchema, textOf, type PiiKind } from '@guardagent/schemas';
import type { ToolboxFunction } from '../toolbox-function';
import { detectInjectionWithLlm } from './rails/detect-injection-with-llm';

export { detectInjectionWithLlm, INJECTION_CLASSIFY_INSTRUCTION, LLM_INJECTION_SCORE, type LlmInjectionResult } from './rails/detect-injection-with-llm';

const KINDS_TEXT = PII_KINDS.map((k) => `'${k}'`).join('|');

/** Guard code may pass the job's input/output as they are: JSON values are checked as their JSON text. */
function textArg(fn: string, value: unknown): string {
  if (value === undefined) throw new ValidationError(`${fn} arguments`, [{ path: 'text', message: 'text is required' }]);
  return textOf(value);
}

function kindsArg(fn: string, value: unknown): readonly PiiKind[] {
  if (value === undefined || value === null) return PII_KINDS;
  if (!Array.isArray(value)) {
    throw new ValidationError(`${fn} arguments`, [{ path: 'kinds', message: `must be an array of ${KINDS_TEXT}` }]);
  }
  return value.map((k, i) => {
    const parsed = PiiKindSchema.safeParse(k);
    if (!parsed.success) {
      throw new ValidationError(`${fn} arguments`, [{ path: `kinds[${i}]`, message: `unknown PII kind ${JSON.stringify(k)}; use ${KINDS_TEXT}` }]);
    }
    return parsed.data;
  });
}

/** The rails' deterministic detectors, callable from guard code (same code as the policy's rails). */
export const railsPack: ToolboxFunction[] = [
  {
    name: 'detectPii',
    pack: 'rails',
    signature: `detectPii(text: string, kinds?: Array<${KINDS_TEXT}>): Array<{ kind: string, match: string, start: number, end: number }>`,
    description:
      'Finds personal data and secrets in text, in text order: emails, phone numbers, payment cards (Luhn-checked), IBANs (mod-97 checked), US SSNs, IP addresses, and API keys/tokens/private keys by known formats. `kinds` limits the search (default: all).',
    async: false,
    create: () => (text: unknown, kinds?: unknown) =>
      detectPii(textArg('detectPii', text), kindsArg('detectPii', kinds)).map((f) => ({ ...f })),
  },
  {
    name: 'redactPii',
    pack: 'rails',
    signature: `redactPii(text: string, kinds?: Array<${KINDS_TEXT}>): string`,
    description: 'The text with each PII finding (see detectPii) replaced by a placeholder such as [REDACTED:card].',
    async: false,
    create: () => (text: unknown, kinds?: unknown) => redactPii(textArg('redactPii', text), kindsArg('redactPii', kinds)),
  },
  {
    name: 'detectInjection',
    pack: 'rails',
    signature: 'detectInjection(text: string): { score: number, signals: string[] }',
    description:
      "Prompt-injection heuristics: 'ignore previous instructions' and role-override phrasing, chat-template delimiters, requests for the system prompt, hidden Unicode tag characters, zero-width and bidi characters, and such phrasing hidden in base64. score is 0..1; 0.5 or more is a likely injection.",
    async: false,
    create: () => (text: unknown) => {
      const result = detectInjection(textArg('detectInjection', text));
      return { score: result.score, signals: [...result.signals] };
    },
  },
  {
    name: 'detectInjectionWithLlm',
    pack: 'rails',
    signature: "detectInjectionWithLlm(text: string): Promise<{ score: number, signals: string[], llm: 'injection' | 'benign' | null }>",
    description:
      "detectInjection plus an LLM's reading of the text when an LLM is configured (answers cached per tenant). The LLM can only add: an 'injection' answer adds the signal 'llm' and lifts the score to 0.9; without an LLM it equals detectInjection (llm: null).",
    async: true,
    create: (deps) => (text: unknown) => detectInjectionWithLlm(textArg('detectInjectionWithLlm', text), deps),
  },
];
