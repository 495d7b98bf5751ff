import { describe, expect, it } from 'vitest';
import { NotFoundError, UnavailableError } from '@guardagent/errors';
import type { JobFence, PipelineState } from '@guardagent/queue';
import { LockLostError } from '../src/lock-lost-error';
import { processCheckChunk, type CheckChunkDeps } from '../src/process-check-chunk';
import type { StageOutcome } from '../src/stage-outcome';
import { RecordingLogger, checkState, fakeDeps, fakeFinalize, fakeJob, policy, registered, verdict } from './fakes';

const reg = registered(policy({ mode: 'compiled' }));
const autoReg = registered(policy({ mode: 'auto' }), 'digest-auto', 'program-auto');

/** A chunk runtime over fakes: a promoted program that denies inputs containing 'bad'. */
function setup() {
  const f = fakeDeps([reg, autoReg]);
  f.programs.promoteCode('acme', reg.programDigest, 'program');
  f.programs.promoteCode('globex', reg.programDigest, 'program');
  f.sandbox.script = (request) => verdict(String(request.input).includes('bad'), [`judged ${String(request.input)}`]);
  const fin = fakeFinalize();
  const logger = new RecordingLogger();
  const routed: StageOutcome[] = [];
  const events: string[] = [];
  const saveDecisions = fin.results.saveDecisions.bind(fin.results);
  fin.results.saveDecisions = async (entries, fence) => {
    events.push('save');
    return saveDecisions(entries, fence);
  };
  const chunk: CheckChunkDeps = {
    deps: f.deps,
    finalize: fin.finalize,
    logger,
    routeOn: async (outcome) => {
      events.push('route');
      routed.push(outcome);
    },
  };
  return { f, fin, logger, routed, events, chunk };
}

const check = (jobId: string, input: string, overrides: Partial<PipelineState> = {}) => checkState(reg, { jobId, job: { input, output: '', context: {} }, ...overrides });

/** The decisions of one saveDecisions call, by tenant/id. */
function savedIn(call: { entries: Array<{ tenant: string; decision: { id: string } }> } | undefined) {
  return (call?.entries ?? []).map((e) => `${e.tenant}/${e.decision.id}`);
}

