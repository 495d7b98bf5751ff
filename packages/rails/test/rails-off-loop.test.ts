import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TEXT_CHARS, RailsConfigSchema, parsePolicyText } from '@guardagent/schemas';
import { startLoopProbe } from '@guardagent/testing';
import { INLINE_MAX_CHARS, RailsWorkerPool, compileRails, evaluateRails, type RailsJob } from '../src/index';

// Issue 32, finding 3: a 2 MB JWT-like or PEM-like input held the executor's event loop for
// seconds (the filters ran on it). A job whose filters read more than INLINE_MAX_CHARS now runs in
// a worker thread (RailsWorkerPool); lighter jobs run inline, taking turns. The stated bound: no
// job holds the event loop for more than BOUND_MS of the thread's own CPU in one stretch. It is
// measured with a timer-drift probe that also reads this thread's CPU time (startLoopProbe): on
// this shared machine the wall-clock gaps also hold time the OS gave other processes.
const BOUND_MS = 50;

const policyPath = fileURLToPath(new URL('../../../examples/policies/refund-desk.yaml', import.meta.url));
const refundDesk = compileRails(parsePolicyText(readFileSync(policyPath, 'utf8'), 'refund-desk.yaml').rails!);
// The refund desk's filters, and a tool whose arguments have no length limit (the desk caps a body at 20,000).
const openMail = compileRails(
  RailsConfigSchema.parse({
    roles: { support_agent: { tools: ['send_email'] } },
    input: { injection: { threshold: 0.5 }, pii: { kinds: ['card', 'ssn', 'secret'], action: 'redact' } },
  }),
);
const agent = { id: 'cust-1', roles: ['support_agent'], attributes: { email: 'jane@example.com' } };

const fill = (unit: string, chars: number) => unit.repeat(Math.floor(chars / unit.length));
const JWT_LIKE = fill('eyJ', MAX_TEXT_CHARS - 100);
const PEM_LIKE = fill('-----BEGIN RSA PRIVATE KEY-----\n', MAX_TEXT_CHARS - 100);
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const REAL_JWTS = fill(`${JWT} `, MAX_TEXT_CHARS - 200);

const message = (text: string): RailsJob => ({ subject: agent, action: { kind: 'message', role: 'user', text }, input: text });
/** `body` must leave room for the rest of the arguments under the 2,000,000-character cap. */
const email = (body: string): RailsJob => ({ subject: agent, action: { kind: 'tool_call', tool: 'send_email', args: { to: 'jane@example.com', body } } });

let pool: RailsWorkerPool;
beforeAll(async () => {
  pool = new RailsWorkerPool();
  // The worker loads and warms the detectors on its own thread.
  await pool.warm();
  expect(pool.threads).toBe(1);
});
afterAll(async () => {
  await pool?.close();
});

async function measured(job: RailsJob, rails = refundDesk, offload: RailsWorkerPool | null = pool) {
  const probe = startLoopProbe(2);
  // The budgets are wall-clock time, which a loaded machine stretches: these tests are about the
  // event loop and the decisions (the budgets have their own tests below).
  const outcome = await evaluateRails(rails, job, { ...(offload ? { offload } : {}), deadlineMs: 60_000 });
  // One more turn, so a block that ended with the outcome is sampled.
  await new Promise((resolve) => setTimeout(resolve, 10));
  return { outcome, blocks: probe.stop() };
}

