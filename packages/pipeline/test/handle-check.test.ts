import { describe, expect, it } from 'vitest';
import type { StageOutcome } from '../src/stage-outcome';
import { handleCheck } from '../src/handlers/check';
import { checkState, failure, fakeDeps, policy, policyRef, registered, verdict } from './fakes';

const railsOn = { roles: { agent: { tools: ['lookup'] } } };
const toolCall = { kind: 'tool_call' as const, tool: 'lookup', args: {} };

function decided(outcome: StageOutcome) {
  if (outcome.kind !== 'decision') throw new Error(`expected a decision, got ${outcome.kind}`);
  return outcome;
}

describe('handleCheck: rails', () => {
  it.each(['deny', 'pending'] as const)('rails %s ends the check: no program lookup, no sandbox run, no LLM', async (railsVerdict) => {
    const reg = registered(policy({ rails: railsOn, mode: 'compiled' }));
    const f = fakeDeps([reg], { runMs: 0 });
    f.programs.promoteCode('acme', reg.programDigest, 'return { deny: false }');
    const approval = { token: 'tok', id: 'ap-1', expiresAt: new Date(0).toISOString() };
    const approvalRecord = { key: 'approval:ap-1', fields: { a: '1' }, ttlMs: 1000 };
    f.rails.script = () => {
      f.clock.advance(7);
      return { verdict: railsVerdict, reasons: ['rails said so'], rules: ['rails.allow-list'], ...(railsVerdict === 'pending' ? { approval, approvalRecord } : {}) };
    };
    const state = checkState(reg, { job: { input: 'x', output: '', context: {}, action: toolCall } });

    const { draft, state: after } = decided(await handleCheck(state, f.deps));

    expect(draft).toMatchObject({ verdict: railsVerdict, status: 'ok', layer: 'rails', mode: null, reasons: ['rails said so'], rules: ['rails.allow-list'] });
    if (railsVerdict === 'pending') expect(draft).toMatchObject({ approval, approvalRecord });
    else expect(draft.approval).toBeUndefined();
    expect(after.timings.rails).toBe(7);
    expect(f.programs.lookups).toEqual([]);
    expect(f.sandbox.requests).toEqual([]);
    expect(f.llm.calls).toEqual([]);
    // The call id names this submission (job id and submittedAt), so a re-run is recognised.
    expect(f.rails.calls).toEqual([{ tenant: 'acme', digest: reg.digest, callId: 'job-1@1000', options: { replayId: null, decisionId: 'job-1' } }]);
  });

  it('a rails-only policy allows what the rails let through, without a program or the LLM', async () => {
    const reg = registered(policy({ requests: undefined, rails: railsOn }));
    const f = fakeDeps([reg]);
    f.rails.script = () => ({ verdict: 'continue', reasons: ['lookup is allowed'], rules: ['rails.allow-list'] });
    const state = checkState(reg, { job: { input: 'x', output: '', context: {}, action: toolCall } });

    const { draft } = decided(await handleCheck(state, f.deps));

    expect(draft).toMatchObject({ verdict: 'allow', status: 'ok', layer: 'rails', reasons: ['lookup is allowed'] });
    expect(f.programs.lookups).toEqual([]);
    expect(f.sandbox.requests).toEqual([]);
    expect(f.compiles).toEqual([]);
  });

  it('a rails-only policy with allowPlainJobs: false denies a job that declares no action', async () => {
    const reg = registered(policy({ requests: undefined, rails: { ...railsOn, allowPlainJobs: false } }));
    const f = fakeDeps([reg]);
    f.rails.script = () => ({ verdict: 'continue', reasons: ['nothing to check'], rules: ['rails.input'], redacted: { input: '[EMAIL]' } });

    const { draft } = decided(await handleCheck(checkState(reg), f.deps));

    expect(draft.verdict).toBe('deny');
    expect(draft.layer).toBe('rails');
    expect(draft.rules).toEqual(['rails.input', 'rails.action-required']);
    expect(draft.reasons[0]).toBe('nothing to check');
    expect(draft.reasons[1]).toMatch(/allowPlainJobs: false/);
    expect(draft.redacted).toEqual({ input: '[EMAIL]' });
  });

  it('allowPlainJobs: true lets a plain job through a rails-only policy', async () => {
    const reg = registered(policy({ requests: undefined, rails: { ...railsOn, allowPlainJobs: true } }));
    const f = fakeDeps([reg]);
    const { draft } = decided(await handleCheck(checkState(reg), f.deps));
    expect(draft).toMatchObject({ verdict: 'allow', layer: 'rails' });
  });

  it('rails that let a call through a policy with requests hand it on, their rules carried with the state', async () => {
    const reg = registered(policy({ rails: railsOn, mode: 'compiled' }));
    const f = fakeDeps([reg]);
    f.programs.promoteCode('acme', reg.programDigest, 'program code');
    f.rails.script = () => ({ verdict: 'continue', reasons: ['ok so far'], rules: ['rails.allow-list'], redacted: { input: 'redacted' } });
    f.sandbox.script = () => verdict(true, ['over the limit']);
    // A plain job too: the allowPlainJobs rule is for rails-only policies.
    const { draft, state } = decided(await handleCheck(checkState(reg), f.deps));
    expect(draft).toMatchObject({ verdict: 'deny', layer: 'guardagent', mode: 'compiled' });
    expect(state.rails).toEqual({ rules: ['rails.allow-list'], reasons: ['ok so far'], redacted: { input: 'redacted' } });
  });
});

