import { describe, expect, it } from 'vitest';
import { newPipelineState } from '@guardagent/queue';
import { RailsWorkerPool, redactPiiDeep, type OffloadResult, type RailsOffload } from '@guardagent/rails';
import type { DecisionLogEntry } from '@guardagent/schemas';
import { testDecision } from '@guardagent/testing';
import { MAX_LOG_ENTRY_CHARS, decisionLogEntry } from '../../packages/pipeline/src/decision-log-entry';

// How a decision log entry is redacted (the end-to-end reading back from Redis is in
// decision-log.test.ts): every PII kind, everywhere, inline for a light job and off the event loop
// for a heavy one, and never recorded unredacted when the redaction cannot be had.
const CARD = '4111 1111 1111 1111';

const stateWith = (input: string) =>
  newPipelineState({
    jobId: 'j1',
    tenant: 't',
    purpose: 'check',
    policy: { id: 'p', version: '1', digest: 'd', programDigest: 'pd' },
    job: { input, output: '', context: { approvalToken: 'apv_x', note: `card ${CARD}` }, subject: { id: 'u', roles: [], attributes: { card: CARD } } },
    replyTo: null,
    trace: {},
    submittedAt: 0,
    logDecision: true,
  });
const decision = testDecision('j1', { decision: 'deny', layer: 'guardagent', reasons: [`the card ${CARD} is blocked`], error: { code: 'X', message: `saw ${CARD}` } });

/** An offload that counts its calls and answers as told. */
function fakeOffload(answer: (value: unknown) => OffloadResult<unknown>): RailsOffload & { calls: number } {
  const fake = {
    calls: 0,
    check: () => Promise.reject(new Error('not used')),
    redact: <T,>(value: T) => {
      fake.calls++;
      return Promise.resolve(answer(value) as OffloadResult<T>);
    },
  };
  return fake;
}

const parse = (text: string) => JSON.parse(text) as DecisionLogEntry & { jobOmitted?: string };

describe('decisionLogEntry', () => {
  it('a light job: redacted inline, everywhere; never the approval token', async () => {
    const offload = fakeOffload((v) => ({ ok: true, value: redactPiiDeep(v) }));
    const entry = parse(await decisionLogEntry(stateWith(`pay with ${CARD}`), decision, offload));
    expect(offload.calls).toBe(0);
    expect(entry.job).toMatchObject({ input: 'pay with [REDACTED:card]', context: { note: 'card [REDACTED:card]' }, subject: { attributes: { card: '[REDACTED:card]' } } });
    expect(entry.job?.context).not.toHaveProperty('approvalToken');
    expect(entry.reasons).toEqual(['the card [REDACTED:card] is blocked']);
    expect(entry.error).toEqual({ code: 'X', message: 'saw [REDACTED:card]' });
  });

  it('a heavy job: redacted off the event loop, by the real worker thread', async () => {
    const pool = new RailsWorkerPool();
    try {
      let calls = 0;
      const counting: RailsOffload = { check: pool.check.bind(pool), redact: (value, ms) => {
        calls++;
        return pool.redact(value, ms);
      },
    };
      const heavy = `${'x '.repeat(20_000)}pay with ${CARD}`;
      const entry = parse(await decisionLogEntry(stateWith(heavy), decision, counting));
      expect(calls).toBe(1);
      expect(entry.job?.input).toBe(`${'x '.repeat(20_000)}pay with [REDACTED:card]`);
      expect(JSON.stringify(entry)).not.toContain('4111');
    } finally {
      await pool.close();
    }
  });

  it('when the redaction cannot be had, the job is not recorded (fail closed), the decision still is', async () => {
    const offload = fakeOffload(() => ({ ok: false, reason: 'timeout', message: 'the rails did not finish within 6000 ms' }));
    const entry = parse(await decisionLogEntry(stateWith(`${'x '.repeat(20_000)}${CARD}`), decision, offload));
    expect(offload.calls).toBe(1);
    expect(entry.job).toBeNull();
    expect(entry.jobOmitted).toBe('the job could not be redacted (the rails did not finish within 6000 ms)');
    expect(entry.reasons).toEqual(['the card [REDACTED:card] is blocked']);
    expect(JSON.stringify(entry)).not.toContain('4111');
  });

  it('a job too large to record is not read at all', async () => {
    const offload = fakeOffload(() => ({ ok: true, value: null }));
    const entry = parse(await decisionLogEntry(stateWith('y'.repeat(MAX_LOG_ENTRY_CHARS + 1)), decision, offload));
    expect(offload.calls).toBe(0);
    expect(entry.job).toBeNull();
    expect(entry.jobOmitted).toBe('the job is too large to record');
  });
});
