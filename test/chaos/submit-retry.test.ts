import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client/queue';
import { checksCarried, isRedisConnectionError } from '@guardagent/queue';
import { uniquePrefix } from '@guardagent/testing';
import { waitFor } from '../helpers/pipeline-stack';
import { report, startChaosRedis, type ChaosRedis } from './chaos-cluster';

// Submits racing a Redis SIGKILL and restart. A submit in flight when Redis dies fails with a
// connection error although it may have been queued (its reply was lost), and one made while Redis
// is down fails at once. QueueTransport tries these again under the job id it chose before the
// first try, so callers see neither, and no job is queued twice.

const policy = { id: 'p', requests: 'Allow everything.', mode: 'compiled' as const, program: 'return { deny: false, reasons: [] };' };
const SUBMITTERS = 25;

interface Submitters {
  accepted: Map<string, string>;
  failures: unknown[];
  /** The input of each failed submit, in the order of `failures`. */
  failedInputs: string[];
  stop(): Promise<void>;
}

/** `SUBMITTERS` loops submitting jobs with unique inputs (`<tag>-<n>`) until stopped. */
function submitLoop(client: QueueTransport, tag: string): Submitters {
  const accepted = new Map<string, string>();
  const failures: unknown[] = [];
  const failedInputs: string[] = [];
  let n = 0;
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const input = `${tag}-${n++}`;
      try {
        accepted.set(input, (await client.submit({ policy: 'p', input })).id);
      } catch (error) {
        failures.push(error);
        failedInputs.push(input);
        // A caller pausing before its next job (the outage is still on).
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };
  const loops = Array.from({ length: SUBMITTERS }, loop);
  return {
    accepted,
    failures,
    failedInputs,
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

describe('submits during a Redis SIGKILL and restart (AOF always)', () => {
  let redis: ChaosRedis;
  afterAll(async () => {
    await redis?.stop();
  });

  it('QueueTransport retries lost and refused submits under the same job id: no caller error, no job queued twice', async () => {
    redis = await startChaosRedis({ aof: 'always' });
    const prefix = uniquePrefix('submit-retry');
    const retried: unknown[] = [];
    // Six tries (waits of 0.1, 0.4, then 1.6 s) rather than the default four: room for a slow
    // machine to restart Redis; the test is about what a retry does, not how long it waits.
    const retrying = await QueueTransport.connect({ redisUrl: redis.url, prefix, submitAttempts: 6, onSubmitRetry: (error) => retried.push(error) });
    const single = await QueueTransport.connect({ redisUrl: redis.url, prefix, submitAttempts: 1 });
    await retrying.putPolicy(policy);
    const withRetries = submitLoop(retrying, 'retried');
    const withoutRetries = submitLoop(single, 'single');
    try {
      await waitFor(async () => withRetries.accepted.size >= 200 && withoutRetries.accepted.size >= 200, 20_000, 'submits before the fault');
      redis.kill();
      // Down until both clients have given up on submits in flight (after their connections'
      // reconnect attempts, about 0.5 s): replies lost, the jobs maybe queued.
      const givenUp = (errors: unknown[]) => errors.some((error) => (error as Error).name === 'MaxRetriesPerRequestError');
      await waitFor(async () => givenUp(withoutRetries.failures) && givenUp(retried), 20_000, 'submits given up in flight');
      await redis.restart();
      const before = { retried: withRetries.accepted.size, single: withoutRetries.accepted.size };
      await waitFor(
        async () => withRetries.accepted.size >= before.retried + 200 && withoutRetries.accepted.size >= before.single + 200,
        20_000,
        'submits after the restart',
      );
    } finally {
      await withRetries.stop();
      await withoutRetries.stop();
    }

    // What callers without retries see, and what the retry spares the others.
    expect(withoutRetries.failures.length).toBeGreaterThan(0);
    expect(withoutRetries.failures.every(isRedisConnectionError)).toBe(true);
    expect(withRetries.failures).toEqual([]);
    expect(retried.every(isRedisConnectionError)).toBe(true);

    // Every accepted submit is queued once, under the id its caller got.
    const admin = new Redis(redis.url);
    try {
      const queue = new Queue('executor', { connection: admin, prefix });
      const jobs = await queue.getJobs(['waiting']);
      const queued = new Map<string, string[]>();
      // A check travels in its own job or in a chunk job with others: count the checks, by id.
      for (const job of jobs) {
        for (const check of checksCarried(job) as Array<{ jobId: string; job: { input: unknown } }>) {
          const input = String(check.job.input);
          queued.set(input, [...(queued.get(input) ?? []), check.jobId]);
        }
      }
      for (const [input, id] of withRetries.accepted) expect(queued.get(input), input).toEqual([id]);
      expect([...queued.keys()].filter((input) => input.startsWith('retried-')).length).toBe(withRetries.accepted.size);
      // Duplicates are impossible by construction for the single-try client too: a failed submit was queued once or not at all.
      expect([...queued.values()].every((ids) => ids.length === 1)).toBe(true);
      // How ambiguous those failures were: a caller retrying them without a key would queue these twice.
      const failedButQueued = withoutRetries.failedInputs.filter((input) => queued.has(input)).length;
      report({
        fault: 'Redis SIGKILL and restart under 50 submitters (25 retrying, 25 single-try)',
        checks: withRetries.accepted.size + withoutRetries.accepted.size,
        decided: 0,
        storedDecisions: 0,
        duplicateAnnouncements: 0,
        recoveryMs: 0,
        notes: `retrying client: ${withRetries.accepted.size} accepted, ${retried.length} steps retried, 0 failed; single-try client: ${withoutRetries.failures.length} failed, ${failedButQueued} of them queued all the same (no executors: nothing is decided)`,
      });
    } finally {
      admin.disconnect();
      await retrying.close();
      await single.close();
    }
  }, 90_000);
});
