import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { Job } from 'bullmq';
import { CHECK_CHUNK_JOB, checksCarried } from '@guardagent/queue';
import type { Decision } from '@guardagent/schemas';
import { spawnService, waitFor, type TestStack } from './pipeline-stack';
import { slowPolicy } from './slow-policy';

/**
 * Six slow checks sent together (one chunk job, given a client linger that lets them meet) to an
 * executor process that is SIGKILLed while running the chunk; a second executor started then
 * finishes it. Asserts the chunk's path and returns the decisions the callers got, in order, and
 * the finished chunk job. `children` collects the processes, for the caller to clean up.
 */
export async function killExecutorMidChunk(stack: TestStack, env: Record<string, string>, children: ChildProcess[]): Promise<{ decisions: Decision[]; finished: Job }> {
  const first = spawnService('executor', env);
  children.push(first);
  const queue = stack.queues.queue('executor');
  await waitFor(async () => (await queue.getWorkers()).length >= 1, 30_000, 'an executor worker');
  expect((await stack.client.compile(slowPolicy, { timeoutMs: 60_000 })).status).toBe('promoted');

  const pending = Promise.all(
    Array.from({ length: 6 }, (_, i) => stack.client.check({ policy: 'slow', input: { text: i % 2 ? 'bad' : 'good', ms: 400 } }, { timeoutMs: 40_000 })),
  );
  const active = await waitFor(async () => (await queue.getActive()).find((j) => j.name === CHECK_CHUNK_JOB), 10_000, 'the chunk job to be active');
  expect(checksCarried(active)).toHaveLength(6);
  expect(active.processedBy ?? '').toContain(`:${first.pid}`);
  first.kill('SIGKILL');

  const second = spawnService('executor', env);
  children.push(second);
  const decisions = await pending;
  expect(decisions.map((d) => d.decision)).toEqual(['allow', 'deny', 'allow', 'deny', 'allow', 'deny']);
  // The decisions are stored (and announced) just before the chunk job completes.
  const finished = await waitFor(async () => {
    const job = await Job.fromId(queue, active.id!);
    return job?.finishedOn ? job : null;
  }, 10_000, 'the chunk job to complete');
  expect(finished.processedBy ?? '').toContain(`:${second.pid}`);
  expect(finished.returnvalue).toEqual({ kind: 'chunk', checks: 6, routed: [] });
  // Exactly the decision each caller got is stored.
  for (const decision of decisions) expect(await stack.client.result(decision.id)).toEqual(decision);
  return { decisions, finished };
}
