import { describe, expect, it } from 'vitest';
import { LlmNotConfiguredError, LlmReplyError } from '@guardagent/errors';
import type { QueueSet } from '@guardagent/queue';
import { addTiming, callLlm } from '../src/call-llm';
import { handleArchive, handleFeedback } from '../src/handlers/memory-side-jobs';
import { handleCodegen, handleDebug, handlePlan, handleRetrieve, handleRun, handleVerify } from '../src/handlers/index';
import { requestBackgroundCompile } from '../src/request-compile';
import { verifyProgram } from '../src/verify-program';
import { FakeMemory, FakeQueues, checkState, failure, fakeDeps, policy, registered, verdict } from './fakes';

const examples = [
  { id: 'ex-deny', input: 'refund 500', label: 1 as const, reasons: ['over 100'] },
  { id: 'ex-allow', input: 'refund 5', label: 0 as const },
];
const reg = registered(policy({ examples }));

/** Fakes with a memory, and a sandbox that denies inputs over 100 (saying why) when its code is 'good'. */
function setup(options: { llm?: boolean } = {}, regs = [reg]) {
  const memory = new FakeMemory();
  const f = fakeDeps(regs, { ...options, memory: memory.asStore(), runMs: 3 });
  f.sandbox.script = (request) => {
    if (request.code === 'broken') return failure('thrown', 'x is not defined');
    const amount = Number(String(request.input).split(' ')[1]);
    return request.code === 'good' && amount > 100 ? verdict(true, ['over 100']) : verdict(false);
  };
  return { ...f, memory };
}

describe('handleRun (per-request guard code)', () => {
  it('decides with the code’s verdict, in a fresh context', async () => {
    const f = setup();
    const outcome = await handleRun(checkState(reg, { code: 'good', job: { input: 'refund 500', output: '', context: {} }, lastError: { kind: 'thrown', message: 'old' } }), f.deps);
    expect(outcome).toMatchObject({ kind: 'decision', draft: { verdict: 'deny', layer: 'guardagent', mode: 'per-request', reasons: ['over 100'] }, state: { attempts: 1, lastError: null, timings: { execute: 3 } } });
    expect(f.sandbox.requests[0]).toMatchObject({ reuse: 'fresh', version: `policy:${reg.digest}` });
  });

  it('sends failing code to the debugger while rounds remain, then fails closed', async () => {
    const f = setup();
    const failing = checkState(reg, { code: 'broken', debugRounds: 1 });
    expect(await handleRun(failing, f.deps)).toMatchObject({ kind: 'next', stage: 'debugger', jobKind: 'debug', state: { lastError: { kind: 'thrown', message: 'x is not defined' } } });
    const exhausted = await handleRun({ ...failing, debugRounds: 2 }, f.deps);
    expect(exhausted).toMatchObject({ kind: 'decision', draft: { verdict: 'deny', status: 'guard_error', mode: 'per-request', error: { code: 'GUARD_CODE_FAILED' } } });
    if (exhausted.kind !== 'decision') throw new Error('unreachable');
    expect(exhausted.draft.error!.message).toMatch(/after 2 debugging round/);
  });

  it("the policy's maxDebugRounds wins over the executor's", async () => {
    const strict = registered(policy({ limits: { maxDebugRounds: 0 } }), 'digest-strict');
    const f = setup({}, [strict]);
    expect(await handleRun(checkState(strict, { code: 'broken' }), f.deps)).toMatchObject({ kind: 'decision', draft: { status: 'guard_error' } });
  });

  it.each(['crashed', 'hung', 'quarantined'] as const)('a poison run (%s) ends the job at once, without debugging', async (kind) => {
    const f = setup();
    f.sandbox.script = () => failure(kind);
    expect(await handleRun(checkState(reg, { code: 'good' }), f.deps)).toMatchObject({ kind: 'decision', draft: { status: 'guard_error', verdict: 'deny' } });
  });

  it('a state without code is a PIPELINE_STATE_INVALID guard_error', async () => {
    const f = setup();
    expect(await handleRun(checkState(reg), f.deps)).toMatchObject({ kind: 'decision', draft: { status: 'guard_error', error: { code: 'PIPELINE_STATE_INVALID' } } });
    expect(f.sandbox.requests).toEqual([]);
  });
});

