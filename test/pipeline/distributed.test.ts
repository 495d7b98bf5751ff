import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { Job, Worker } from 'bullmq';
import { loadConfig } from '@guardagent/config';
import { initTelemetry } from '@guardagent/telemetry';
import { startFakeLlmServer, type FakeLlmServer } from '@guardagent/testing';
import { spawnService, startTestStack, testLlm, waitFor, type TestStack } from '../helpers/pipeline-stack';
import { slowPolicy } from '../helpers/slow-policy';
import { checksCarried } from '@guardagent/queue';
import { killExecutorMidChunk } from '../helpers/killed-chunk';

describe('one trace per guard job', () => {
  let llm: FakeLlmServer;
  afterAll(async () => llm?.close());

  it('puts every stage span of a job under the decision trace id', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = initTelemetry({ serviceName: 'trace-test', exporter });
    llm = await startFakeLlmServer();
    const stack = await startTestStack({ llm: testLlm(llm.baseURL) });
    try {
      await stack.client.putPolicy({ id: 'traced', requests: 'Deny everything.', mode: 'per-request' });
      llm.enqueue({ content: '1. deny all' }, { content: '```js\nreturn { deny: true, reasons: ["all"] };\n```' });
      const decision = await stack.client.check({ policy: 'traced', input: 'a', output: 'b' });
      expect(decision.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(decision.traceId).not.toBe('0'.repeat(32));
      // The decision is announced from inside the last stage's span: wait for that span to end.
      const inTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === decision.traceId);
      await waitFor(async () => inTrace().some((s) => s.name === 'guardagent.executor.run'), 5000, 'the executor span');
      const spans = inTrace();
      const names = spans.map((s) => s.name);
      for (const name of [
        'guardagent.executor.check',
        'guardagent.memory.retrieve',
        'memory.retrieve',
        'guardagent.planner.plan',
        'guardagent.codegen.codegen',
        'llm.chat',
        'guardagent.executor.run',
        'sandbox.run',
      ]) {
        expect(names, name).toContain(name);
      }
      const llmSpan = spans.find((s) => s.name === 'llm.chat')!;
      expect(llmSpan.attributes['gen_ai.request.model']).toBe('fake-model');
      expect(Number(llmSpan.attributes['gen_ai.usage.input_tokens'])).toBeGreaterThan(0);
      expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain('sk-test-secret-key');
    } finally {
      await stack.stop();
      await telemetry.shutdown();
    }
  });
});