describe('handleCheck: a promoted program', () => {
  it.each([true, false])("the program's verdict (deny: %s) becomes a compiled decision", async (deny) => {
    const reg = registered(policy({ mode: 'auto' }));
    const f = fakeDeps([reg], { runMs: 25 });
    f.programs.promoteCode('acme', reg.programDigest, 'the program');
    f.sandbox.script = () => ({ ...verdict(deny, ['because']), verdict: { deny, reasons: ['because'], details: { amount: 50 } }, hostUsage: { calls: 1, promptTokens: 2, completionTokens: 3 } });

    const { draft, state } = decided(await handleCheck(checkState(reg), f.deps));

    expect(draft).toEqual({ verdict: deny ? 'deny' : 'allow', status: 'ok', layer: 'guardagent', mode: 'compiled', reasons: ['because'], details: { amount: 50 } });
    expect(state.attempts).toBe(1);
    expect(state.timings.execute).toBe(25);
    expect(state.usage).toEqual({ calls: 1, promptTokens: 2, completionTokens: 3 });
    expect(f.sandbox.requests).toHaveLength(1);
    expect(f.sandbox.requests[0]).toMatchObject({ code: 'the program', input: 'refund 50', tenant: 'acme', reuse: 'program', version: `program:${reg.programDigest}` });
    expect(f.sandbox.requests[0]!.limits).toEqual({ cpuMs: 100, wallMs: 200, memoryMb: 64 });
    // Decided without the LLM path, and no compile asked for.
    expect(f.compiles).toEqual([]);
    expect(f.llm.calls).toEqual([]);
  });

  it('the policy limits a run, capped by the executor', async () => {
    const reg = registered(policy({ mode: 'compiled', limits: { cpuMs: 50, wallMs: 5000 } }));
    const f = fakeDeps([reg]);
    f.programs.promoteCode('acme', reg.programDigest, 'code');
    await handleCheck(checkState(reg), f.deps);
    expect(f.sandbox.requests[0]!.limits).toEqual({ cpuMs: 50, wallMs: 1000, memoryMb: 64 });
  });

  it.each([
    // kind, policy failMode, expected verdict, expected code
    ['thrown', 'closed', 'deny', 'GUARD_CODE_FAILED'],
    ['thrown', 'open', 'allow', 'GUARD_CODE_FAILED'],
    ['crashed', 'open', 'allow', 'SANDBOX_CRASHED'],
    ['hung', 'closed', 'deny', 'SANDBOX_HUNG'],
    // A quarantined guard never fails open: its crashes would turn into allows.
    ['quarantined', 'open', 'deny', 'SANDBOX_QUARANTINED'],
  ] as const)('a sandbox failure (%s, failMode %s) is a guard_error that %ss', async (kind, failMode, expected, code) => {
    const reg = registered(policy({ mode: 'compiled', failMode }));
    const f = fakeDeps([reg]);
    f.programs.promoteCode('acme', reg.programDigest, 'code');
    f.sandbox.script = () => failure(kind, 'it broke');

    const { draft, state } = decided(await handleCheck(checkState(reg), f.deps));

    expect(draft).toMatchObject({ verdict: expected, status: 'guard_error', layer: 'none', mode: 'compiled', error: { code } });
    expect(draft.error!.message).toMatch(/it broke/);
    expect(draft.reasons[1]).toBe(expected === 'allow' ? 'failMode open: allowed' : 'fail-closed: denied');
    expect(state.attempts).toBe(1);
    expect(f.llm.calls).toEqual([]);
  });
});

