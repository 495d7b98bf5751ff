import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { QueueTransport } from '@guardagent/client/queue';
import { CheckTimeoutError } from '@guardagent/errors';
import { RedisApprovalStore } from '@guardagent/rails';
import type { Decision, GuardJobInput, PolicyInput } from '@guardagent/schemas';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicyText } from '@guardagent/schemas';
import { storedADecision } from '@guardagent/pipeline';
import { checksCarried, parseMemoryInfo } from '@guardagent/queue';
import type { Job } from 'bullmq';
import { uniquePrefix } from '@guardagent/testing';
import { REPO_ROOT, waitFor } from '../helpers/pipeline-stack';
import { slowPolicy } from '../helpers/slow-policy';
import { CALLER_TIMEOUT_MS, CHECKS, Executors, FULL, LOCK_MS, RECOVERY_BOUND_MS, STALLED_MS, recoveryBoundMs, report, startChaosRedis, type ChaosRedis, type Pace } from './chaos-cluster';

// Faults injected into real processes by PID: executors as separate processes, a real
// redis-server, checks through the real client. Each fault asserts what issue 12 promises: every
// accepted job ends with exactly one stored decision, the one its caller got; no caller hears a
// decision twice; callers of check() get their decisions; recovery within the bound.

const refundDesk = parsePolicyText(readFileSync(join(REPO_ROOT, 'examples/policies/refund-desk.yaml'), 'utf8')) as PolicyInput;

const RUN_MS = FULL ? 10 : 20;
const jobFor = (i: number) => ({ policy: 'slow', input: { text: i % 2 ? 'bad' : 'good', ms: RUN_MS } });
const expected = (i: number) => (i % 2 ? 'deny' : 'allow');

interface Rig {
  redis: ChaosRedis;
  admin: Redis;
  prefix: string;
  executors: Executors;
  client: QueueTransport;
  /** Announcements heard on the client's reply channel, per job id. */
  heard: Map<string, number>;
  listener: Redis;
}

let rig: Rig | null = null;
afterEach(async () => {
  if (!rig) return;
  rig.executors.stopAll();
  rig.listener.disconnect();
  rig.admin.disconnect();
  await rig.client.close().catch(() => undefined);
  await rig.redis.stop();
  rig = null;
});

async function startRig(options: { aof: 'always' | 'everysec' | 'off'; executors: number; policy?: PolicyInput }): Promise<Rig> {
  const redis = await startChaosRedis({ aof: options.aof });
  const prefix = uniquePrefix('chaos');
  const admin = new Redis(redis.url);
  admin.on('error', () => undefined); // down on purpose in the Redis fault
  const executors = new Executors({
    REDIS_URL: redis.url,
    GUARDAGENT_PREFIX: prefix,
    GUARDAGENT_SANDBOX_CPU_MS: '2000',
    GUARDAGENT_SANDBOX_WALL_MS: '2000',
  });
  for (let i = 0; i < options.executors; i++) executors.start();
  const client = await QueueTransport.connect({ redisUrl: redis.url, prefix });
  // A second subscriber on the client's own reply channel counts what a caller would hear.
  const listener = new Redis(redis.url);
  listener.on('error', () => undefined);
  const heard = new Map<string, number>();
  await listener.subscribe(client['listener'].channel);
  listener.on('message', (_channel, raw: string) => {
    const id = (JSON.parse(raw) as { id?: string }).id;
    if (id) heard.set(id, (heard.get(id) ?? 0) + 1);
  });
  rig = { redis, admin, prefix, executors, client, heard, listener };
  await workers(rig, options.executors);
  const compiled = await client.compile(options.policy ?? slowPolicy, { timeoutMs: 60_000 });
  // The whole result on failure: which example failed, and how.
  expect(compiled.status, JSON.stringify(compiled).slice(0, 4_000)).toBe('promoted');
  return rig;
}