describe('executors as separate processes', () => {
  const children: ChildProcess[] = [];
  let stack: TestStack;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await stack?.stop();
  });

  const serviceEnv = (s: TestStack) => ({
    REDIS_URL: s.redisUrl,
    GUARDAGENT_PREFIX: s.prefix,
    GUARDAGENT_LOCK_DURATION_MS: '1000',
    GUARDAGENT_STALLED_INTERVAL_MS: '500',
    GUARDAGENT_SANDBOX_CPU_MS: '20000',
    GUARDAGENT_SANDBOX_WALL_MS: '20000',
    GUARDAGENT_EXECUTOR_CONCURRENCY: '4',
  });

  async function workersOf(s: TestStack, count: number): Promise<void> {
    await waitFor(async () => (await s.queues.queue('executor').getWorkers()).length >= count, 30_000, `${count} executor workers`);
  }

  it('two executor processes share one queue', async () => {
    // Chunks of at most 4 checks: the 24 checks travel as several chunk jobs, for both executors to take.
    stack = await startTestStack({ stages: [], client: { chunkMax: 4 } });
    children.push(spawnService('executor', serviceEnv(stack)), spawnService('executor', serviceEnv(stack)));
    await workersOf(stack, 2);
    const compiled = await stack.client.compile(slowPolicy);
    expect(compiled.status).toBe('promoted');
    const decisions = await Promise.all(
      Array.from({ length: 24 }, (_, i) => stack.client.check({ policy: 'slow', input: { text: i % 2 ? 'bad' : 'good', ms: 40 } })),
    );
    expect(decisions.filter((d) => d.decision === 'deny')).toHaveLength(12);
    expect(decisions.every((d) => d.status === 'ok' && d.mode === 'compiled')).toBe(true);
    // A decision is stored (and announced) just before its job completes.
    const processorOf = await waitFor(async () => {
      const found = await processorsByCheck(stack);
      return decisions.every((d) => found.has(d.id)) ? found : null;
    }, 10_000, 'every check job completed');
    expect(new Set(decisions.map((d) => processorOf.get(d.id))).size).toBe(2);
  });

  it("finishes a killed executor's chunk on another executor, with one decision per check", async () => {
    // A linger long enough for the six checks to share one chunk job.
    stack = await startTestStack({ stages: [], client: { chunkLingerMs: 50 } });
    await killExecutorMidChunk(stack, { ...serviceEnv(stack), GUARDAGENT_LOCK_DURATION_MS: '3000' }, children);
    expect(await countDecisionKeys(stack)).toHaveLength(6);
  });

  it("finishes a killed executor's job on another executor, with one decision", async () => {
    stack = await startTestStack({ stages: [] });
    // No guard run may outlast two thirds of the lock: a 3 s lock leaves room for a 1.8 s run.
    const env = { ...serviceEnv(stack), GUARDAGENT_LOCK_DURATION_MS: '3000' };
    const first = spawnService('executor', env);
    children.push(first);
    await workersOf(stack, 1);
    expect((await stack.client.compile(slowPolicy)).status).toBe('promoted');

    const pending = stack.client.check({ policy: 'slow', input: { text: 'bad', ms: 1800 } }, { timeoutMs: 40_000 });
    const executorQueue = stack.queues.queue('executor');
    const active = await waitFor(async () => (await executorQueue.getActive()).find((j) => j.name === 'check'), 10_000, 'the check job to be active');
    expect(active.processedBy ?? '').toContain(`:${first.pid}`);
    first.kill('SIGKILL');

    const second = spawnService('executor', env);
    children.push(second);
    const decision = await pending;
    expect(decision).toMatchObject({ id: active.id, decision: 'deny', status: 'ok', reasons: ['marked bad'] });
    const finished = await Job.fromId(executorQueue, active.id!);
    expect(finished?.processedBy ?? '').toContain(`:${second.pid}`);
    // Exactly one decision stored, and it is the one the client got.
    expect(await stack.client.result(decision.id)).toEqual(decision);
    const decisionKeys = await stack.runtime?.redis.keys(`${stack.prefix}:default:decision:*`);
    expect(decisionKeys ?? (await countDecisionKeys(stack))).toHaveLength(1);
  });
});

