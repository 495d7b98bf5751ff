import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { QueueTransport } from '@guardagent/client/queue';
import { processCheckChunk, type CheckChunkDeps } from '@guardagent/pipeline';
import { CHECK_CHUNK_JOB, newChunkJobId, newPipelineState, type PipelineState } from '@guardagent/queue';
import type { Decision, PolicyInput } from '@guardagent/schemas';
import { startTestStack, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { silentLogger } from '@guardagent/telemetry';

/** Denies inputs with `word` in them; loops on 'loop' and throws on 'boom' (never in its examples). */
const wordPolicy = (word: string): PolicyInput => ({
  id: 'gate',
  requests: `Deny inputs that mention ${word}.`,
  mode: 'compiled',
  limits: { cpuMs: 200, wallMs: 1000 },
  program: `if (input === 'loop') { while (true) {} }
if (input === 'boom') throw new Error('boom');
return input.includes(${JSON.stringify(word)}) ? { deny: true, reasons: ['mentions ${word}'] } : { deny: false, reasons: [] };`,
  examples: [
    { input: `a ${word} here`, label: 1 },
    { input: 'nothing here', label: 0 },
  ],
});

/** Rails only: one tool, at most 2 calls per subject per hour. */
const limitedRails: PolicyInput = {
  id: 'limited',
  rails: {
    roles: { payer: { tools: ['pay'] } },
    tools: {
      pay: {
        args: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
        rateLimit: { max: 2, windowSeconds: 3600 },
      },
    },
  },
};
const pay = (amount: number, subjectId: string, idempotencyKey?: string) => ({
  policy: 'limited',
  subject: { id: subjectId, roles: ['payer'] },
  action: { kind: 'tool_call' as const, tool: 'pay', args: { amount } },
  ...(idempotencyKey ? { idempotencyKey } : {}),
});

describe('checks in chunks', () => {
  let stack: TestStack;
  let tenantB: QueueTransport;
  const digests: Record<string, { digest: string; programDigest: string; version: string }> = {};

  beforeAll(async () => {
    stack = await startTestStack({ tenant: 'a' });
    tenantB = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'b' });
    // The same policy id in both tenants, with opposite programs.
    for (const [tenant, client, word] of [
      ['a', stack.client, 'red'],
      ['b', tenantB, 'blue'],
    ] as const) {
      const compiled = await client.compile(wordPolicy(word), { timeoutMs: 60_000 });
      expect(compiled.status).toBe('promoted');
      digests[tenant] = compiled.policy;
    }
    await stack.client.putPolicy(limitedRails);
  });
  afterAll(async () => {
    await tenantB.close();
    await stack.stop();
  });

  const stateOf = (tenant: string, jobId: string, input: string): PipelineState =>
    newPipelineState({
      jobId,
      tenant,
      purpose: 'check',
      policy: { id: 'gate', ...digests[tenant] },
      job: { input, output: '', context: {} },
      replyTo: null,
      trace: {},
      submittedAt: Date.now(),
    });
  const decisionOf = async (tenant: string, id: string): Promise<Decision> => {
    let decision: Decision | null = null;
    await waitFor(
      async () => {
        decision = await stack.runtime!.results.getDecision(tenant, id);
        return decision !== null;
      },
      20_000,
      `decision ${tenant}/${id}`,
    );
    return decision!;
  };

  it('decides each check of a chunk mixing tenants and policies by its own tenant, never mixing their data', async () => {
    const checks = [
      stateOf('a', 'same-id', 'a red car'),
      stateOf('b', 'same-id', 'a red car'),
      stateOf('a', 'a-blue', 'a blue car'),
      stateOf('b', 'b-blue', 'a blue car'),
    ];
    await stack.runtime!.queues.add('executor', CHECK_CHUNK_JOB, { checks }, newChunkJobId());
    const [aSame, bSame, aBlue, bBlue] = await Promise.all(checks.map((check) => decisionOf(check.tenant, check.jobId)));
    // Tenant a's program denies red, tenant b's denies blue: each check met its own tenant's program.
    expect([aSame.decision, bSame.decision, aBlue.decision, bBlue.decision]).toEqual(['deny', 'allow', 'allow', 'deny']);
    expect(aSame.reasons).toEqual(['mentions red']);
    expect(bBlue.reasons).toEqual(['mentions blue']);
    expect(aSame.policy.digest).toBe(digests.a.digest);
    expect(bSame.policy.digest).toBe(digests.b.digest);
    expect([aSame, bSame, aBlue, bBlue].every((d) => d.status === 'ok' && d.mode === 'compiled')).toBe(true);
    // One tenant's id never reads another's decision.
    expect(await stack.runtime!.results.getDecision('a', 'b-blue')).toBeNull();
    expect(await stack.runtime!.results.getDecision('b', 'a-blue')).toBeNull();
  });

  it('fails closed only the hostile, failing or malformed checks of a chunk, and decides the others', async () => {
    const good = stateOf('a', 'good', 'a red door');
    const looping = stateOf('a', 'looping', 'loop');
    const throwing = stateOf('a', 'throwing', 'boom');
    const unknownPolicy = { ...stateOf('a', 'unknown-policy', 'x'), policy: { id: 'gone', version: '1', digest: 'f'.repeat(64), programDigest: 'f'.repeat(64) } };
    // Readable enough to answer (id, tenant, policy), but no job payload: not a check anyone can run.
    const { job: _job, ...malformed } = stateOf('a', 'malformed', 'x');
    const alsoGood = stateOf('a', 'also-good', 'a green door');
    // Malformed on purpose: straight onto the BullMQ queue, past QueueSet's typed add.
    await stack.runtime!.queues.queue('executor').add(CHECK_CHUNK_JOB, { checks: [good, looping, throwing, unknownPolicy, malformed, 'not a check', alsoGood] }, { jobId: newChunkJobId() });

    const [decidedGood, decidedAlsoGood] = await Promise.all([decisionOf('a', 'good'), decisionOf('a', 'also-good')]);
    expect(decidedGood).toMatchObject({ decision: 'deny', status: 'ok', reasons: ['mentions red'] });
    expect(decidedAlsoGood).toMatchObject({ decision: 'allow', status: 'ok' });
    const failed = await Promise.all(['looping', 'throwing', 'unknown-policy', 'malformed'].map((id) => decisionOf('a', id)));
    expect(failed.map((d) => [d.decision, d.status])).toEqual(Array(4).fill(['deny', 'guard_error']));
    expect(failed[0].error?.code).toBe('GUARD_CODE_FAILED');
    expect(failed[1].error?.code).toBe('GUARD_CODE_FAILED');
    expect(failed[3].error?.code).toBe('JOB_UNPARSEABLE');
  });

  it('a re-run of a chunk decides only the checks with no stored decision: a rate limit counts each check once', async () => {
    const subject = `rerun-${Date.now()}`;
    const registered = await stack.runtime!.deps.policies.get('a', 'limited');
    const state = (id: string, amount: number) =>
      newPipelineState({
        jobId: id,
        tenant: 'a',
        purpose: 'check',
        policy: { id: 'limited', version: registered.policy.version, digest: registered.digest, programDigest: registered.programDigest },
        job: { input: '', output: '', context: {}, subject: { id: subject, roles: ['payer'], attributes: {} }, action: { kind: 'tool_call', tool: 'pay', args: { amount } } },
        replyTo: null,
        trace: {},
        submittedAt: Date.now(),
      });
    const runtime = stack.runtime!;
    const deps: CheckChunkDeps = {
      deps: runtime.deps,
      finalize: { results: runtime.results, queues: runtime.queues, programs: runtime.deps.programs, now: Date.now },
      logger: silentLogger,
      routeOn: async () => undefined,
    };
    const checks = [state(`${subject}-1`, 1), state(`${subject}-2`, 2)];
    const chunkJob = (attemptsMade: number) => ({ id: 'chunk-rerun', data: { checks }, attemptsMade, stalledCounter: 0, opts: { attempts: 3 } }) as unknown as Job;

    // A first run that got as far as deciding check 1, then died (only check 1 in it).
    await processCheckChunk({ ...chunkJob(0), data: { checks: [checks[0]] } } as unknown as Job, deps, null);
    expect((await runtime.results.getDecision('a', checks[0].jobId))?.decision).toBe('allow');
    // The re-run carries both; it must not count check 1 again.
    const rerun = await processCheckChunk(chunkJob(1), deps, null);
    expect(rerun).toEqual({ kind: 'chunk', checks: 2, routed: [] });
    expect((await runtime.results.getDecision('a', checks[1].jobId))?.decision).toBe('allow');
    // Two calls counted of the two allowed: a third is over the limit.
    const third = await stack.client.check(pay(3, subject));
    expect(third.decision).toBe('deny');
    expect(third.rules.some((rule) => rule.includes('rate'))).toBe(true);
  });

  it('a keyed check submitted again, in the same chunk or another, is decided once and counted once', async () => {
    const subject = `keyed-${Date.now()}`;
    const other = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'a' });
    try {
      // Same tick, same client: one chunk carries the check twice. Another client: another chunk.
      const decisions = await Promise.all([
        stack.client.check(pay(10, subject, 'pay-10')),
        stack.client.check(pay(10, subject, 'pay-10')),
        other.check(pay(10, subject, 'pay-10')),
      ]);
      expect(new Set(decisions.map((d) => d.id)).size).toBe(1);
      expect(decisions.map((d) => d.decision)).toEqual(['allow', 'allow', 'allow']);
      // The limit is 2: the keyed call counted once leaves room for exactly one more call.
      const second = await stack.client.check(pay(11, subject));
      const third = await stack.client.check(pay(12, subject));
      expect([second.decision, third.decision]).toEqual(['allow', 'deny']);
    } finally {
      await other.close();
    }
  });

  it('checks submitted together travel as one chunk job; a lone check as its own check job', async () => {
    const queue = stack.runtime!.queues.queue('executor');
    // A linger long enough that the three reach the open chunk whatever their submit steps cost.
    const client = await QueueTransport.connect({ redisUrl: stack.redisUrl, prefix: stack.prefix, tenant: 'a', chunkLingerMs: 50 });
    const decisions = await Promise.all(['one red', 'two', 'three red'].map((input) => client.check({ policy: 'gate', input, output: '' }))).finally(() => client.close());
    expect(decisions.map((d) => d.decision)).toEqual(['deny', 'allow', 'deny']);
    const lone = await stack.client.check({ policy: 'gate', input: 'alone', output: '' });
    expect(await queue.getJob(lone.id)).toMatchObject({ name: 'check' });
    // The three shared one chunk job (no check job of their own), which carried exactly them.
    for (const d of decisions) expect(await queue.getJob(d.id)).toBeUndefined();
    const completed = await queue.getJobs(['completed'], 0, 1000);
    const chunk = completed.find((job) => job.name === CHECK_CHUNK_JOB && (job.data.checks as PipelineState[]).some((c) => c.jobId === decisions[0].id));
    expect((chunk!.data.checks as PipelineState[]).map((c) => c.jobId).sort()).toEqual(decisions.map((d) => d.id).sort());
    expect(chunk?.returnvalue).toEqual({ kind: 'chunk', checks: 3, routed: [] });
  });
});