describe('verifyProgram', () => {
  it('passes a program that gets every label and expected reason', async () => {
    const f = setup();
    const { report, failures } = await verifyProgram(f.deps, reg.policy, 'good', reg.policy.examples, 'acme');
    expect(failures).toEqual([]);
    expect(report).toMatchObject({ passed: true, total: 2, passedCount: 2, failing: [] });
  });

  it('fails wrong labels, missing reasons and errors, naming each example', async () => {
    const f = setup();
    const wrong = await verifyProgram(f.deps, reg.policy, 'allow-all', reg.policy.examples, 'acme');
    expect(wrong.report).toMatchObject({ passed: false, passedCount: 1, failing: [{ exampleId: 'ex-deny', expected: 1, got: 0 }] });
    const broken = await verifyProgram(f.deps, reg.policy, 'broken', [{ input: 'a', output: '', label: 0 }], 'acme');
    expect(broken.report.failing).toEqual([{ exampleId: 'example-1', expected: 0, got: null, error: 'thrown: x is not defined' }]);
    f.sandbox.script = () => verdict(true, ['no reason given']);
    const reasonless = await verifyProgram(f.deps, reg.policy, 'deny-all', [reg.policy.examples[0]!], 'acme');
    expect(reasonless.report.failing).toEqual([{ exampleId: 'ex-deny', expected: 1, got: 1, missingReasons: ['over 100'] }]);
  });

  it('never passes with no examples (nothing was verified)', async () => {
    const f = setup();
    const { report } = await verifyProgram(f.deps, reg.policy, 'good', [], 'acme');
    expect(report).toMatchObject({ passed: false, total: 0, passedCount: 0 });
    expect(report.failing[0]!.exampleId).toBe('(none)');
  });
});

describe('handleVerify (compile)', () => {
  const compileState = (code: string | null, overrides = {}) => checkState(reg, { jobId: 'compile-1', purpose: 'compile', code, ...overrides });

  it('promotes a program that passes the examples and the confirmed feedback', async () => {
    const f = setup();
    f.memory.feedback = [{ input: 'refund 101', output: '', label: 1 }];
    const outcome = await handleVerify(compileState('good', { plan: 'the plan' }), f.deps);
    expect(outcome).toMatchObject({ kind: 'compile-result', draft: { status: 'promoted', report: { passed: true, total: 3 } }, state: { attempts: 1 } });
    expect(f.programs.promoted.get(`acme\u0000${reg.programDigest}`)).toMatchObject({ code: 'good', plan: 'the plan', source: 'compiled', programDigest: reg.programDigest });
  });

  it('sends a failing candidate to the debugger while rounds remain', async () => {
    const f = setup();
    const outcome = await handleVerify(compileState('allow-all'), f.deps);
    expect(outcome).toMatchObject({ kind: 'next', stage: 'debugger', jobKind: 'debug', state: { failures: [{ exampleId: 'ex-deny' }] } });
    expect(f.programs.demoted).toEqual([]);
  });

  it('keeps a promoted program that still passes when a new candidate fails', async () => {
    const f = setup({ llm: false });
    f.programs.promoteCode('acme', reg.programDigest, 'good');
    const outcome = await handleVerify(compileState('allow-all'), f.deps);
    expect(outcome).toMatchObject({ kind: 'compile-result', draft: { status: 'failed', keptPrevious: true } });
    expect(f.programs.demoted).toEqual([]);
  });

  it('demotes a promoted program that fails the (grown) examples, and saves the report', async () => {
    const f = setup({ llm: false });
    f.programs.promoteCode('acme', reg.programDigest, 'allow-all');
    const outcome = await handleVerify(compileState('allow-all'), f.deps);
    expect(outcome).toMatchObject({ kind: 'compile-result', draft: { status: 'failed', report: { passed: false } } });
    expect(f.programs.demoted).toEqual([reg.programDigest]);
    expect(f.programs.reports.map((r) => r.report.passed)).toEqual([false]);
  });

  it('never rewrites a supplied program: a failing one is not debugged', async () => {
    const supplied = registered(policy({ examples, program: 'allow-all' }), 'digest-supplied', 'program-supplied');
    const f = setup({}, [supplied]);
    const outcome = await handleVerify(checkState(supplied, { purpose: 'compile' }), f.deps);
    expect(outcome).toMatchObject({ kind: 'compile-result', draft: { status: 'failed' } });
    expect(f.programs.demoted).toEqual(['program-supplied']);
  });

  it('without a program to verify, ends as an error result', async () => {
    const f = setup();
    expect(await handleVerify(compileState(null), f.deps)).toMatchObject({ kind: 'compile-result', draft: { status: 'error', error: { code: 'PIPELINE_STATE_INVALID' } } });
  });
});

