import { section } from '../prompt-text';
import { codeBlock } from './guard-code-contract';

export interface PlanDemonstration {
  input: string;
  output: string;
  plan: string;
}

export interface CodeDemonstration extends PlanDemonstration {
  code: string;
}

/** Demonstrations share the prompt with the current case, so each gets a fraction of the budget. */
function demonstrationChars(maxChars: number): number {
  return Math.max(500, Math.floor(maxChars / 4));
}

/**
 * Worked cases for the prompt. Only the fields named are read, so a full Demonstration passed
 * to the planner never leaks its code into the planning prompt.
 */
export function formatDemonstrations(
  demonstrations: readonly PlanDemonstration[] | readonly CodeDemonstration[],
  maxChars: number,
  withCode: boolean,
): string {
  if (demonstrations.length === 0) return '## Demonstrations\n(none available)';
  const each = demonstrationChars(maxChars);
  const blocks = demonstrations.map((demo, i) => {
    const parts = [
      `## Demonstration ${i + 1}`,
      section('Agent input', demo.input, each),
      section('Agent output', demo.output, each),
      section('Plan', demo.plan, maxChars),
    ];
    if (withCode && 'code' in demo && typeof demo.code === 'string') {
      parts.push(`### Guard code\n${codeBlock(demo.code)}`);
    }
    return parts.join('\n');
  });
  return blocks.join('\n\n');
}