async function workers(r: Rig, count: number): Promise<void> {
  await waitFor(async () => (await r.client['queues'].queue('executor').getWorkers()).length >= count, 60_000, `${count} executor workers`);
}

/** Waits until a quarter of the checks are decided (however long a loaded machine takes), then returns the pace so far. */
async function quarterDecided(r: Rig, what = 'a quarter of the checks decided'): Promise<Pace> {
  await waitFor(async () => (await decidedCount(r)) >= CHECKS / 4, CALLER_TIMEOUT_MS / 2, what);
  return { sentAt, faultAt: Date.now(), decidedAtFault: await decidedCount(r) };
}

async function decidedCount(r: Rig): Promise<number> {
  let cursor = '0';
  let count = 0;
  do {
    const [next, found] = await r.admin.scan(cursor, 'MATCH', `${r.prefix}:default:decision:*`, 'COUNT', 1000);
    cursor = next;
    count += found.length;
  } while (cursor !== '0');
  return count;
}

type Outcome = { i: number; decision?: Decision; error?: unknown; at: number };

/** When checkAll last sent its checks (for the pace before a fault). */
let sentAt = 0;

/** Start `CHECKS` check() calls at once (job `i` built by `build`); each settles with its decision or its error. */
function checkAll(r: Rig, build: (i: number) => GuardJobInput = jobFor): Promise<Outcome[]> {
  sentAt = Date.now();
  return Promise.all(
    Array.from({ length: CHECKS }, (_, i) =>
      r.client.check(build(i), { timeoutMs: CALLER_TIMEOUT_MS }).then(
        (decision) => ({ i, decision, at: Date.now() }),
        (error: unknown) => ({ i, error, at: Date.now() }),
      ),
    ),
  );
}

/** Check `i` decided as the slow program says, with status ok. */
function decidedAsProgramSays(i: number, decision: Decision): void {
  expect(decision.decision, `check ${i}: ${decision.status} ${decision.reasons.join('; ')}`).toBe(expected(i));
  expect(decision.status, `check ${i}: ${decision.reasons.join('; ')}`).toBe('ok');
}

/** Check `i` decided as the program says, or (a job whose run or answer the fault broke) denied fail-closed. */
function decidedOrFailedClosed(i: number, decision: Decision): void {
  if (decision.status === 'ok') expect(decision.decision, `check ${i}`).toBe(expected(i));
  else expect(decision, `check ${i}`).toMatchObject({ decision: 'deny', status: 'guard_error' });
}

/** Announcements heard on the callers' channel beyond the first per check id. */
function duplicateAnnouncements(r: Rig): number {
  return [...r.heard.values()].reduce((sum, n) => sum + (n - 1), 0);
}

/**
 * The promises every fault must keep, for check() callers: each got a decision that `judge`
 * accepts, exactly one stored per check and equal to it, none announced twice, all within the
 * bound, every taken-over job recovered. Reports the fault and returns the decisions.
 */