describe('the LLM stages', () => {
  it('callLlm adds the reply’s usage to the job’s, and refuses without an LLM', async () => {
    const f = setup();
    const state = checkState(reg, { usage: { calls: 1, promptTokens: 10, completionTokens: 20 } });
    const reply = await callLlm(f.deps, state, 'plan', [{ role: 'user', content: 'hi' }]);
    expect(reply).toEqual({ text: 'ok', state: { ...state, usage: { calls: 2, promptTokens: 13, completionTokens: 24 } } });
    await expect(callLlm(setup({ llm: false }).deps, state, 'plan', [])).rejects.toBeInstanceOf(LlmNotConfiguredError);
  });

  it('addTiming adds to what a stage already measured', () => {
    const state = addTiming(addTiming(checkState(reg), 'debug', 10, 15), 'debug', 20, 22);
    expect(state.timings).toEqual({ debug: 7 });
  });

  it('plan → codegen → run for a check; codegen → verify for a compile', async () => {
    const f = setup();
    f.llm.reply = { text: 'step 1: look at the amount', model: 'm', usage: { promptTokens: 1, completionTokens: 1 } };
    const planned = await handlePlan(checkState(reg), f.deps);
    expect(planned).toMatchObject({ kind: 'next', stage: 'codegen', jobKind: 'codegen', state: { plan: 'step 1: look at the amount', usage: { calls: 1 } } });
    if (planned.kind !== 'next') throw new Error('unreachable');
    f.llm.reply = { text: 'Here:\n```javascript\nreturn { deny: false };\n```', model: 'm', usage: { promptTokens: 1, completionTokens: 1 } };
    expect(await handleCodegen(planned.state, f.deps)).toMatchObject({ kind: 'next', stage: 'executor', jobKind: 'run', state: { code: 'return { deny: false };', usage: { calls: 2 } } });
    expect(await handleCodegen({ ...planned.state, purpose: 'compile' }, f.deps)).toMatchObject({ jobKind: 'verify' });
    expect(JSON.stringify(f.llm.calls[0])).toContain('refund 50');
  });

  it('debug counts a round and returns to the executor', async () => {
    const f = setup();
    f.llm.reply = { text: '```js\nreturn { deny: true };\n```', model: 'm', usage: { promptTokens: 1, completionTokens: 1 } };
    const state = checkState(reg, { plan: 'p', code: 'broken', debugRounds: 1, lastError: { kind: 'thrown', message: 'x is not defined' } });
    expect(await handleDebug(state, f.deps)).toMatchObject({ kind: 'next', stage: 'executor', jobKind: 'run', state: { code: 'return { deny: true };', debugRounds: 2 } });
    expect(JSON.stringify(f.llm.calls[0])).toContain('x is not defined');
  });

  it('an unusable reply throws (the stage worker ends the job)', async () => {
    const f = setup();
    f.llm.reply = { text: '   ', model: 'm', usage: { promptTokens: 1, completionTokens: 1 } };
    await expect(handlePlan(checkState(reg), f.deps)).rejects.toBeInstanceOf(LlmReplyError);
  });

  it('retrieve seeds a policy’s demonstrations once per store, and hands the k nearest to the planner', async () => {
    const demos = [{ input: 'refund 300', output: '', plan: 'p', code: 'c' }];
    const withDemos = registered(policy({ demonstrations: demos, k: 1 }), 'digest-demos');
    const f = setup({}, [withDemos]);
    f.memory.nearest = [
      { id: 'd1', input: 'refund 300', output: '', plan: 'p', code: 'c', distance: 1 } as never,
      { id: 'd2', input: 'other', output: '', plan: 'p2', code: 'c2', distance: 5 } as never,
    ];
    const first = await handleRetrieve(checkState(withDemos), f.deps);
    await handleRetrieve(checkState(withDemos), f.deps);
    expect(first).toMatchObject({ kind: 'next', stage: 'planner', jobKind: 'plan', state: { demonstrations: [{ id: 'd1', input: 'refund 300', output: '', plan: 'p', code: 'c' }] } });
    expect(f.memory.seeded).toEqual([{ tenant: 'acme', policyId: 'refunds', demos }]);
    expect(f.memory.retrievals).toHaveLength(2);
    expect(f.memory.retrievals[0]).toMatchObject({ query: { input: 'refund 50', output: '' }, k: 1 });
  });
});