describe('processCheckChunk', () => {
  it('decides every check and stores the decisions in one saveDecisions call under the fence', async () => {
    const { fin, chunk } = setup();
    const fence: JobFence = { jobId: 'chunk-1', lockKey: 'lock', token: 't' };
    const job = fakeJob({ data: { checks: [check('a', 'fine'), check('b', 'bad refund')] } });

    const result = await processCheckChunk(job, chunk, fence);

    expect(result).toEqual({ kind: 'chunk', checks: 2, routed: [] });
    expect(fin.results.saveCalls).toHaveLength(1);
    expect(fin.results.saveCalls[0]!.fence).toBe(fence);
    expect(savedIn(fin.results.saveCalls[0])).toEqual(['acme/a', 'acme/b']);
    expect(fin.results.get('acme', 'a')!.decision).toMatchObject({ decision: 'allow', status: 'ok', layer: 'guardagent', mode: 'compiled' });
    expect(fin.results.get('acme', 'b')!.decision).toMatchObject({ decision: 'deny', status: 'ok', reasons: ['judged bad refund'] });
    expect(fin.results.get('acme', 'a')!.replyTo).toBe('reply:chan');
    // A first run does not look for earlier decisions.
    expect(fin.results.decidedCalls).toEqual([]);
  });

  it('an unparseable check ends as its own JOB_UNPARSEABLE guard_error while its neighbours are decided', async () => {
    const { f, fin, chunk, logger } = setup();
    const malformed = { ...check('m', 'x'), job: 42 }; // id, tenant, policy and submittedAt survive
    const hopeless = 'not a check at all';
    const job = fakeJob({ data: { checks: [check('a', 'fine'), malformed, hopeless, check('b', 'bad')] } });

    const result = await processCheckChunk(job, chunk, null);

    expect(result.checks).toBe(4);
    expect(fin.results.saveCalls).toHaveLength(1);
    expect(savedIn(fin.results.saveCalls[0]).sort()).toEqual(['acme/a', 'acme/b', 'acme/m']);
    const m = fin.results.get('acme', 'm')!;
    expect(m.decision).toMatchObject({ decision: 'deny', status: 'guard_error', layer: 'none', error: { code: 'JOB_UNPARSEABLE' } });
    expect(m.decision.error!.message).toMatch(/check 1 of its chunk: job/);
    expect(m.replyTo).toBe('reply:chan');
    expect(fin.results.get('acme', 'a')!.decision.decision).toBe('allow');
    expect(fin.results.get('acme', 'b')!.decision.decision).toBe('deny');
    // Only the two good checks ran.
    expect(f.sandbox.requests.map((r) => r.input)).toEqual(['fine', 'bad']);
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.fields.check)).toEqual([1, 2]);
  });

  it('an unparseable check denies even under failMode open (the infrastructure, not the guard, failed)', async () => {
    const openReg = registered(policy({ mode: 'compiled', failMode: 'open' }), 'digest-open');
    const { fin, chunk } = setup();
    const malformed = { ...checkState(openReg, { jobId: 'm' }), job: 'nope' };
    await processCheckChunk(fakeJob({ data: { checks: [malformed] } }), chunk, null);
    expect(fin.results.get('acme', 'm')!.decision).toMatchObject({ decision: 'deny', status: 'guard_error' });
  });

  it.each([
    ['a compile', { purpose: 'compile' as const }],
    ['a stored-payload hop', { jobStored: true }],
  ])('%s in a chunk ends as a JOB_UNPARSEABLE guard_error without running', async (_what, overrides) => {
    const { f, fin, chunk } = setup();
    await processCheckChunk(fakeJob({ data: { checks: [check('x', 'fine', overrides)] } }), chunk, null);
    expect(f.sandbox.requests).toEqual([]);
    expect(fin.results.get('acme', 'x')!.decision.error).toMatchObject({ code: 'JOB_UNPARSEABLE', message: expect.stringMatching(/only new guard checks/) });
  });

  it('a duplicate (same tenant and id) is decided once; two tenants with the same id are both decided', async () => {
    const { f, fin, chunk } = setup();
    const checks = [check('a', 'first'), check('a', 'second'), check('a', 'other tenant', { tenant: 'globex' }), { ...check('a', 'x'), job: 1 }];

    const result = await processCheckChunk(fakeJob({ data: { checks } }), chunk, null);

    expect(result.checks).toBe(4);
    expect(f.sandbox.requests.map((r) => `${r.tenant}:${String(r.input)}`)).toEqual(['acme:first', 'globex:other tenant']);
    expect(savedIn(fin.results.saveCalls[0]).sort()).toEqual(['acme/a', 'globex/a']);
    expect(fin.results.get('acme', 'a')!.decision.reasons).toEqual(['judged first']);
    expect(fin.results.get('globex', 'a')!.decision.reasons).toEqual(['judged other tenant']);
  });

  it.each([
    ['attemptsMade > 0', { attemptsMade: 1 }],
    ['stalledCounter > 0', { stalledCounter: 1 }],
  ])('a re-run (%s) decides only the checks without a stored decision', async (_why, counters) => {
    const { f, fin, chunk } = setup();
    await fin.results.saveDecisions([{ decision: { id: 'a' } as never, tenant: 'acme', replyTo: null, batchId: null }]);
    fin.results.saveCalls.length = 0;
    const checks = [check('a', 'fine'), check('b', 'fine too'), check('a', 'globex a', { tenant: 'globex' })];

    await processCheckChunk(fakeJob({ data: { checks }, ...counters }), chunk, null);

    expect(fin.results.decidedCalls).toEqual([
      [
        { tenant: 'acme', id: 'a' },
        { tenant: 'acme', id: 'b' },
        { tenant: 'globex', id: 'a' },
      ],
    ]);
    expect(f.sandbox.requests.map((r) => r.input)).toEqual(['fine too', 'globex a']);
    expect(savedIn(fin.results.saveCalls[0])).toEqual(['acme/b', 'globex/a']);
  });

  it('a passing error (not a GuardAgentError) stores what was decided, then rethrows for a retry', async () => {
    const { f, fin, chunk, routed } = setup();
    const fault = new Error('ECONNRESET');
    f.sandbox.script = (request) => {
      if (request.input === 'flaky') throw fault;
      return verdict(false);
    };
    const job = fakeJob({ data: { checks: [check('a', 'fine'), check('b', 'flaky')] }, attemptsMade: 0, attempts: 3 });

    await expect(processCheckChunk(job, chunk, null)).rejects.toBe(fault);

    expect(savedIn(fin.results.saveCalls[0])).toEqual(['acme/a']);
    expect(fin.results.get('acme', 'b')).toBeUndefined();
    expect(routed).toEqual([]);
  });

  it('UNAVAILABLE is passing too', async () => {
    const { f, chunk } = setup();
    const fault = new UnavailableError('redis down');
    f.sandbox.script = () => {
      throw fault;
    };
    await expect(processCheckChunk(fakeJob({ data: { checks: [check('a', 'x')] }, attempts: 2 }), chunk, null)).rejects.toBe(fault);
  });

  it('on the final attempt a passing error ends that check as a fail-closed guard_error instead', async () => {
    const openReg = registered(policy({ mode: 'compiled', failMode: 'open' }), 'digest-open', 'program-open');
    const { f, fin, chunk, logger } = setup();
    f.policies.byDigest.set(openReg.digest, openReg);
    f.programs.promoteCode('acme', openReg.programDigest, 'program');
    f.sandbox.script = (request) => {
      if (request.input === 'flaky') throw new Error('ECONNRESET');
      return verdict(false);
    };
    const checks = [check('a', 'fine'), checkState(openReg, { jobId: 'b', job: { input: 'flaky', output: '', context: {} } })];

    const result = await processCheckChunk(fakeJob({ data: { checks }, attemptsMade: 2, attempts: 3 }), chunk, null);

    expect(result).toEqual({ kind: 'chunk', checks: 2, routed: [] });
    expect(fin.results.saveCalls).toHaveLength(1);
    // INTERNAL_ERROR is not the guard's own failure: denied under failMode open too.
    expect(fin.results.get('acme', 'b')!.decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'INTERNAL_ERROR', message: 'ECONNRESET' } });
    expect(fin.results.get('acme', 'a')!.decision.decision).toBe('allow');
    expect(logger.entries.some((e) => e.level === 'warn' && e.fields.job === 'b')).toBe(true);
  });

  it("our own (non-UNAVAILABLE) errors are final at once: the check ends as guard_error with the error's code", async () => {
    const { f, fin, chunk } = setup();
    f.sandbox.script = () => {
      throw new NotFoundError('policy', 'gone');
    };
    const result = await processCheckChunk(fakeJob({ data: { checks: [check('a', 'x')] }, attemptsMade: 0, attempts: 3 }), chunk, null);
    expect(result.routed).toEqual([]);
    expect(fin.results.get('acme', 'a')!.decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'NOT_FOUND' } });
  });

  it('routes checks bound for the LLM path on, after storing the decisions, and returns their ids', async () => {
    const { fin, chunk, routed, events } = setup();
    const llmCheck = checkState(autoReg, { jobId: 'llm-1' });

    const result = await processCheckChunk(fakeJob({ data: { checks: [check('a', 'fine'), llmCheck] } }), chunk, null);

    expect(result.routed).toEqual(['llm-1']);
    expect(routed).toHaveLength(1);
    expect(routed[0]).toMatchObject({ kind: 'next', stage: 'memory', jobKind: 'retrieve', state: { jobId: 'llm-1' } });
    expect(savedIn(fin.results.saveCalls[0])).toEqual(['acme/a']);
    expect(events).toEqual(['save', 'route']);
  });

  it('a lost lock throws LockLostError and routes nothing on', async () => {
    const { fin, chunk, routed } = setup();
    fin.results.lockLost = true;
    const job = fakeJob({ data: { checks: [check('a', 'fine'), checkState(autoReg, { jobId: 'llm-1' })] } });
    await expect(processCheckChunk(job, chunk, { jobId: 'chunk-1', lockKey: 'l', token: 't' })).rejects.toBeInstanceOf(LockLostError);
    expect(routed).toEqual([]);
  });

  it.each([[{}], [{ checks: [] }], [{ checks: 'x' }]])('a chunk whose data is not a chunk (%j) throws', async (data) => {
    const { fin, chunk } = setup();
    await expect(processCheckChunk(fakeJob({ data }), chunk, null)).rejects.toThrow(/unparseable check chunk/);
    expect(fin.results.saveCalls).toEqual([]);
  });

  it('runs many checks concurrently and keeps their results in order', async () => {
    const { f, fin, chunk } = setup();
    // Each run waits until every one has started: this only settles if they run at once.
    const count = 10;
    let started = 0;
    let release!: () => void;
    const allStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    f.sandbox.script = async (request) => {
      started += 1;
      if (started === count) release();
      await allStarted;
      return verdict(false, [String(request.input)]);
    };
    const checks = Array.from({ length: count }, (_, i) => check(`c${i}`, `input ${i}`));

    await processCheckChunk(fakeJob({ data: { checks } }), chunk, null);

    expect(savedIn(fin.results.saveCalls[0])).toEqual(checks.map((c) => `acme/${c.jobId}`));
  });
});