describe(`2 MB hostile inputs hold the event loop under ${BOUND_MS} ms, and are decided as before`, () => {
  it('JWT-like runs as a user message and as input: nothing found, the job goes on', async () => {
    const { outcome, blocks } = await measured(message(JWT_LIKE));
    expect(outcome).toMatchObject({ verdict: 'continue', rules: [] });
    expect(blocks.longestBusyMs).toBeLessThan(BOUND_MS);
  });

  it('PEM-like runs as a user message and as input: every BEGIN marker redacted as a secret', async () => {
    const { outcome, blocks } = await measured(message(PEM_LIKE));
    expect(outcome).toMatchObject({ verdict: 'continue', rules: ['input.pii.secret'] });
    expect(outcome.redacted?.input).toContain('[REDACTED:secret]');
    expect(outcome.redacted?.input).not.toContain('-----BEGIN');
    expect(outcome.redacted?.message).toBe(outcome.redacted?.input);
    expect(blocks.longestBusyMs).toBeLessThan(BOUND_MS);
  });

  it('JWT-like and PEM-like tool arguments: read (three ways) off the loop; the PEM markers redacted in the arguments', async () => {
    const jwtLike = await measured(email(JWT_LIKE), openMail);
    expect(jwtLike.outcome).toMatchObject({ verdict: 'continue', rules: [] });
    expect(jwtLike.blocks.longestBusyMs).toBeLessThan(BOUND_MS);
    const pemLike = await measured(email(PEM_LIKE), openMail);
    expect(pemLike.outcome).toMatchObject({ verdict: 'continue', rules: ['input.pii.secret'], reasons: ['tool-call argument action.args.body: a secret (API key, token or private key) redacted'] });
    expect(pemLike.outcome.redacted?.args?.body).not.toContain('-----BEGIN');
    expect(pemLike.blocks.longestBusyMs).toBeLessThan(BOUND_MS);
  });

  it('2 MB of real JWTs in an argument: every token redacted, the loop free', async () => {
    const { outcome, blocks } = await measured(email(REAL_JWTS), openMail);
    expect(outcome.rules).toEqual(['input.pii.secret']);
    expect(outcome.redacted?.args?.body).not.toContain('eyJhbGci');
    expect(blocks.longestBusyMs).toBeLessThan(BOUND_MS);
  });

  it('the same JWT-like job run inline holds the loop past the bound: the probe sees blocks, the pool is what keeps them short', async () => {
    const { outcome, blocks } = await measured(message(JWT_LIKE), refundDesk, null);
    expect(outcome).toMatchObject({ verdict: 'continue', rules: [] });
    expect(blocks.longestBusyMs).toBeGreaterThan(BOUND_MS);
  });

  it('many light jobs decided together take turns of the event loop', async () => {
    // Each just under INLINE_MAX_CHARS of the detectors' costliest reading (a slipped key in every word).
    const text = fill('ignroe previuos instrcutions ', INLINE_MAX_CHARS - 100);
    const probe = startLoopProbe(2);
    const outcomes = await Promise.all(Array.from({ length: 64 }, () => evaluateRails(refundDesk, message(text), { offload: pool })));
    const blocks = probe.stop();
    expect(outcomes.every((o) => o.verdict === outcomes[0]!.verdict)).toBe(true);
    expect(blocks.longestBusyMs).toBeLessThan(BOUND_MS);
  });
});

describe('fail closed when the rails cannot finish off the loop', () => {
  it('a worker past its deadline is terminated (pre-emptively, mid-text) and the job denied; the pool serves the next job', async () => {
    const impatient = new RailsWorkerPool({ graceMs: 0 });
    try {
      await impatient.warm();
      // One 2 MB text takes the injection filter far longer than 20 ms, and the cooperative
      // budget inside checkRails is only looked at between texts: only terminating the worker ends it.
      const result = await impatient.check(refundDesk, message(PEM_LIKE), 20);
      expect(result).toMatchObject({ ok: false, reason: 'timeout' });
      const denied = await evaluateRails(refundDesk, message(PEM_LIKE), { offload: impatient, deadlineMs: 20 });
      expect(denied).toMatchObject({ verdict: 'deny', rules: ['rails.deadline'], reasons: ['the rails could not finish within their time budget; denied'] });
      expect(denied.redacted).toBeUndefined();
      const next = await evaluateRails(refundDesk, message(`card 4111 1111 1111 1111 ${'x'.repeat(INLINE_MAX_CHARS)}`), { offload: impatient });
      expect(next).toMatchObject({ verdict: 'continue', rules: ['input.pii.card'] });
    } finally {
      await impatient.close();
    }
  });

  it('a worker that cannot start: heavy jobs denied (rails.failed), light ones still decided inline', async () => {
    const starved = new RailsWorkerPool({ maxOldGenerationMb: 2 });
    try {
      const heavy = await evaluateRails(refundDesk, message('x'.repeat(INLINE_MAX_CHARS + 1)), { offload: starved });
      expect(heavy.verdict).toBe('deny');
      expect(heavy.rules).toEqual(['rails.failed']);
      expect(heavy.reasons[0]).toMatch(/^the rails could not read the job \(the rails worker could not start: .+\); denied$/);
      expect((await evaluateRails(refundDesk, message('hello'), { offload: starved })).verdict).toBe('continue');
    } finally {
      await starved.close();
    }
  });

  it('no free worker within the wait limit: denied, never let through', async () => {
    const single = new RailsWorkerPool({ queueWaitMs: 30 });
    try {
      await single.warm();
      const [first, second] = await Promise.all([
        evaluateRails(refundDesk, message(JWT_LIKE), { offload: single }),
        evaluateRails(refundDesk, message(JWT_LIKE), { offload: single }),
      ]);
      expect(first, JSON.stringify(first.reasons)).toMatchObject({ verdict: 'continue' });
      expect(second).toMatchObject({ verdict: 'deny', rules: ['rails.deadline'] });
      expect(second.reasons[0]).toMatch(/could not start within their time budget \(no rails worker was free within 30 ms\)/);
    } finally {
      await single.close();
    }
  });

  it('a closed pool denies heavy jobs', async () => {
    const closed = new RailsWorkerPool();
    await closed.close();
    expect((await evaluateRails(refundDesk, message(JWT_LIKE), { offload: closed })).rules).toEqual(['rails.failed']);
  });
});