describe('memory side jobs', () => {
  it('archive keeps the candidate; a malformed archive job throws', async () => {
    const f = setup();
    const candidate = { jobId: 'j', input: 'i', output: 'o', decision: 'deny' as const, status: 'ok' as const, reasons: [] };
    await handleArchive({ tenant: 'acme', policyId: 'refunds', candidate }, f.deps);
    expect(f.memory.archived).toEqual([{ tenant: 'acme', policyId: 'refunds', candidate }]);
    await expect(handleArchive({ tenant: 'acme' }, f.deps)).rejects.toThrow();
  });

  it('feedback archives the case the memory has none of, then confirms the label', async () => {
    const f = setup();
    const job = { tenant: 'acme', policyId: 'refunds', jobId: 'j', correctLabel: 1, note: 'n', case: { input: 'i', output: 'o', decision: 'allow', status: 'ok', reasons: ['r'] } };
    expect(await handleFeedback(job, f.deps)).toEqual({ promoted: true });
    expect(f.memory.archived).toHaveLength(1);
    expect(f.memory.archived[0]!.candidate).toMatchObject({ jobId: 'j', input: 'i', decision: 'allow', reasons: ['r'] });
    expect(f.memory.confirmed).toEqual([{ tenant: 'acme', policyId: 'refunds', jobId: 'j', confirmation: { correctLabel: 1, note: 'n' } }]);
    f.memory.candidates.add('j');
    await handleFeedback(job, f.deps);
    expect(f.memory.archived).toHaveLength(1);
  });
});

describe('requestBackgroundCompile', () => {
  function compileDeps(regs = [reg]) {
    const f = setup({}, regs);
    const queues = new FakeQueues();
    const deps = { queues: queues as unknown as QueueSet, policies: f.deps.policies, programs: f.deps.programs, memory: f.deps.memory, now: f.deps.now };
    return { ...f, queues, deps };
  }

  it('queues a background compile (retrieve first), holding the lock', async () => {
    const { deps, queues } = compileDeps();
    const jobId = await requestBackgroundCompile(deps, 'acme', reg.digest);
    expect(jobId).toMatch(/^compile-program-1-[0-9a-f]{8}$/);
    expect(queues.added).toHaveLength(1);
    expect(queues.added[0]).toMatchObject({ stage: 'memory', kind: 'retrieve', jobId, data: { state: { jobId, purpose: 'compile', backgroundCompile: true, tenant: 'acme', policy: { digest: reg.digest } } } });
  });

  it('a supplied program goes straight to verification', async () => {
    const supplied = registered(policy({ examples, program: 'good' }), 'digest-supplied');
    const { deps, queues } = compileDeps([supplied]);
    await requestBackgroundCompile(deps, 'acme', supplied.digest);
    expect(queues.added[0]).toMatchObject({ stage: 'executor', kind: 'verify' });
  });

  it('is skipped with a promoted program, with nothing to verify against, or when a compile holds the lock', async () => {
    const bare = registered(policy(), 'digest-bare', 'program-bare');
    const { deps, queues, programs, memory } = compileDeps([reg, bare]);
    expect(await requestBackgroundCompile(deps, 'acme', bare.digest)).toBeNull();
    memory.feedback = [{ input: 'x', output: '', label: 0 }];
    expect(await requestBackgroundCompile(deps, 'acme', bare.digest)).not.toBeNull();
    programs.lockFree = false;
    expect(await requestBackgroundCompile(deps, 'acme', reg.digest)).toBeNull();
    programs.lockFree = true;
    programs.promoteCode('acme', reg.programDigest, 'good');
    expect(await requestBackgroundCompile(deps, 'acme', reg.digest)).toBeNull();
    expect(queues.added).toHaveLength(1);
  });
});