describe('handleCheck: no program', () => {
  it.each([
    ['closed', 'deny'],
    ['open', 'allow'],
  ] as const)("mode 'compiled' without a program is a NO_COMPILED_PROGRAM guard_error (failMode %s: %s)", async (failMode, expected) => {
    const reg = registered(policy({ mode: 'compiled', failMode }));
    const f = fakeDeps([reg]);

    const { draft } = decided(await handleCheck(checkState(reg), f.deps));

    expect(draft).toMatchObject({ verdict: expected, status: 'guard_error', layer: 'none', mode: null, error: { code: 'NO_COMPILED_PROGRAM' } });
    expect(f.programs.lookups).toEqual([reg.programDigest]);
    expect(f.sandbox.requests).toEqual([]);
    expect(f.compiles).toEqual([]);
    expect(f.llm.calls).toEqual([]);
  });

  it.each(['auto', 'per-request'] as const)('no LLM configured (mode %s) is an LLM_NOT_CONFIGURED guard_error, and no compile is asked for', async (mode) => {
    const reg = registered(policy({ mode }));
    const f = fakeDeps([reg], { llm: false });

    const { draft } = decided(await handleCheck(checkState(reg), f.deps));

    expect(draft).toMatchObject({ verdict: 'deny', status: 'guard_error', error: { code: 'LLM_NOT_CONFIGURED' } });
    expect(draft.error!.message).toMatch(/refunds/);
    expect(f.compiles).toEqual([]);
  });

  it('auto mode with an LLM goes on to memory/retrieve and asks for a background compile', async () => {
    const reg = registered(policy({ mode: 'auto' }));
    const f = fakeDeps([reg]);
    const state = checkState(reg);

    const outcome = await handleCheck(state, f.deps);

    expect(outcome).toMatchObject({ kind: 'next', stage: 'memory', jobKind: 'retrieve' });
    if (outcome.kind !== 'next') throw new Error('unreachable');
    expect(outcome.state.step).toBe(state.step + 1);
    expect(f.compiles).toEqual([{ tenant: 'acme', digest: reg.digest }]);
    // The check stage itself calls no LLM: the next stages do.
    expect(f.llm.calls).toEqual([]);
    expect(f.sandbox.requests).toEqual([]);
  });

  it('per-request mode goes to memory without looking for a program or asking for a compile', async () => {
    const reg = registered(policy({ mode: 'per-request' }));
    const f = fakeDeps([reg]);
    f.programs.promoteCode('acme', reg.programDigest, 'code');

    const outcome = await handleCheck(checkState(reg), f.deps);

    expect(outcome).toMatchObject({ kind: 'next', stage: 'memory', jobKind: 'retrieve' });
    expect(f.programs.lookups).toEqual([]);
    expect(f.sandbox.requests).toEqual([]);
    expect(f.compiles).toEqual([]);
  });
});

