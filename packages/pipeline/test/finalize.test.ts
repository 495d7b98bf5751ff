import { describe, expect, it } from 'vitest';
import type { PipelineState } from '@guardagent/queue';
import { buildDecision } from '../src/build-decision';
import { finalizeCompile, finalizeDecision, finalizeDecisions } from '../src/finalize';
import { LockLostError } from '../src/lock-lost-error';
import type { DecisionDraft } from '../src/stage-outcome';
import { checkState, fakeFinalize, policy, policyRef, registered } from './fakes';

const reg = registered(policy());
const perRequest: DecisionDraft = { verdict: 'deny', status: 'ok', layer: 'guardagent', mode: 'per-request', reasons: ['too much'] };
const compiled: DecisionDraft = { ...perRequest, mode: 'compiled' };
const llmState = (jobId: string, overrides: Partial<PipelineState> = {}) =>
  checkState(reg, { jobId, plan: 'check the amount', code: 'return { deny: true }', job: { input: { amount: 500 }, output: 'ok', context: {} }, ...overrides });

describe('finalizeDecisions', () => {
  it('stores every decision in one call, with where each answer goes', async () => {
    const { finalize, results } = fakeFinalize();
    const record = { key: 'approval:1', fields: { x: '1' }, ttlMs: 5 };
    const fence = { jobId: 'chunk-1', lockKey: 'lock', token: 'tok' };

    await finalizeDecisions(
      finalize,
      [
        { state: checkState(reg, { jobId: 'a', replyTo: 'chan-a', batchId: 'batch-1' }), draft: { ...compiled, verdict: 'pending', approvalRecord: record } },
        { state: checkState(reg, { jobId: 'b', tenant: 'globex', replyTo: null }), draft: compiled },
      ],
      fence,
    );

    expect(results.saveCalls).toHaveLength(1);
    expect(results.saveCalls[0]!.fence).toBe(fence);
    const [a, b] = results.saveCalls[0]!.entries;
    expect(a).toMatchObject({ tenant: 'acme', replyTo: 'chan-a', batchId: 'batch-1', record, logEntry: null });
    expect(a!.decision).toMatchObject({ id: 'a', decision: 'pending' });
    // The approval record is written by the store, not carried in the decision.
    expect(a!.decision).not.toHaveProperty('approvalRecord');
    expect(b).toMatchObject({ tenant: 'globex', replyTo: null, batchId: null, record: null, logEntry: null });
  });

  it('archives per-request decisions (with plan and code) to memory under a fixed job id; not compiled ones', async () => {
    const { finalize, queues } = fakeFinalize();

    await finalizeDecisions(finalize, [
      { state: llmState('a'), draft: perRequest },
      { state: llmState('b'), draft: compiled },
      { state: llmState('c', { code: null }), draft: { ...perRequest, status: 'guard_error' } },
    ]);

    expect(queues.added).toEqual([
      {
        stage: 'memory',
        kind: 'archive',
        jobId: 'a__archive',
        data: {
          tenant: 'acme',
          policyId: 'refunds',
          candidate: { jobId: 'a', input: '{"amount":500}', output: 'ok', plan: 'check the amount', code: 'return { deny: true }', decision: 'deny', status: 'ok', reasons: ['too much'] },
        },
      },
    ]);
  });

  it('archives even when an earlier attempt stored the decision (first wins)', async () => {
    const { finalize, queues, results } = fakeFinalize();
    await finalizeDecision(finalize, llmState('a'), perRequest);
    await finalizeDecision(finalize, llmState('a'), { ...perRequest, verdict: 'allow' });
    expect(results.get('acme', 'a')!.decision.decision).toBe('deny');
    expect(queues.added.map((a) => a.jobId)).toEqual(['a__archive', 'a__archive']);
  });

  it('a lost lock throws LockLostError naming the fenced job, and archives nothing', async () => {
    const { finalize, queues, results } = fakeFinalize();
    results.lockLost = true;

    const saving = finalizeDecisions(finalize, [{ state: llmState('a'), draft: perRequest }], { jobId: 'stage-job-7', lockKey: 'l', token: 't' });

    await expect(saving).rejects.toBeInstanceOf(LockLostError);
    await expect(saving).rejects.toMatchObject({ code: 'LOCK_LOST', message: expect.stringContaining('stage-job-7') });
    expect(queues.added).toEqual([]);
  });

  it('records a decision log entry only when asked, without the approval token, and never for a replay', async () => {
    const entryOf = async (mode: 'policies' | 'all' | 'off' | undefined, overrides: Partial<PipelineState>) => {
      const { finalize, results } = fakeFinalize({ decisionLog: mode });
      const state = checkState(reg, { job: { input: 'mail bob@example.com', output: '', context: { approvalToken: 'secret-token', user: 'u-1' } }, ...overrides });
      await finalizeDecision(finalize, state, compiled);
      return results.saveCalls[0]!.entries[0]!.logEntry;
    };

    expect(await entryOf(undefined, { logDecision: false })).toBeNull();
    expect(await entryOf('off', { logDecision: true })).toBeNull();
    expect(await entryOf('all', { logDecision: true, replayId: 'replay-1' })).toBeNull();
    const entry = await entryOf('policies', { logDecision: true });
    expect(entry).toEqual(await entryOf('all', { logDecision: false }));
    const parsed = JSON.parse(entry!);
    expect(parsed).toMatchObject({ id: 'job-1', decision: 'deny', status: 'ok', layer: 'guardagent', mode: 'compiled', job: { context: { user: 'u-1' } } });
    expect(entry).not.toContain('secret-token');
    expect(entry).not.toContain('bob@example.com');
  });
});

