import { describe, expect, it } from 'vitest';
import {
  baselinePrompt,
  classifyPrompt,
  codegenPrompt,
  compileCodegenPrompt,
  compileDebugPrompt,
  compilePlanningPrompt,
  debugPrompt,
  planningPrompt,
  PLAN_STEPS,
  truncateMiddle,
  type ChatMessage,
} from '../src/index';

const TOOLBOX = [
  '- checkAccess(needed: string[], allowed: string[]): { ok: boolean, missing: string[] }\n  Compares databases.',
  '- await classify(text: string, categories: string[]): string\n  LLM classification.',
].join('\n');

const demos = [
  {
    input: 'DEMO-INPUT-ALPHA: nurse asks for diagnosis',
    output: 'DEMO-OUTPUT-ALPHA: query diagnosis table',
    plan: 'DEMO-PLAN-ALPHA: compare databases',
    code: 'DEMO-CODE-ALPHA(); return { deny: true, reasons: [] };',
  },
  {
    input: 'DEMO-INPUT-BETA',
    output: 'DEMO-OUTPUT-BETA',
    plan: 'DEMO-PLAN-BETA',
    code: 'DEMO-CODE-BETA(); return { deny: false, reasons: [] };',
  },
];

const base = {
  specification: 'SPEC: EHRAgent answers questions over a hospital database.',
  requests: 'REQUESTS: physicians may access all databases; nurses may not access diagnosis.',
  input: 'CURRENT-INPUT: identity nurse; question about diagnosis',
  output: { steps: ['CURRENT-OUTPUT: LoadDB("diagnosis")'] },
};

const all = (messages: ChatMessage[]) => messages.map((m) => m.content).join('\n');

describe('planningPrompt', () => {
  const messages = planningPrompt({ ...base, demonstrations: demos });
  const text = all(messages);

  it('is a system instruction followed by the case', () => {
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0].content).toMatch(/planner of GuardAgent/);
  });

  it('asks for exactly four steps, listing each of them', () => {
    expect(PLAN_STEPS).toHaveLength(4);
    expect(messages[0].content).toContain('exactly four numbered steps');
    PLAN_STEPS.forEach((step, i) => {
      expect(messages[0].content).toContain(`${i + 1}. ${step}`);
    });
    expect(messages[0].content).toMatch(/Key points of the guard requests/);
    expect(messages[0].content).toMatch(/What applies to this input/);
    expect(messages[0].content).toMatch(/What the output log does/);
    expect(messages[0].content).toMatch(/What the guard code must compare/);
  });

  it("shows the demonstrations' inputs, outputs and plans but never their code", () => {
    for (const demo of demos) {
      expect(text).toContain(demo.input);
      expect(text).toContain(demo.output);
      expect(text).toContain(demo.plan);
    }
    expect(text).not.toContain('DEMO-CODE-ALPHA');
    expect(text).not.toContain('DEMO-CODE-BETA');
  });

  it('puts demonstrations before I_s, I_r, I_i, I_o in that order, JSON pretty-printed', () => {
    const order = ['DEMO-PLAN-BETA', 'SPEC:', 'REQUESTS:', 'CURRENT-INPUT', 'CURRENT-OUTPUT'].map((s) => messages[1].content.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(messages[1].content).toContain('"steps": [');
  });

  it('truncates long inputs to the budget, keeping head and tail, and says so', () => {
    const long = 'HEAD-MARK ' + 'x'.repeat(50_000) + ' TAIL-MARK';
    const content = all(planningPrompt({ ...base, input: long, demonstrations: [], maxChars: 1_000 }));
    expect(content).toContain('HEAD-MARK');
    expect(content).toContain('TAIL-MARK');
    expect(content).toMatch(/\[\.\.\. \d+ characters omitted \.\.\.\]/);
    expect(content).toMatch(/beginning and end are kept/);
    expect(content.length).toBeLessThan(10_000);
  });
});

describe('truncateMiddle', () => {
  it('leaves short text alone and cuts long text to head + tail', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
    const cut = truncateMiddle('a'.repeat(60) + 'b'.repeat(40) + 'c'.repeat(100), 100);
    expect(cut.startsWith('a'.repeat(60))).toBe(true);
    expect(cut.endsWith('c'.repeat(40))).toBe(true);
    expect(cut).toContain('[... 100 characters omitted ...]');
  });
});

describe('codegenPrompt', () => {
  const messages = codegenPrompt({ ...base, toolboxDescription: TOOLBOX, demonstrations: demos, plan: 'CURRENT-PLAN: compare' });
  const text = all(messages);

  it('lists every toolbox function and restricts the code to them', () => {
    expect(messages[0].content).toContain(TOOLBOX);
    expect(messages[0].content).toMatch(/ONLY the following functions/);
    expect(messages[0].content).toMatch(/Never redefine, reassign, wrap or shadow a toolbox function/);
  });

  it('explains the contract: async body with input/output/context returning deny/reasons/details', () => {
    const system = messages[0].content;
    expect(system).toMatch(/BODY of an async function/);
    for (const name of ['`input`', '`output`', '`context`']) expect(system).toContain(name);
    expect(system).toContain('return { deny: boolean, reasons: string[], details?: object }');
    expect(system).toContain('```javascript');
  });

  it('shows demonstrations with their code, then the plan', () => {
    expect(text).toContain('DEMO-CODE-ALPHA');
    expect(text).toContain('DEMO-PLAN-BETA');
    expect(messages[1].content.indexOf('CURRENT-PLAN')).toBeGreaterThan(messages[1].content.indexOf('CURRENT-OUTPUT'));
  });
});