async function assertEveryCallerAnswered(
  r: Rig,
  outcomes: Outcome[],
  faultAt: number,
  fault: string,
  options: { judge?: (i: number, decision: Decision) => void; notes?: string; boundMs?: number } = {},
): Promise<Decision[]> {
  const boundMs = options.boundMs ?? RECOVERY_BOUND_MS;
  const failed = outcomes.filter((o) => !o.decision);
  expect(failed.map((o) => String(o.error))).toEqual([]);
  const judge = options.judge ?? decidedAsProgramSays;
  for (const o of outcomes) judge(o.i, o.decision!);
  // Exactly one stored decision per check, and it is the one its caller got.
  const storedDecisions = await decidedCount(r);
  expect(storedDecisions).toBe(CHECKS);
  const stored = await r.client.resultsMany(outcomes.map((o) => o.decision!.id));
  expect(stored.map((d) => d?.createdAt)).toEqual(outcomes.map((o) => o.decision!.createdAt));
  // No caller hears a decision twice.
  const duplicates = duplicateAnnouncements(r);
  expect(duplicates).toBe(0);
  const recoveryMs = Math.max(...outcomes.map((o) => o.at)) - faultAt;
  expect(recoveryMs, `recovery bound ${boundMs} ms`).toBeLessThan(boundMs);
  // Every job taken over from the dead executor was ended by another: finished, or failed and
  // answered fail-closed (counted just after BullMQ marks the job completed or failed).
  const takeovers = await waitFor(
    async () => {
      const counts = await r.admin.hgetall(`${r.prefix}:metrics:takeovers`);
      const ended = Number(counts['recovered|executor'] ?? 0) + Number(counts['failed_after_takeover|executor'] ?? 0);
      return ended === Number(counts['stalled|executor'] ?? 0) ? counts : null;
    },
    // A count Redis refused (past maxmemory) is tried again for about 22 s (see stage-worker.ts).
    30_000,
    'every job taken over to be counted as recovered or failed closed',
  );
  report({
    fault,
    checks: CHECKS,
    decided: CHECKS - failed.length,
    storedDecisions,
    duplicateAnnouncements: duplicates,
    recoveryMs,
    notes: [`${takeovers['stalled|executor'] ?? 0} jobs taken over (${takeovers['failed_after_takeover|executor'] ?? 0} of them failed closed)`, `bound ${boundMs} ms`, options.notes].filter(Boolean).join('; '),
  });
  return outcomes.map((o) => o.decision!);
}

