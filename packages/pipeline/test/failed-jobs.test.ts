import { describe, expect, it } from 'vitest';
import { CHECK_CHUNK_JOB } from '@guardagent/queue';
import { answerFailedJob, expectsAnswer, type AnswerFailedJobDeps } from '../src/answer-failed-job';
import { errorOutcome, errorOutcomeClosed } from '../src/error-outcome';
import { GUARD_LAYER_UNDECIDED_CODES, failModeFor } from '../src/fail-mode';
import { salvageState, salvageStateOf } from '../src/salvage-state';
import { guardError } from '../src/stage-outcome';
import { RecordingLogger, checkState, fakeDeps, fakeFinalize, fakeJob, policy, registered } from './fakes';

const reg = registered(policy());
const openReg = registered(policy({ failMode: 'open' }), 'digest-open');

/** What survives of a check whose job (and most else) is garbage. */
const wreck = (jobId: string, extra: Record<string, unknown> = {}) => ({
  jobId,
  tenant: 'acme',
  policy: { id: 'refunds', version: '1', digest: 'digest-1', programDigest: 'program-1' },
  submittedAt: 1_000,
  job: 'garbage',
  step: -3,
  ...extra,
});

describe('failModeFor', () => {
  it('opens only for the guard layer’s own failures, and only under failMode open', () => {
    for (const code of GUARD_LAYER_UNDECIDED_CODES) {
      expect(failModeFor(code, 'open')).toBe('open');
      expect(failModeFor(code, 'closed')).toBe('closed');
    }
    for (const code of ['SANDBOX_QUARANTINED', 'JOB_FAILED', 'JOB_UNPARSEABLE', 'UNAVAILABLE', 'INTERNAL_ERROR', 'RAILS_FAILED']) {
      expect(failModeFor(code, 'open')).toBe('closed');
    }
  });
});

describe('salvageStateOf', () => {
  it('rebuilds an answerable state from the id, tenant, policy and submittedAt, and the reply channel', () => {
    const state = salvageStateOf(wreck('j-1', { replyTo: 'chan', batchId: 'batch-9', logDecision: true, replayId: 'replay-2', purpose: 'compile' }));
    expect(state).toMatchObject({
      jobId: 'j-1',
      tenant: 'acme',
      purpose: 'compile',
      policy: { digest: 'digest-1' },
      submittedAt: 1_000,
      replyTo: 'chan',
      batchId: 'batch-9',
      logDecision: true,
      replayId: 'replay-2',
      job: { input: '', output: '', context: {} },
      step: 0,
    });
  });

  it('takes nothing it cannot trust: odd reply channels and flags fall back to defaults', () => {
    const state = salvageStateOf(wreck('j-1', { replyTo: 7, batchId: {}, logDecision: 'yes', replayId: 1, purpose: 'exfiltrate' }));
    expect(state).toMatchObject({ purpose: 'check', replyTo: null, batchId: null, logDecision: false, replayId: null });
  });

  it.each([
    ['no tenant', wreck('j-1', { tenant: undefined })],
    ['an empty id', wreck('')],
    ['no policy', wreck('j-1', { policy: 'p' })],
    ['no submittedAt', wreck('j-1', { submittedAt: 'now' })],
    ['a string', 'state'],
    ['null', null],
  ])('is null with %s (nothing to answer to)', (_what, value) => {
    expect(salvageStateOf(value)).toBeNull();
  });

  it("salvageState reads a stage job's state", () => {
    expect(salvageState(fakeJob({ name: 'check', data: { state: wreck('j-2') } }))?.jobId).toBe('j-2');
    expect(salvageState(fakeJob({ name: 'check', data: undefined }))).toBeNull();
  });
});