describe('finalizeCompile', () => {
  const compileState = (backgroundCompile: boolean) => ({ ...checkState(reg, { jobId: 'compile-1', purpose: 'compile', timings: { plan: 5 } }), backgroundCompile });

  const backOff = [{ programDigest: 'program-1', seconds: 3600 }];
  it.each([
    ['promoted', true, ['program-1'], []],
    ['failed', true, [], backOff],
    ['error', true, [], backOff],
    ['promoted', false, [], []],
    ['failed', false, [], []],
  ] as const)('a %s compile (background: %s) stores its result; only a background one releases or backs off its lock', async (status, background, unlocked, backedOff) => {
    const { finalize, results, programs, clock } = fakeFinalize();
    clock.advance(40);

    await finalizeCompile(finalize, compileState(background), { status, report: null });

    expect(results.compileResults).toHaveLength(1);
    expect(results.compileResults[0]).toMatchObject({ tenant: 'acme', id: 'compile-1', replyTo: 'reply:chan', result: { id: 'compile-1', status, timings: { plan: 5, total: 2_040 - 1_000 } } });
    expect(programs.unlocked).toEqual(unlocked);
    expect(programs.backedOff).toEqual(backedOff);
  });
});

describe('buildDecision', () => {
  it('adds the queue time (total minus what stages measured) and the total, rounded to microseconds', () => {
    const state = checkState(reg, { submittedAt: 1_000, timings: { rails: 2.0004, execute: 10.1236 } });
    const decision = buildDecision(state, compiled, '7', 1_050);
    expect(decision.timings).toEqual({ rails: 2, execute: 10.124, queue: 37.876, total: 50 });
    expect(decision.createdAt).toBe(new Date(1_050).toISOString());
    expect(decision.policy).toEqual({ id: 'refunds', version: '7', digest: 'digest-1', programDigest: 'program-1' });
  });

  it('never reports negative times (a clock behind the submitter, stages longer than the total)', () => {
    expect(buildDecision(checkState(reg, { submittedAt: 2_000 }), compiled, '1', 1_000).timings).toEqual({ queue: 0, total: 0 });
    expect(buildDecision(checkState(reg, { submittedAt: 1_000, timings: { execute: 80 } }), compiled, '1', 1_050).timings).toEqual({ execute: 80, queue: 0, total: 50 });
  });

  it('names the program digest only for compiled decisions; merges rails rules without repeats; takes the rails redaction', () => {
    const state = checkState(reg, { rails: { rules: ['r1', 'r2'], reasons: [], redacted: { input: '[X]' } } });
    const decision = buildDecision(state, { ...perRequest, rules: ['r2', 'r3'] }, '1', 2_000);
    expect(decision.policy).not.toHaveProperty('programDigest');
    expect(decision.rules).toEqual(['r1', 'r2', 'r3']);
    expect(decision.redacted).toEqual({ input: '[X]' });
    expect(decision).not.toHaveProperty('shadow');
    expect(buildDecision(checkState(reg), compiled, '1', 2_000)).not.toHaveProperty('redacted');
  });

  const shadowOf = (decision: 'allow' | 'deny' | null, status: 'ok' | 'guard_error' | 'undecided') => ({
    policy: policyRef(reg),
    decision,
    status,
    reasons: [],
    rules: [],
    agrees: null,
  });

  it.each([
    ['deny', 'ok', 'deny', 'ok', true],
    ['allow', 'ok', 'deny', 'ok', false],
    // The same verdict, but one guard could not decide: they do not agree.
    ['deny', 'guard_error', 'deny', 'ok', false],
    ['deny', 'guard_error', 'deny', 'guard_error', true],
    [null, 'undecided', 'deny', 'ok', null],
  ] as const)('a shadow %s/%s beside %s/%s: agrees = %s', (shadowVerdict, shadowStatus, verdictNow, statusNow, agrees) => {
    const state = checkState(reg, { shadowResult: shadowOf(shadowVerdict, shadowStatus) });
    const decision = buildDecision(state, { ...compiled, verdict: verdictNow, status: statusNow }, '1', 2_000);
    expect(decision.shadow).toEqual({ ...shadowOf(shadowVerdict, shadowStatus), agrees });
  });
});