describe(`chaos (${FULL ? 'full' : 'short'} form: ${CHECKS} checks per fault, lock ${LOCK_MS} ms, stalled check ${STALLED_MS} ms)`, { timeout: FULL ? 600_000 : 120_000 }, () => {
  it('kill -9 one of two executors mid-batch', async () => {
    const r = await startRig({ aof: 'off', executors: 2 });
    const outcomes = checkAll(r);
    const pace = await quarterDecided(r);
    r.executors.children[0].kill('SIGKILL');
    await assertEveryCallerAnswered(r, await outcomes, pace.faultAt, 'kill -9 one of two executors mid-batch', { boundMs: recoveryBoundMs(pace, 1 / 2) });
    expect(r.executors.logs.get(r.executors.children[1].pid!)).not.toContain('"level":"error"');
  });

  it('kill -9 every executor mid-batch, then start one', async () => {
    const r = await startRig({ aof: 'off', executors: 2 });
    const outcomes = checkAll(r);
    const pace = await quarterDecided(r);
    for (const child of r.executors.children) child.kill('SIGKILL');
    // The bound runs from when the new executor is up: how long a Node process takes to start on a
    // loaded machine is the operator's restart time, not the guard's recovery (CI at a3e9eb3 on
    // Node 22 took 17.5 s from the kill to the last decision, against a bound of 16 s).
    const upAt = await r.executors.startedAt(r.executors.start());
    await assertEveryCallerAnswered(r, await outcomes, upAt, 'kill -9 every executor, then start one', {
      notes: 'recovery counted from the new executor\'s "service started"',
      boundMs: recoveryBoundMs(pace, 1 / 2),
    });
  });

  it('SIGSTOP an executor past its lock, then SIGCONT: its jobs are finished once, by the other', async () => {
    const r = await startRig({ aof: 'off', executors: 2 });
    const outcomes = checkAll(r);
    const pace = await quarterDecided(r);
    const frozen = r.executors.children[0];
    frozen.kill('SIGSTOP');
    // Frozen past the lock and a stalled check: the other executor takes its jobs over.
    await waitFor(async () => Number((await r.admin.hget(`${r.prefix}:metrics:takeovers`, 'stalled|executor')) ?? 0) > 0 || (await decidedCount(r)) === CHECKS, RECOVERY_BOUND_MS, 'a takeover');
    frozen.kill('SIGCONT');
    // The thawed executor finishes what it was running: its decisions are refused (first wins), and nothing is announced.
    await assertEveryCallerAnswered(r, await outcomes, pace.faultAt, 'SIGSTOP an executor past its lock, then SIGCONT', { boundMs: recoveryBoundMs(pace, 1 / 2) });
  });

  it('kill -9 one of two executors mid-batch of rate-limited and held refunds: exactly 5 allowed and one approval token per subject', async () => {
    // The refund desk's rails (rate limit: 5 refunds per subject per hour, counted in Redis by job
    // id) in front of a compiled program that takes RUN_MS, so the kill lands between a job's
    // rate-limit count and its decision for some jobs.
    const policy: PolicyInput = {
      ...refundDesk,
      id: 'refund-desk-slow',
      requests: 'Never refund when the stated reason mentions fraud.',
      mode: 'compiled',
      program: `const end = Date.now() + ${RUN_MS}; while (Date.now() < end) {}
const reason = String(context.action?.args?.reason ?? ''); return /fraud/i.test(reason) ? { deny: true, reasons: ['reason mentions fraud'] } : { deny: false, reasons: [] };`,
      examples: [
        { input: '', subject: { id: 'u-0', roles: ['support_agent'] }, action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-0', amount: 10, reason: 'fraud test' } }, label: 1 },
        { input: '', subject: { id: 'u-0', roles: ['support_agent'] }, action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: 'u-0', amount: 10, reason: 'broken item' } }, label: 0 },
      ],
    };
    const r = await startRig({ aof: 'off', executors: 2, policy });
    const perSubject = 10;
    const subjects = CHECKS / perSubject;
    // Each subject asks for 9 small refunds and one of 80, which the rails hold for approval (a
    // held call is not counted against the rate limit: its approved retry is). The held ones are
    // the third round of the batch, so some are in flight when the kill lands.
    const held = (i: number) => Math.floor(i / subjects) === 2;
    const refund = (i: number) => {
      const id = `u-${i % subjects}`;
      const amount = held(i) ? 80 : 10;
      return { policy: 'refund-desk-slow', subject: { id, roles: ['support_agent'] }, action: { kind: 'tool_call' as const, tool: 'issue_refund', args: { user_id: id, amount, reason: 'broken item' } } };
    };
    const outcomes = checkAll(r, refund);
    const pace = await quarterDecided(r, 'a quarter of the refunds decided');
    r.executors.children[0].kill('SIGKILL');
    const decisions = await assertEveryCallerAnswered(r, await outcomes, pace.faultAt, 'kill -9 one of two executors mid-batch of rate-limited refunds', {
      boundMs: recoveryBoundMs(pace, 1 / 2),
      judge: (i, decision) => expect(decision.status, `refund ${i}: ${decision.reasons.join('; ')}`).toBe('ok'),
      notes: `exactly 5 of 9 small refunds allowed, and one held refund with one approval token, for each of ${subjects} subjects`,
    });
    // Exact per subject: a job re-run after the kill is counted once by the rate limiter.
    for (let s = 0; s < subjects; s++) {
      const mine = decisions.filter((_, i) => i % subjects === s && !held(i));
      expect(mine.filter((d) => d.decision === 'allow'), `subject u-${s}`).toHaveLength(5);
      expect(mine.filter((d) => d.decision === 'deny' && d.rules.some((rule) => rule.includes('rate'))), `subject u-${s}`).toHaveLength(4);
    }
    // One approval token per held call, the one its caller got: a held job re-run after the kill
    // (say, killed between storing its decision and completing the job) records no second token.
    const pending = decisions.filter((d, i) => held(i) && d.decision === 'pending');
    expect(pending).toHaveLength(subjects);
    const tokens = await r.admin.keys(`${r.prefix}:approval:*`);
    expect(tokens).toHaveLength(subjects);
    const approvals = new RedisApprovalStore({ redis: r.admin, prefix: r.prefix });
    for (const decision of pending) expect(await approvals.get(decision.approval!.token)).toMatchObject({ status: 'pending', tool: 'issue_refund' });
  });

  it('Redis SIGKILLed and restarted (AOF always): every accepted submit is decided once, check() callers get theirs', async () => {
    const r = await startRig({ aof: 'always', executors: 2 });
    const accepted: Array<{ i: number; id: string }> = [];
    let refused = 0;
    let next = 0;
    let faultAt = 0;
    const submitter = async () => {
      while (next < CHECKS) {
        const i = next++;
        try {
          accepted.push({ i, id: (await r.client.submit(jobFor(i))).id });
        } catch {
          refused += 1; // a clear error during the outage: the caller knows to retry
        }
        if (i === Math.floor(CHECKS / 3)) {
          faultAt = Date.now();
          r.redis.kill();
          await new Promise((resolve) => setTimeout(resolve, 500)); // the outage: Redis stays down half a second
          await r.redis.restart();
        }
      }
    };
    // Callers waiting on check() across the restart (their guard runs take 0.8 s, so they are
    // still running when Redis dies): their decisions must reach them.
    const waiting = Array.from({ length: 10 }, (_, k) =>
      r.client.check({ ...jobFor(k), input: { ...jobFor(k).input, ms: 800 } }, { timeoutMs: RECOVERY_BOUND_MS + 30_000 }).then(
        (decision) => ({ k, decision }),
        (error: unknown) => ({ k, error }),
      ),
    );
    await Promise.all(Array.from({ length: 8 }, submitter));
    const ids = accepted.map((a) => a.id);
    const decisions = await waitFor(
      async () => {
        // The client fails fast while its connection is still coming back: read again then.
        const all = await r.client.resultsMany(ids).catch(() => null);
        return all?.every(Boolean) ? (all as Decision[]) : null;
      },
      RECOVERY_BOUND_MS + 30_000,
      'every accepted submit to be decided',
    );
    const recoveryMs = Date.now() - faultAt;
    if (process.env.CHAOS_LOGS) process.stderr.write(r.executors.log());
    // Quiet, useful logs: the outage is one line when lost and one when back per process, no
    // unhandled error events or stack traces, and not a line per job retried across it.
    for (const [pid, log] of r.executors.logs) {
      expect(log, `executor ${pid}`).not.toContain('Unhandled error event');
      expect(log.split('\n').filter((line) => /^\s+at /.test(line)), `executor ${pid}`).toEqual([]);
      const lost = log.split('\n').filter((line) => line.includes('redis connection lost')).length;
      expect(lost, `executor ${pid}`).toBeGreaterThanOrEqual(1);
      expect(lost, `executor ${pid}`).toBeLessThanOrEqual(2);
      expect(log.split('\n').filter((line) => line.includes('stage job failed')), `executor ${pid}`).toEqual([]);
    }
    decisions.forEach((decision, n) => {
      decidedOrFailedClosed(accepted[n]!.i, decision);
    });
    const waited = await Promise.all(waiting);
    const timedOut = waited.filter((w) => 'error' in w && w.error instanceof CheckTimeoutError);
    expect(timedOut).toHaveLength(0);
    const answered = waited.filter((w) => 'decision' in w).length;
    // Their jobs were queued before the outage: every caller gets its decision, none an error.
    expect(waited.filter((w) => 'error' in w).map((w) => String((w as { error: unknown }).error))).toEqual([]);
    const duplicates = duplicateAnnouncements(r);
    expect(duplicates).toBe(0);
    report({
      fault: 'Redis SIGKILL and restart, AOF always',
      checks: accepted.length,
      decided: decisions.length,
      storedDecisions: await decidedCount(r),
      duplicateAnnouncements: duplicates,
      recoveryMs,
      notes: `${refused} submits refused during the outage with an error; ${decisions.filter((d) => d.status !== 'ok').length} decided fail-closed; ${answered}/10 check() callers waiting across the outage answered`,
    });
  });
  it('Redis at maxmemory mid-batch: new submits refused with STORE_FULL, every accepted check answered once after memory is freed', async () => {
    const r = await startRig({ aof: 'off', executors: 2 });
    const outcomes = checkAll(r);
    const pace = await quarterDecided(r);
    // Past full at once: maxmemory below what Redis uses now, so every write (an answer, a lock
    // renewal, a job moved) is refused with OOM while executors are mid-batch.
    const used = parseMemoryInfo(await r.admin.info('memory')).usedBytes;
    await r.admin.config('SET', 'maxmemory', String(Math.floor(used * 0.9)));
    const late = await QueueTransport.connect({ redisUrl: r.redis.url, prefix: r.prefix });
    let refusal: unknown;
    try {
      refusal = await late.submit(jobFor(0)).catch((error: unknown) => error);
    } finally {
      await late.close();
    }
    // Full for two seconds (longer than a job's retries), then room again.
    const atFull = await decidedCount(r);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // Answers still get through past the limit: Redis refuses a write that needs memory inside a
    // script only if the script has written nothing yet, and the decision script's first write
    // (ZREM from the in-flight set) needs none. Seen here: no job taken over, none failed.
    const answeredWhileFull = (await decidedCount(r)) - atFull;
    const faultAt = Date.now();
    await r.admin.config('SET', 'maxmemory', '0');
    expect(refusal).toMatchObject({ code: 'STORE_FULL' });
    const settled = await outcomes;
    const failClosed = settled.filter((o) => o.decision && o.decision.status !== 'ok').length;
    const decisions = await assertEveryCallerAnswered(r, settled, faultAt, 'Redis at maxmemory for 2 s mid-batch', {
      boundMs: recoveryBoundMs({ ...pace, faultAt }, 1),
      notes: `a submit while full refused with STORE_FULL; ${answeredWhileFull} checks answered while past maxmemory; ${failClosed} decided fail-closed`,
      judge: decidedOrFailedClosed,
    });
    expect(decisions.filter((d) => d.status === 'ok').length).toBeGreaterThan(CHECKS / 4);
  });

  it('simulated OS crash under AOF everysec (the last second of the AOF cut): only submits accepted in that second are lost; the rest are decided once', async () => {
    // appendfsync everysec asks the kernel to fsync about once a second, so an OS crash (not a
    // Redis crash: the kernel still holds what Redis wrote) can lose up to about the last second
    // of writes. Simulated as the report did: SIGKILL Redis, cut its AOF back to its size
    // one second earlier, restart. This measures what that window means in accepted jobs.
    const r = await startRig({ aof: 'everysec', executors: 2 });
    const samples: Array<{ at: number; size: number }> = [];
    const sampler = setInterval(() => samples.push({ at: Date.now(), size: statSync(r.redis.aofFile()).size }), 20);
    const accepted: Array<{ i: number; id: string; at: number }> = [];
    let next = 0;
    let stop = false;
    // A steady submit rate (8 loops, each pausing between submits), so the backlog the executors
    // face after the restart stays within the recovery bound.
    const ratePerSecond = FULL ? 1000 : 300;
    const submitter = async () => {
      while (!stop) {
        const i = next++;
        try {
          const { id } = await r.client.submit(jobFor(i));
          accepted.push({ i, id, at: Date.now() });
          await new Promise((resolve) => setTimeout(resolve, (8 * 1000) / ratePerSecond));
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 50)); // Redis down longer than the client's retries
        }
      }
    };
    const loops = Array.from({ length: 8 }, submitter);
    let kept: { at: number; size: number } | undefined;
    let crashAt = 0;
    try {
      await waitFor(async () => accepted.length >= CHECKS && samples.some((x) => x.at <= Date.now() - 1500), 60_000, 'submits before the crash');
      crashAt = Date.now();
      kept = [...samples].reverse().find((x) => x.at <= crashAt - 1000);
      clearInterval(sampler);
      r.redis.kill();
      await r.redis.exited();
      truncateSync(r.redis.aofFile(), kept!.size);
      await r.redis.restart();
      const afterRestart = accepted.length;
      await waitFor(async () => accepted.length >= afterRestart + 50, 60_000, 'submits after the restart');
    } finally {
      clearInterval(sampler);
      stop = true;
      await Promise.all(loops);
    }

    // A submit accepted before the kept point is in the AOF (Redis writes a command to the file
    // before it answers); the ones after it may be lost. Wait until every accepted job is decided,
    // gone (no job and no decision), or completed with its decision cut (an executor stored the
    // decision after the kept point and completed the job after the restart).
    const queue = r.client['queues'].queue('executor');
    let waitingOn = '';
    const outcome = await waitFor(
      async () => {
        const decisions = await r.client.resultsMany(accepted.map((a) => a.id)).catch(() => null);
        if (!decisions) return null;
        const lost: typeof accepted = [];
        const decisionCut: Array<{ id: string; finishedOn: number }> = [];
        const undecided = accepted.filter((_, n) => !decisions[n]);
        // A check travels in its own job or in a chunk job: find each one's job among them all.
        const jobOf = new Map<string, Job>();
        for (const job of await queue.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed', 'prioritized'], 0, -1)) {
          for (const check of checksCarried(job)) jobOf.set((check as { jobId: string }).jobId, job);
        }
        const jobs = undecided.map((a) => jobOf.get(a.id));
        for (const [n, a] of undecided.entries()) {
          const job = jobs[n];
          if (!job) {
            lost.push(a);
            continue;
          }
          if (job.finishedOn === undefined || (await job.getState()) !== 'completed' || !storedADecision(job, a.id)) {
            // Still on its way; said in the failure message if it never arrives.
            waitingOn = `${undecided.length - n} undecided jobs left, the first ${a.id}: ${await job.getState()}, ${JSON.stringify({ ...job.toJSON(), data: undefined, opts: undefined })}; queue ${JSON.stringify(await queue.getJobCounts())}`;
            return null;
          }
          // Decided and completed between this poll's two reads, or its decision cut: read again.
          if (await r.client.result(a.id)) return null;
          decisionCut.push({ id: a.id, finishedOn: job.finishedOn });
        }
        return { decisions, lost, decisionCut };
      },
      RECOVERY_BOUND_MS + 30_000,
      'every accepted submit decided or known lost',
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; ${waitingOn}`);
    });
    const recoveryMs = Date.now() - crashAt;
    if (process.env.CHAOS_LOGS) process.stderr.write(r.executors.log());
    const windowMs = crashAt - kept!.at;
    expect(outcome.lost.every((a) => a.at >= kept!.at - 20), 'a lost submit was accepted before the kept point').toBe(true);
    // A cut decision was made after the kept point (the job completes just after its decision is stored).
    expect(outcome.decisionCut.every((c) => c.finishedOn >= kept!.at - 20), 'a cut decision was made before the kept point').toBe(true);
    // Exactly one stored decision for every job that was neither lost nor had its decision cut.
    const decided = accepted.length - outcome.lost.length - outcome.decisionCut.length;
    const storedDecisions = await decidedCount(r);
    expect(storedDecisions).toBe(decided);
    outcome.decisions.forEach((decision, n) => {
      if (decision) decidedOrFailedClosed(accepted[n]!.i, decision);
    });
    // Submits have no reply channel: nothing is announced, so nothing twice.
    const duplicates = duplicateAnnouncements(r);
    expect(duplicates).toBe(0);
    const inWindow = accepted.filter((a) => a.at >= kept!.at && a.at <= crashAt).length;
    report({
      fault: 'simulated OS crash, AOF everysec (AOF cut back 1 s)',
      checks: accepted.length,
      decided,
      storedDecisions,
      duplicateAnnouncements: duplicates,
      recoveryMs,
      notes: `${outcome.lost.length} accepted submits lost, all accepted in the last ${windowMs} ms before the crash (${inWindow} were accepted in that window); ${outcome.decisionCut.length} jobs completed after the restart with their decision cut (GET answers DECISION_LOST)`,
    });
  });
});
