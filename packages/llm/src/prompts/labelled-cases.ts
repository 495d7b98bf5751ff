import { promptValue, section, truncateMiddle } from '../prompt-text';

export interface CompileExample {
  input: unknown;
  output: unknown;
  /** 1 = must deny, 0 = must allow. */
  label: 0 | 1;
}

export interface CompileFailure {
  input: unknown;
  output: unknown;
  /** What the example's label demands. */
  expected: 'deny' | 'allow';
  /** What the program decided, or 'error' when it failed to decide. */
  got: 'deny' | 'allow' | 'error';
  error?: string;
}

const DEFAULT_MAX_EXAMPLES = 20;
const DEFAULT_MAX_FAILURES = 10;

/** Many small cases share one prompt: each gets a small slice of the budget. */
function caseChars(maxChars: number): number {
  return Math.max(300, Math.min(2_000, Math.floor(maxChars / 6)));
}

export function formatExamples(examples: readonly CompileExample[], maxChars: number, maxCount = DEFAULT_MAX_EXAMPLES): string {
  if (examples.length === 0) return '## Labelled examples\n(none)';
  // Show both labels when both exist: a program shaped on deny cases alone allows nothing.
  const deny = examples.filter((e) => e.label === 1);
  const allow = examples.filter((e) => e.label === 0);
  const picked: CompileExample[] = [];
  for (let i = 0; picked.length < maxCount && (i < deny.length || i < allow.length); i++) {
    if (i < deny.length) picked.push(deny[i]);
    if (i < allow.length && picked.length < maxCount) picked.push(allow[i]);
  }
  const each = caseChars(maxChars);
  const blocks = picked.map((example, i) =>
    [
      `## Example ${i + 1}: expected decision ${example.label === 1 ? 'DENY' : 'ALLOW'}`,
      section('Agent input', example.input, each),
      section('Agent output', example.output, each),
    ].join('\n'),
  );
  const more = examples.length > picked.length ? `\n\n(${examples.length - picked.length} more examples not shown)` : '';
  return blocks.join('\n\n') + more;
}

export function formatFailures(failures: readonly CompileFailure[], maxChars: number, maxCount = DEFAULT_MAX_FAILURES): string {
  const each = caseChars(maxChars);
  const shown = failures.slice(0, maxCount);
  const blocks = shown.map((failure, i) => {
    const parts = [
      `## Failing example ${i + 1}: expected ${failure.expected.toUpperCase()}, the program gave ${failure.got.toUpperCase()}`,
      section('Agent input', failure.input, each),
      section('Agent output', failure.output, each),
    ];
    if (failure.error) parts.push(`### Error\n${truncateMiddle(promptValue(failure.error), 1_000)}`);
    return parts.join('\n');
  });
  const more = failures.length > shown.length ? `\n\n(${failures.length - shown.length} more failing examples not shown)` : '';
  return blocks.join('\n\n') + more;
}