describe('errorOutcome', () => {
  it("follows the policy's failMode for the guard layer's own failures", async () => {
    const f = fakeDeps([reg, openReg]);
    const open = await errorOutcome(checkState(openReg), f.deps, { code: 'LLM_REPLY_UNUSABLE', message: 'junk' });
    expect(open).toMatchObject({ kind: 'decision', draft: { verdict: 'allow', status: 'guard_error', error: { code: 'LLM_REPLY_UNUSABLE' } } });
    const closed = await errorOutcome(checkState(reg), f.deps, { code: 'LLM_REPLY_UNUSABLE', message: 'junk' });
    expect(closed).toMatchObject({ kind: 'decision', draft: { verdict: 'deny', status: 'guard_error' } });
  });

  it('denies when the policy cannot be read (its failMode is unknown)', async () => {
    const f = fakeDeps([]);
    const outcome = await errorOutcome(checkState(openReg), f.deps, { code: 'LLM_REPLY_UNUSABLE', message: 'junk' });
    expect(outcome).toMatchObject({ kind: 'decision', draft: { verdict: 'deny', status: 'guard_error' } });
  });

  it('ends a compile as an error result, not a decision', async () => {
    const f = fakeDeps([reg]);
    const error = { code: 'INTERNAL_ERROR', message: 'x' };
    expect(await errorOutcome(checkState(reg, { purpose: 'compile' }), f.deps, error)).toMatchObject({ kind: 'compile-result', draft: { status: 'error', report: null, error } });
    expect(errorOutcomeClosed(checkState(reg, { purpose: 'compile' }), error)).toMatchObject({ kind: 'compile-result', draft: { status: 'error', error } });
  });

  it('errorOutcomeClosed denies under any failMode', () => {
    const outcome = errorOutcomeClosed(checkState(openReg), { code: 'LLM_NOT_CONFIGURED', message: 'x' });
    expect(outcome).toMatchObject({ kind: 'decision', draft: { verdict: 'deny', status: 'guard_error', layer: 'none' } });
  });

  it("guardError's mode says per-request when the state carries code", () => {
    expect(guardError(checkState(reg, { code: 'x' }), { code: 'GUARD_CODE_FAILED', message: 'm' }, 'closed')).toMatchObject({ draft: { mode: 'per-request' } });
    expect(guardError(checkState(reg), { code: 'GUARD_CODE_FAILED', message: 'm' }, 'closed')).toMatchObject({ draft: { mode: null } });
  });
});