describe('handleCheck: a shadow version', () => {
  const enforcing = registered(policy({ mode: 'auto', rails: railsOn }), 'digest-enforce', 'program-enforce');
  const shadowReg = registered(policy({ mode: 'auto', version: '2', rails: railsOn }), 'digest-shadow', 'program-shadow');

  function setup() {
    const f = fakeDeps([enforcing, shadowReg]);
    f.rails.script = (reg) => ({ verdict: 'continue', reasons: [], rules: [`rails.${reg.digest}`] });
    f.sandbox.script = (request) => verdict(request.code === 'shadow code', [`${request.code} decided`]);
    const state = checkState(enforcing, { shadow: policyRef(shadowReg), job: { input: 'x', output: '', context: {}, action: toolCall } });
    return { f, state };
  }

  it('decides beside the enforcing version, with its own rails and program under the same call id', async () => {
    const { f, state } = setup();
    f.programs.promoteCode('acme', enforcing.programDigest, 'enforcing code');
    f.programs.promoteCode('acme', shadowReg.programDigest, 'shadow code');

    const { draft, state: after } = decided(await handleCheck(state, f.deps));

    // The caller gets the enforcing version's decision...
    expect(draft).toMatchObject({ verdict: 'allow', mode: 'compiled', reasons: ['enforcing code decided'] });
    expect(after.rails?.rules).toEqual(['rails.digest-enforce']);
    // ...and the shadow's travels with it.
    expect(after.shadowResult).toEqual({
      policy: policyRef(shadowReg),
      decision: 'deny',
      status: 'ok',
      reasons: ['shadow code decided'],
      rules: ['rails.digest-shadow'],
      agrees: null,
    });
    expect(f.rails.calls.map((c) => [c.digest, c.callId])).toEqual([
      ['digest-enforce', 'job-1@1000'],
      ['digest-shadow', 'job-1@1000'],
    ]);
    expect(f.llm.calls).toEqual([]);
  });

  it('never runs the LLM: a shadow without a program is undecided (auto mode asks for its compile) while the check goes on', async () => {
    const { f, state } = setup();
    f.programs.promoteCode('acme', enforcing.programDigest, 'enforcing code');

    const { state: after } = decided(await handleCheck(state, f.deps));

    expect(after.shadowResult).toMatchObject({ decision: null, status: 'undecided', agrees: null });
    expect(after.shadowResult!.reasons[0]).toMatch(/never runs the LLM/);
    expect(f.compiles).toEqual([{ tenant: 'acme', digest: shadowReg.digest }]);
    expect(f.sandbox.requests.map((r) => r.code)).toEqual(['enforcing code']);
    expect(f.llm.calls).toEqual([]);
  });

  it('decides beside a check that goes on to the LLM path', async () => {
    const { f, state } = setup();
    f.programs.promoteCode('acme', shadowReg.programDigest, 'shadow code');

    const outcome = await handleCheck(state, f.deps);

    expect(outcome.kind).toBe('next');
    if (outcome.kind !== 'next') throw new Error('unreachable');
    expect(outcome.state.shadowResult).toMatchObject({ decision: 'deny', status: 'ok' });
  });

  it('a shadow that cannot be read is undecided, and the enforcing decision stands', async () => {
    const { f, state } = setup();
    f.policies.byDigest.delete(shadowReg.digest);
    f.programs.promoteCode('acme', enforcing.programDigest, 'enforcing code');

    const { draft, state: after } = decided(await handleCheck(state, f.deps));

    expect(draft.verdict).toBe('allow');
    expect(after.shadowResult).toMatchObject({ decision: null, status: 'undecided' });
    expect(after.shadowResult!.reasons[0]).toMatch(/could not decide: no policy with digest digest-shadow/);
  });

  it('is not decided again when the state already carries its result', async () => {
    const { f, state } = setup();
    f.programs.promoteCode('acme', enforcing.programDigest, 'enforcing code');
    f.programs.promoteCode('acme', shadowReg.programDigest, 'shadow code');
    const earlier = { policy: policyRef(shadowReg), decision: 'allow' as const, status: 'ok' as const, reasons: ['earlier'], rules: [], agrees: null };

    const { state: after } = decided(await handleCheck({ ...state, shadowResult: earlier }, f.deps));

    expect(after.shadowResult).toEqual(earlier);
    expect(f.sandbox.requests.map((r) => r.code)).toEqual(['enforcing code']);
  });
});