describe('takeover with the default lock settings', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it("a killed executor's job is finished by the survivor within lock + stalled interval (9 s), logged and counted", async () => {
    const stack = await startTestStack({ stages: [] });
    try {
      // Default GUARDAGENT_LOCK_DURATION_MS / GUARDAGENT_STALLED_INTERVAL_MS: only the guard run's own limits are raised.
      const env = { REDIS_URL: stack.redisUrl, GUARDAGENT_PREFIX: stack.prefix, GUARDAGENT_SANDBOX_CPU_MS: '3000', GUARDAGENT_SANDBOX_WALL_MS: '3000' };
      const logs = new Map<number, string>();
      const start = () => {
        const child = spawnService('executor', env);
        children.push(child);
        logs.set(child.pid!, '');
        child.stderr?.on('data', (chunk: Buffer) => logs.set(child.pid!, logs.get(child.pid!) + chunk.toString()));
        return child;
      };
      const executors = [start(), start()];
      const executorQueue = stack.queues.queue('executor');
      await waitFor(async () => (await executorQueue.getWorkers()).length >= 2, 30_000, 'two executors');
      expect((await stack.client.compile(slowPolicy)).status).toBe('promoted');

      const pending = stack.client.check({ policy: 'slow', input: { text: 'bad', ms: 2500 } }, { timeoutMs: 60_000 });
      const active = await waitFor(async () => (await executorQueue.getActive()).find((j) => j.name === 'check'), 10_000, 'the check to run');
      const victim = executors.find((c) => (active.processedBy ?? '').endsWith(`:${c.pid}`))!;
      const survivor = executors.find((c) => c !== victim)!;
      const killedAt = Date.now();
      victim.kill('SIGKILL');

      const decision = await pending;
      const takeoverMs = Date.now() - killedAt;
      expect(decision).toMatchObject({ id: active.id, decision: 'deny', status: 'ok' });
      expect((await Job.fromId(executorQueue, active.id!))?.processedBy ?? '').toContain(`:${survivor.pid}`);
      // Lock + stalled check (the defaults: 6 s + 3 s), then the 2.5 s run again, with room for a
      // loaded machine; the first defaults (30 s + 30 s) took 30 to 60 s.
      const defaults = loadConfig({});
      expect(defaults.lockDurationMs + defaults.stalledIntervalMs).toBeLessThanOrEqual(10_000);
      expect(takeoverMs).toBeLessThan(defaults.lockDurationMs + defaults.stalledIntervalMs + 2500 + 5000);
      await waitFor(async () => (logs.get(survivor.pid!) ?? '').includes('finished a job taken over from a stalled worker'), 5000, 'the recovery log line');
      expect(logs.get(survivor.pid!)).toContain('took over a stalled job');
      const takeovers = await stack.redis.hgetall(`${stack.prefix}:metrics:takeovers`);
      expect(takeovers).toEqual({ 'stalled|executor': '1', 'recovered|executor': '1' });
    } finally {
      await stack.stop();
    }
  });
});

describe('poison jobs', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
  });

  it('a job whose executor died under it twice is quarantined, not run a third time', async () => {
    const stack = await startTestStack({ stages: [] });
    try {
      const env = {
        REDIS_URL: stack.redisUrl,
        GUARDAGENT_PREFIX: stack.prefix,
        GUARDAGENT_LOCK_DURATION_MS: '3000',
        GUARDAGENT_STALLED_INTERVAL_MS: '500',
        GUARDAGENT_SANDBOX_CPU_MS: '2000',
        GUARDAGENT_SANDBOX_WALL_MS: '2000',
      };
      const executorQueue = stack.queues.queue('executor');
      const start = async () => {
        const child = spawnService('executor', env);
        children.push(child);
        await waitFor(async () => (await executorQueue.getWorkers()).length >= 1, 30_000, 'an executor');
        return child;
      };
      const first = await start();
      expect((await stack.client.compile(slowPolicy)).status).toBe('promoted');
      const { id } = await stack.client.submit({ policy: 'slow', input: { text: 'good', ms: 1800 } });
      // Kill whichever executor runs the job, twice, as a poison input that crashed it would.
      for (const victim of [first, null]) {
        const runner = victim ?? (await start());
        await waitFor(async () => (await executorQueue.getActive()).some((j) => j.id === id && (j.processedBy ?? '').endsWith(`:${runner.pid}`)), 20_000, `the job running on ${runner.pid}`);
        runner.kill('SIGKILL');
        await waitFor(async () => (await executorQueue.getWorkers()).length === 0, 10_000, 'the killed executor to leave');
      }
      await start();
      const decision = await waitFor(async () => stack.client.result(id), 30_000, 'the quarantine decision');
      expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'JOB_QUARANTINED' } });
      const job = await Job.fromId(executorQueue, id);
      expect(await job?.getState()).toBe('failed');
      // Not run a third time: a run would have stored the program's allow first (first decision wins).
      expect(job?.stalledCounter).toBe(2);
    } finally {
      await stack.stop();
    }
  });
});