describe('debugPrompt', () => {
  const messages = debugPrompt({
    toolboxDescription: TOOLBOX,
    plan: 'PLAN-TO-FIX',
    code: 'return checkAcess();',
    error: { kind: 'reference', message: 'checkAcess is not defined' },
    input: base.input,
    output: base.output,
  });
  const text = all(messages);

  it('gives the code, the error kind and message, and asks for the cause and a fixed block', () => {
    expect(text).toContain('return checkAcess();');
    expect(text).toContain('kind: reference');
    expect(text).toContain('checkAcess is not defined');
    expect(text).toMatch(/not in the toolbox/);
    expect(text).toContain('PLAN-TO-FIX');
    expect(messages[0].content).toContain('Cause:');
    expect(messages[0].content).toContain(TOOLBOX);
    expect(messages[0].content).toContain('```javascript');
  });
});

describe('compile prompts', () => {
  const examples = [
    { input: 'EX-DENY-1', output: 'o', label: 1 as const },
    { input: 'EX-DENY-2', output: 'o', label: 1 as const },
    { input: 'EX-DENY-3', output: 'o', label: 1 as const },
    { input: 'EX-ALLOW-1', output: 'o', label: 0 as const },
  ];

  it('planning asks for a generic program, shows labelled examples and demo plans but no demo code', () => {
    const messages = compilePlanningPrompt({ ...base, demonstrations: demos, examples });
    const text = all(messages);
    expect(messages[0].content).toMatch(/EVERY future action/);
    expect(messages[0].content).toMatch(/Never embed facts of one instance/);
    expect(messages[0].content).toContain('exactly four numbered steps');
    expect(text).toContain('## Example 1: expected decision DENY');
    expect(text).toContain('EX-ALLOW-1');
    expect(text).toContain('DEMO-PLAN-ALPHA');
    expect(text).not.toContain('DEMO-CODE-ALPHA');
  });

  it('balances deny and allow examples when it has to leave some out', () => {
    const text = all(compilePlanningPrompt({ ...base, demonstrations: [], examples, maxExamples: 2 }));
    expect(text).toContain('EX-DENY-1');
    expect(text).toContain('EX-ALLOW-1');
    expect(text).not.toContain('EX-DENY-2');
    expect(text).toContain('(2 more examples not shown)');
  });

  it('codegen lists the toolbox, the contract and the generic rule', () => {
    const messages = compileCodegenPrompt({ ...base, toolboxDescription: TOOLBOX, demonstrations: demos, examples, plan: 'GENERIC-PLAN' });
    expect(messages[0].content).toContain(TOOLBOX);
    expect(messages[0].content).toMatch(/derive everything from `input`, `output` and `context`/);
    expect(messages[0].content).toContain('return { deny: boolean, reasons: string[], details?: object }');
    expect(all(messages)).toContain('GENERIC-PLAN');
    expect(all(messages)).toContain('DEMO-CODE-BETA');
  });

  it('debug shows the failures with expected vs got, and forbids special-casing them', () => {
    const messages = compileDebugPrompt({
      ...base,
      toolboxDescription: TOOLBOX,
      code: 'return { deny: false, reasons: [] };',
      failures: [
        { input: 'FAIL-IN-1', output: 'FAIL-OUT-1', expected: 'deny', got: 'allow' },
        { input: 'FAIL-IN-2', output: 'x', expected: 'allow', got: 'error', error: 'TypeError: boom' },
      ],
    });
    const text = all(messages);
    expect(text).toContain('expected DENY, the program gave ALLOW');
    expect(text).toContain('expected ALLOW, the program gave ERROR');
    expect(text).toContain('TypeError: boom');
    expect(text).toContain('FAIL-IN-1');
    expect(messages[0].content).toMatch(/Do NOT special-case the failing examples/);
  });
});

describe('baselinePrompt', () => {
  it('asks for a DECISION line and REASONS without code or toolbox', () => {
    const messages = baselinePrompt(base);
    expect(messages[0].content).toContain('DECISION: ALLOW');
    expect(messages[0].content).toContain('DECISION: DENY');
    expect(messages[0].content).toContain('REASONS:');
    expect(all(messages)).toContain('REQUESTS:');
    expect(all(messages)).toContain('CURRENT-OUTPUT');
    expect(all(messages)).not.toMatch(/toolbox/i);
  });
});

describe('classifyPrompt', () => {
  it('lists the categories, the instruction and the text', () => {
    const messages = classifyPrompt('some text to judge', ['benign', 'injection'], 'Detect prompt injection.');
    expect(messages[0].content).toContain('Detect prompt injection.');
    expect(messages[1].content).toContain('- benign\n- injection');
    expect(messages[1].content).toContain('some text to judge');
  });
});
