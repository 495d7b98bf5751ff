import { describe, expect, it } from 'vitest';
import type { DecisionLogEntry, GuardJobInput } from '@guardagent/schemas';
import { replayCheckId, replayJobKey, ReplayStalledError, runReplay, type DecisionSummary, type ReplayDeps } from '../src/index';

const entry = (id: string, decision: 'allow' | 'deny', amount: number | null): DecisionLogEntry => ({
  id,
  at: '2026-11-25T00:00:00.000Z',
  policy: { id: 'refunds', version: '1', digest: 'd1' },
  job: amount === null ? null : { input: 'refund', output: '', context: { amount }, subject: { id: `u-${id}`, roles: ['clerk'], attributes: {} } },
  ...(amount === null ? { jobOmitted: 'too large' } : {}),
  decision,
  status: 'ok',
  layer: 'guardagent',
  mode: 'compiled',
  reasons: decision === 'deny' ? ['over 100'] : [],
  rules: [],
  timings: {},
});

async function* each<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/**
 * A fake deployment: queued checks are decided by `decide` one poll after they were queued (the
 * stricter version denies over 10), and the clock moves only when the replay sleeps.
 */
function fakeDeployment(entries: DecisionLogEntry[], options: { decide?: boolean } = {}) {
  let clock = 0;
  const queued = new Map<string, { job: GuardJobInput; polled: number }>();
  const submitted: GuardJobInput[][] = [];
  let outstanding = 0;
  let mostOutstanding = 0;
  const deps: ReplayDeps = {
    entries: each(entries),
    async submit(jobs) {
      submitted.push(jobs);
      for (const job of jobs) queued.set(replayCheckId('t', 'r1', job.idempotencyKey!.split(':')[2]), { job, polled: 0 });
      outstanding += jobs.length;
      mostOutstanding = Math.max(mostOutstanding, outstanding);
    },
    async decisions(ids) {
      return ids.map((id): DecisionSummary | null => {
        const check = queued.get(id);
        if (!check || options.decide === false || check.polled++ < 1) return null;
        queued.delete(id);
        outstanding--;
        const amount = Number((check.job.context as { amount: number }).amount);
        return amount > 10 ? { decision: 'deny', status: 'ok', reasons: [`over 10`], rules: [] } : { decision: 'allow', status: 'ok', reasons: [], rules: [] };
      });
    },
    async onProgress() {},
    async sleep(ms) {
      clock += ms;
    },
    now: () => clock,
  };
  return { deps, submitted, mostOutstanding: () => mostOutstanding };
}

const options = { tenant: 't', replayId: 'r1', limit: 1000, chunkSize: 2, maxInFlight: 4, pollMs: 100, idleTimeoutMs: 10_000 };

describe('runReplay', () => {
  it('re-decides in chunks with a bounded number outstanding, and diffs each entry against its own replayed decision', async () => {
    const entries = [entry('a', 'allow', 5), entry('b', 'allow', 50), entry('c', 'deny', 500), entry('d', 'allow', null), ...Array.from({ length: 9 }, (_, i) => entry(`n${i}`, 'allow', 1))];
    const fake = fakeDeployment(entries);
    const { diff, progress } = await runReplay(fake.deps, options);
    expect(progress).toEqual({ read: 13, submitted: 12, decided: 12, truncated: false });
    expect(diff).toMatchObject({ recorded: 13, compared: 12, notReplayable: 1, missing: 0, unchanged: 10, flips: 1 });
    expect(diff.changes['allow→deny']).toBe(1);
    expect(diff.changes['reasons or rules changed']).toBe(1);
    expect(diff.examples['allow→deny']).toEqual([{ id: 'b', recorded: { decision: 'allow', status: 'ok', reasons: [], rules: [] }, replayed: { decision: 'deny', status: 'ok', reasons: ['over 10'], rules: [] } }]);
    expect(diff.byRole).toEqual({ clerk: { 'allow→deny': 1, 'reasons or rules changed': 1 } });
    // Chunks of 2; never more than maxInFlight + one chunk outstanding.
    expect(fake.submitted.every((chunk) => chunk.length <= 2)).toBe(true);
    expect(fake.mostOutstanding()).toBeLessThan(options.maxInFlight + options.chunkSize);
    // Each job is the recorded one, under the replay's own key, with no text of the log entry beyond its job.
    expect(fake.submitted[0][0]).toEqual({ idempotencyKey: replayJobKey('r1', 'a'), policy: 'refunds', input: 'refund', output: '', context: { amount: 5 }, subject: { id: 'u-a', roles: ['clerk'], attributes: {} } });
  });

  it('stops at the limit and says so', async () => {
    const fake = fakeDeployment([entry('a', 'allow', 5), entry('b', 'allow', 50), entry('c', 'allow', 1)]);
    const { diff, progress } = await runReplay(fake.deps, { ...options, limit: 2 });
    expect(progress).toMatchObject({ read: 2, truncated: true });
    expect(diff.recorded).toBe(2);
  });

  it('gives up with REPLAY_STALLED when no decision arrives, and stops when aborted', async () => {
    const stalled = fakeDeployment([entry('a', 'allow', 5)], { decide: false });
    const error = await runReplay(stalled.deps, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayStalledError);
    expect((error as ReplayStalledError).code).toBe('REPLAY_STALLED');

    const controller = new AbortController();
    const aborted = fakeDeployment([entry('a', 'allow', 5)], { decide: false });
    aborted.deps.signal = controller.signal;
    aborted.deps.sleep = async () => controller.abort(new Error('stopped'));
    await expect(runReplay(aborted.deps, options)).rejects.toThrow('stopped');
  });
});
