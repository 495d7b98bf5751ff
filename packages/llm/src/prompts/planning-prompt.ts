import type { ChatMessage } from '../chat-types';
import { TRUNCATION_NOTE, limitOf, section, type PromptLimits } from '../prompt-text';
import { formatDemonstrations, type PlanDemonstration } from './demonstrations';

/** The four steps every plan has (GuardAgent, arXiv 2406.09187, task planning). */
export const PLAN_STEPS = [
  'Key points of the guard requests: list each rule the requests impose, precisely.',
  'What applies to this input: which of those rules apply to this agent input (for example the user, their role or identity, and what they ask for), and why.',
  'What the output log does: the actions the target agent takes or proposes, the data it touches, and what the guard requests say about each of them.',
  'What the guard code must compare: the exact facts to extract from the input and output, the values or toolbox checks to compare them against, and which outcome means deny.',
] as const;

function planStepsText(steps: readonly string[] = PLAN_STEPS): string {
  return steps.map((step, i) => `${i + 1}. ${step}`).join('\n');
}

export interface PlanningPromptArgs extends PromptLimits {
  /** I_s: what the target agent is and does. */
  specification: string;
  /** I_r: the guard requests. */
  requests: string;
  /** Retrieved demonstrations; only input, output and plan are shown (never code). */
  demonstrations: readonly PlanDemonstration[];
  /** I_i and I_o of the action to guard. */
  input: unknown;
  output: unknown;
}

/** Chat messages asking for a four-step guard plan for one action. */
export function planningPrompt(args: PlanningPromptArgs): ChatMessage[] {
  const maxChars = limitOf(args);
  const system = `You are the planner of GuardAgent, a guard that protects another LLM agent (the target agent).
For one action of the target agent you analyse the guard requests and write a plan; a separate step turns your plan
into guard code that calls trusted toolbox functions, and running that code decides whether the action is denied.

You get: the agent specification (I_s), the guard requests (I_r), demonstrations of plans written for earlier cases,
and the current case: the agent input (I_i) and the agent output log (I_o).

Write the plan in exactly four numbered steps:
${planStepsText()}

Be concrete: name the fields, values and identities involved. Write the plan only, no code.
${TRUNCATION_NOTE}`;

  const user = [
    formatDemonstrations(args.demonstrations, maxChars, false),
    '## The current case',
    section('Agent specification (I_s)', args.specification),
    section('Guard requests (I_r)', args.requests),
    section('Agent input (I_i)', args.input, maxChars),
    section('Agent output (I_o)', args.output, maxChars),
    'Write the four-step plan for the current case.',
  ].join('\n\n');

  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}