describe('graceful shutdown and idempotency', () => {
  it('finishes the in-flight job on SIGTERM, then exits 0', async () => {
    const stack = await startTestStack({ stages: [] });
    const child = spawnService('executor', {
      REDIS_URL: stack.redisUrl,
      GUARDAGENT_PREFIX: stack.prefix,
      GUARDAGENT_SANDBOX_CPU_MS: '20000',
      GUARDAGENT_SANDBOX_WALL_MS: '20000',
    });
    try {
      const executorQueue = stack.queues.queue('executor');
      await waitFor(async () => (await executorQueue.getWorkers()).length >= 1, 30_000, 'the executor');
      expect((await stack.client.compile(slowPolicy)).status).toBe('promoted');
      const pending = stack.client.check({ policy: 'slow', input: { text: 'good', ms: 1500 } }, { timeoutMs: 20_000 });
      await waitFor(async () => (await executorQueue.getActive()).find((j) => j.name === 'check'), 10_000, 'the check to be active');
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await pending).toMatchObject({ decision: 'allow', status: 'ok' });
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await stack.stop();
    }
  });

  it('gives the same job id and one decision for the same idempotency key', async () => {
    const stack = await startTestStack();
    try {
      expect((await stack.client.compile(slowPolicy)).status).toBe('promoted');
      const job = { policy: 'slow', input: { text: 'bad' }, idempotencyKey: 'order-42' };
      const [a, b] = await Promise.all([stack.client.check(job), stack.client.check(job)]);
      const c = await stack.client.check(job);
      expect(a.id).toBe(b.id);
      expect(c).toEqual(a);
      const { id } = await stack.client.submit(job);
      expect(id).toBe(a.id);
      const other = await stack.client.check({ ...job, idempotencyKey: 'order-43' });
      expect(other.id).not.toBe(a.id);
      expect(await countDecisionKeys(stack)).toHaveLength(2);
    } finally {
      await stack.stop();
    }
  });
});

