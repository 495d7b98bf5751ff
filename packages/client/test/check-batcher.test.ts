import { describe, expect, it } from 'vitest';
import { newPipelineState, type PipelineState } from '@guardagent/queue';
import { CheckBatcher, checkChars, splitIntoChunks, type LingerScheduler } from '../src/check-batcher';

const check = (n: number, input = `input ${n}`): PipelineState =>
  newPipelineState({
    jobId: `job-${n}`,
    tenant: 'default',
    purpose: 'check',
    policy: { id: 'p', version: '1', digest: 'd', programDigest: 'pd' },
    job: { input, output: '', context: {} },
    replyTo: null,
    trace: {},
    submittedAt: n,
  });

/** A scheduler that runs nothing until the test says so, and records every linger asked for. */
function manualScheduler() {
  const pending: Array<() => void> = [];
  const lingers: number[] = [];
  const schedule: LingerScheduler = (flush, lingerMs) => {
    pending.push(flush);
    lingers.push(lingerMs);
  };
  const runAll = () => {
    for (const flush of pending.splice(0)) flush();
  };
  return { schedule, lingers, runAll };
}

describe('CheckBatcher (micro-batching at the producer)', () => {
  it('sends a lone check at the first scheduled turn, with the configured linger and nothing else to wait for', async () => {
    const clock = manualScheduler();
    const sent: string[][] = [];
    const batcher = new CheckBatcher({ maxChunk: 128, lingerMs: 0, schedule: clock.schedule, send: async (checks) => void sent.push(checks.map((c) => c.jobId)) });
    const queued = batcher.add(check(1));
    // Nothing is sent before the linger's one turn; exactly one turn, of linger 0, was asked for.
    expect(sent).toEqual([]);
    expect(clock.lingers).toEqual([0]);
    clock.runAll();
    await queued;
    expect(sent).toEqual([['job-1']]);
  });

  it('puts the checks submitted before the turn into one chunk, and later ones into the next', async () => {
    const clock = manualScheduler();
    const sent: string[][] = [];
    const batcher = new CheckBatcher({ maxChunk: 128, lingerMs: 2, schedule: clock.schedule, send: async (checks) => void sent.push(checks.map((c) => c.jobId)) });
    const first = [1, 2, 3].map((n) => batcher.add(check(n)));
    clock.runAll();
    const second = [4, 5].map((n) => batcher.add(check(n)));
    clock.runAll();
    await Promise.all([...first, ...second]);
    expect(sent).toEqual([['job-1', 'job-2', 'job-3'], ['job-4', 'job-5']]);
    expect(clock.lingers).toEqual([2, 2]);
  });

  it('sends a full chunk at once, without waiting for its turn, and the turn then sends nothing twice', async () => {
    const clock = manualScheduler();
    const sent: string[][] = [];
    const batcher = new CheckBatcher({ maxChunk: 3, lingerMs: 0, schedule: clock.schedule, send: async (checks) => void sent.push(checks.map((c) => c.jobId)) });
    const queued = [1, 2, 3, 4].map((n) => batcher.add(check(n)));
    await Promise.all(queued.slice(0, 3));
    expect(sent).toEqual([['job-1', 'job-2', 'job-3']]);
    clock.runAll();
    await queued[3];
    expect(sent).toEqual([['job-1', 'job-2', 'job-3'], ['job-4']]);
  });

  it("rejects every check of a chunk that could not be queued, and only that chunk's", async () => {
    const clock = manualScheduler();
    let calls = 0;
    const batcher = new CheckBatcher({
      maxChunk: 128,
      lingerMs: 0,
      schedule: clock.schedule,
      send: async () => {
        if (calls++ === 0) throw new Error('STORE_FULL');
      },
    });
    const failed = [batcher.add(check(1)), batcher.add(check(2))];
    clock.runAll();
    const results = await Promise.allSettled(failed);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const next = batcher.add(check(3));
    clock.runAll();
    await expect(next).resolves.toBeUndefined();
  });

  it('bounds a chunk by its text as well as by count: a huge check goes alone, a big one starts the next chunk', async () => {
    const clock = manualScheduler();
    const sent: string[][] = [];
    const batcher = new CheckBatcher({ maxChunk: 128, maxChars: 1000, lingerMs: 0, schedule: clock.schedule, send: async (checks) => void sent.push(checks.map((c) => c.jobId)) });
    const queued = [
      batcher.add(check(1, 'a'.repeat(400))),
      batcher.add(check(2, 'b'.repeat(400))),
      // 400 + 400 + 400 > 1000: the open chunk goes, this one opens the next.
      batcher.add(check(3, 'c'.repeat(400))),
      // Bigger than a whole chunk: the open chunk goes first, then this one, alone, at once.
      batcher.add(check(4, 'd'.repeat(5000))),
      batcher.add(check(5)),
    ];
    expect(sent).toEqual([['job-1', 'job-2'], ['job-3'], ['job-4']]);
    clock.runAll();
    await Promise.all(queued);
    expect(sent).toEqual([['job-1', 'job-2'], ['job-3'], ['job-4'], ['job-5']]);
  });

  it('splits a batch the same way, and sizes JSON input and context as JSON', () => {
    const json = { ...check(9), job: { input: { text: 'x'.repeat(100) }, output: 'yy', context: { k: 'v' } } };
    expect(checkChars(json)).toBe(JSON.stringify({ text: 'x'.repeat(100) }).length + 2 + JSON.stringify({ k: 'v' }).length);
    const checks = [check(1, 'a'.repeat(600)), check(2, 'b'.repeat(600)), check(3), check(4), check(5)];
    expect(splitIntoChunks(checks, 2, 1000).map((chunk) => chunk.map((c) => c.jobId))).toEqual([['job-1'], ['job-2', 'job-3'], ['job-4', 'job-5']]);
  });
});