describe('answerFailedJob', () => {
  function setup() {
    const fin = fakeFinalize();
    const logger = new RecordingLogger();
    const deps: AnswerFailedJobDeps = { ...fin.finalize, logger };
    return { ...fin, logger, deps };
  }

  it('answers a malformed check fail-closed (JOB_FAILED) on the channel it carries', async () => {
    const { deps, results } = setup();
    const job = fakeJob({ name: 'check', data: { state: wreck('j-1', { replyTo: 'chan-1' }) } });

    expect(await answerFailedJob(deps, 'executor', job, 'job stalled more than allowable limit')).toBe(true);

    expect(results.saveCalls).toHaveLength(1);
    const saved = results.get('acme', 'j-1')!;
    expect(saved.replyTo).toBe('chan-1');
    expect(saved.decision).toMatchObject({ decision: 'deny', status: 'guard_error', layer: 'none', error: { code: 'JOB_FAILED' } });
    expect(saved.decision.error!.message).toBe('the executor stage gave up on the job: job stalled more than allowable limit');
  });

  it('denies under failMode open too: the infrastructure gave up, no guard decided', async () => {
    const { deps, results } = setup();
    const job = fakeJob({ name: 'plan', data: { state: { ...checkState(openReg), jobId: 'j-open' } } });
    expect(await answerFailedJob(deps, 'planner', job, 'boom')).toBe(true);
    expect(results.get('acme', 'j-open')!.decision.decision).toBe('deny');
  });

  it('a job that stalled past the limit is answered as JOB_QUARANTINED', async () => {
    const { deps, results, logger } = setup();
    const job = fakeJob({ name: 'check', data: { state: wreck('j-1') }, stalledCounter: 2 });
    expect(await answerFailedJob(deps, 'executor', job, 'stalled')).toBe(true);
    expect(results.get('acme', 'j-1')!.decision.error).toMatchObject({ code: 'JOB_QUARANTINED', message: expect.stringContaining('stalled 2 times on the executor stage') });
    expect(logger.entries.map((e) => e.message)).toContain('job quarantined');
  });

  it.each(['waiting', 'active', 'delayed'])('does nothing for a job BullMQ will still run (%s)', async (state) => {
    const { deps, results } = setup();
    expect(await answerFailedJob(deps, 'executor', fakeJob({ name: 'check', data: { state: wreck('j-1') }, state }), 'x')).toBe(false);
    expect(results.saveCalls).toEqual([]);
  });

  it("does nothing for memory's side jobs (no caller) or a job with nothing to answer to", async () => {
    const { deps, results } = setup();
    expect(expectsAnswer('memory', 'archive')).toBe(false);
    expect(expectsAnswer('memory', 'retrieve')).toBe(true);
    expect(await answerFailedJob(deps, 'memory', fakeJob({ name: 'archive', data: { state: wreck('j-1') } }), 'x')).toBe(false);
    expect(await answerFailedJob(deps, 'executor', fakeJob({ name: 'check', data: { state: { jobId: 'j-1' } } }), 'x')).toBe(false);
    expect(results.saveCalls).toEqual([]);
  });

  it('ends a failed compile as an error result, not a decision', async () => {
    const { deps, results, programs } = setup();
    const job = fakeJob({ name: 'verify', data: { state: { ...checkState(reg, { jobId: 'compile-1', purpose: 'compile' }), backgroundCompile: true } } });
    expect(await answerFailedJob(deps, 'executor', job, 'boom')).toBe(true);
    expect(results.saveCalls).toEqual([]);
    expect(results.compileResults[0]).toMatchObject({ id: 'compile-1', result: { status: 'error', error: { code: 'JOB_FAILED' } } });
    // A background compile holds its digest's compile lock: failed, it backs off for the hour (was:
    // the salvaged state forgot the lock, which then expired after 15 minutes and the compile ran again).
    expect(programs.backedOff).toEqual([{ programDigest: reg.programDigest, seconds: 3600 }]);
    expect(programs.unlocked).toEqual([]);
  });

  it('a failed explicit compile (no lock held) neither unlocks nor backs off', async () => {
    const { deps, programs } = setup();
    const job = fakeJob({ name: 'verify', data: { state: checkState(reg, { jobId: 'compile-2', purpose: 'compile' }) } });
    expect(await answerFailedJob(deps, 'executor', job, 'boom')).toBe(true);
    expect(programs.backedOff).toEqual([]);
    expect(programs.unlocked).toEqual([]);
  });

  it("answers a failed chunk's checks in one call; a check decided earlier keeps its decision", async () => {
    const { deps, results } = setup();
    await results.saveDecisions([{ decision: { id: 'a', decision: 'allow' } as never, tenant: 'acme', replyTo: null, batchId: null }]);
    results.saveCalls.length = 0;
    const job = fakeJob({ name: CHECK_CHUNK_JOB, data: { checks: [checkState(reg, { jobId: 'a' }), wreck('b'), 'hopeless', checkState(reg, { jobId: 'c', purpose: 'compile' })] } });

    expect(await answerFailedJob(deps, 'executor', job, 'boom')).toBe(true);

    expect(results.saveCalls).toHaveLength(1);
    expect(results.saveCalls[0]!.entries.map((e) => e.decision.id)).toEqual(['a', 'b']);
    expect(results.get('acme', 'a')!.decision.decision).toBe('allow');
    expect(results.get('acme', 'b')!.decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
  });

  it('a chunk with nothing to answer writes nothing', async () => {
    const { deps, results } = setup();
    expect(await answerFailedJob(deps, 'executor', fakeJob({ name: CHECK_CHUNK_JOB, data: { checks: ['x', 1] } }), 'boom')).toBe(false);
    expect(results.saveCalls).toEqual([]);
  });

  it('never throws: a failed write is logged and reported as not answered', async () => {
    const { deps, results, logger } = setup();
    results.failSaves = new Error('redis down');
    expect(await answerFailedJob(deps, 'executor', fakeJob({ name: 'check', data: { state: wreck('j-1') } }), 'x')).toBe(false);
    expect(logger.entries).toContainEqual({ level: 'error', fields: { stage: 'executor', job: 'job-under-test', err: 'redis down' }, message: 'could not answer a failed job' });
  });
});