describe('jobs BullMQ gives up on', () => {
  it('still end with a fail-closed decision (stalled more than the allowed count)', async () => {
    const stack = await startTestStack({ stages: [] });
    const { Redis } = await import('ioredis');
    const redis = new Redis(stack.redisUrl);
    const { createRuntime } = await import('@guardagent/pipeline');
    const { silentLogger } = await import('@guardagent/telemetry');
    let runtime: Awaited<ReturnType<typeof createRuntime>> | null = null;
    try {
      await stack.client.putPolicy(slowPolicy);
      const { id } = await stack.client.submit({ policy: 'slow', input: { text: 'good' } });
      // What BullMQ 6 leaves on a job that stalled more than maxStalledCount times: the next
      // worker fails it without ever calling the processor.
      await redis.hset(`${stack.prefix}:executor:${id}`, 'defa', 'job stalled more than allowable limit');
      runtime = await createRuntime(stack.config, { llm: null, logger: silentLogger });
      runtime.startWorkers(['executor']);
      const decision = await waitFor(async () => stack.client.result(id), 15_000, 'a decision for the failed job');
      expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
      expect(decision.reasons.join(' ')).toMatch(/stalled/);
    } finally {
      redis.disconnect();
      await runtime?.close();
      await stack.stop();
    }
  });

  it('a failed job whose answer was never written (Redis refused it, the process died) is answered when an executor starts', async () => {
    await withAnswerlessFailures(async ({ stack, failAll, startExecutor }) => {
      const { id } = await stack.client.submit({ policy: 'slow', input: { text: 'good' } });
      await failAll(async (queue) => (await Job.fromId(queue, id))?.isFailed());
      expect(await stack.client.result(id)).toBeNull();

      const runtime = await startExecutor();
      const decision = await waitFor(async () => stack.client.result(id), 15_000, 'the sweeper to answer the failed job');
      expect(decision).toMatchObject({ id, decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
      expect(decision.reasons.join(' ')).toMatch(/OOM command not allowed/);
      // Answered once: the next sweep finds nothing left to answer.
      // The start-up sweep that answered it may still be finishing (a call during a sweep joins it
      // and gets its count): join it, then a new sweep must find nothing left to answer.
      await runtime.sweepFailedJobs();
      expect(await runtime.sweepFailedJobs()).toBe(0);
    });
  });

  it('a failed chunk job whose answers were never written has each of its checks answered when an executor starts', async () => {
    await withAnswerlessFailures(async ({ stack, failAll, startExecutor }) => {
      // Three checks submitted together travel as one chunk job.
      const { ids } = await stack.client.submitMany(['a', 'b', 'c'].map((text) => ({ policy: 'slow', input: { text } })));
      const failed = await failAll(async (queue) => (await queue.getFailed(0, 10)).find((job) => job.name === 'check-chunk'));
      expect((failed.data as { checks: unknown[] }).checks).toHaveLength(3);
      for (const id of ids) expect(await stack.client.result(id)).toBeNull();

      const runtime = await startExecutor();
      const decisions = await waitFor(async () => {
        const all = await Promise.all(ids.map((id) => stack.client.result(id)));
        return all.every((d) => d !== null) ? all : null;
      }, 15_000, 'the sweeper to answer every check of the failed chunk');
      for (const [i, decision] of decisions.entries()) {
        expect(decision).toMatchObject({ id: ids[i], decision: 'deny', status: 'guard_error', error: { code: 'JOB_FAILED' } });
      }
      // The start-up sweep that answered it may still be finishing (a call during a sweep joins it
      // and gets its count): join it, then a new sweep must find nothing left to answer.
      await runtime.sweepFailedJobs();
      expect(await runtime.sweepFailedJobs()).toBe(0);
    });
  });
});

/**
 * A stack (slow policy registered) whose executor queue is first worked by a bare BullMQ worker:
 * it fails every job like ours would, but writes no answer (as when the answer's write fails).
 * `failAll` waits until `failed` sees what that worker failed, then stops it; `startExecutor`
 * starts a real executor runtime, whose failed-job sweeper is under test.
 */
async function withAnswerlessFailures<T>(
  body: (ctx: {
    stack: TestStack;
    failAll: <F>(failed: (queue: ReturnType<TestStack['client']['queues']['queue']>) => Promise<F | null | undefined | false>) => Promise<F>;
    startExecutor: () => Promise<Awaited<ReturnType<typeof import('@guardagent/pipeline').createRuntime>>>;
  }) => Promise<T>,
): Promise<T> {
  const stack = await startTestStack({ stages: [] });
  const { Redis } = await import('ioredis');
  const connection = new Redis(stack.redisUrl, { maxRetriesPerRequest: null });
  const { createRuntime } = await import('@guardagent/pipeline');
    const { silentLogger } = await import('@guardagent/telemetry');
  const runtimes: Array<Awaited<ReturnType<typeof createRuntime>>> = [];
  const bare = new Worker('executor', async () => {
    throw new Error('OOM command not allowed when used memory > maxmemory');
  }, { connection, prefix: stack.prefix });
  try {
    await stack.client.putPolicy(slowPolicy);
    return await body({
      stack,
      failAll: async (failed) => {
        const found = await waitFor(() => failed(stack.queues.queue('executor')), 15_000, 'the bare worker to fail the job for good');
        await bare.close();
        return found;
      },
      startExecutor: async () => {
        const runtime = await createRuntime(stack.config, { llm: null, logger: silentLogger });
        runtimes.push(runtime);
        runtime.startWorkers(['executor']);
        return runtime;
      },
    });
  } finally {
    await bare.close();
    connection.disconnect();
    for (const runtime of runtimes) await runtime.close();
    await stack.stop();
  }
}

async function countDecisionKeys(stack: TestStack): Promise<string[]> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(stack.redisUrl);
  try {
    return await redis.keys(`${stack.prefix}:default:decision:*`);
  } finally {
    redis.disconnect();
  }
}

/** Which executor process (pid) ran each check, from the completed executor jobs (check or chunk). */
async function processorsByCheck(stack: TestStack): Promise<Map<string, string | undefined>> {
  const jobs = await stack.queues.queue('executor').getJobs(['completed'], 0, 10_000);
  const byCheck = new Map<string, string | undefined>();
  for (const job of jobs) {
    for (const check of checksCarried(job)) byCheck.set((check as { jobId: string }).jobId, job.processedBy?.split(':').pop());
  }
  return byCheck;
}
