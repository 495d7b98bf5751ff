import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, unusedBaseUrl, type FakeLlmServer } from '@guardagent/testing';
import { ValidationError } from '@guardagent/errors';
import type { PolicyInput } from '@guardagent/schemas';
import { startTestStack, testLlm, type TestStack } from '../helpers/pipeline-stack';

const policy: PolicyInput = {
  id: 'hotel-age',
  specification: 'A travel agent that books hotels for users.',
  requests: 'Users under 18 cannot book a hotel.',
  mode: 'per-request',
  demonstrations: [
    { input: 'Task: book a hotel\nage: 12', output: 'ACTION: CLICK Book', plan: '1. age >= 18 needed', code: 'return { deny: true, reasons: ["under 18"] };' },
  ],
};

const planReply = { content: '1. Key points: age >= 18 to book hotels.\n2. Applies: the task books a hotel.\n3. Output books.\n4. Compare age with 18.' };
const codeReply = (code: string) => ({ content: `Here is the code:\n\`\`\`javascript\n${code}\n\`\`\`` });
const ageCode = `const age = Number(/age: (\\d+)/.exec(input)[1]);
return age < 18 ? { deny: true, reasons: ['User aged under 18 cannot book a hotel'] } : { deny: false, reasons: [] };`;

describe('per-request pipeline (planner → codegen → executor ⇄ debugger)', () => {
  let llm: FakeLlmServer;
  let stack: TestStack;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    stack = await startTestStack({ llm: testLlm(llm.baseURL), config: { maxDebugRounds: 3 } });
    await stack.client.putPolicy(policy);
  });
  afterAll(async () => {
    await stack.stop();
    await llm.close();
  });
  afterEach(() => {
    llm.requests.length = 0;
  });

  it('denies when the generated code says so, with plan, code, timings and usage', async () => {
    llm.enqueue(planReply, codeReply(ageCode));
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: book a hotel in Rome\nage: 15', output: 'ACTION: CLICK Book now' });
    expect(decision).toMatchObject({ decision: 'deny', status: 'ok', layer: 'guardagent', mode: 'per-request', attempts: 1 });
    expect(decision.reasons).toEqual(['User aged under 18 cannot book a hotel']);
    expect(decision.plan).toContain('Compare age with 18');
    expect(decision.code).toBe(ageCode);
    expect(decision.usage.calls).toBe(2);
    expect(decision.usage.promptTokens).toBeGreaterThan(0);
    for (const stage of ['retrieve', 'plan', 'codegen', 'execute', 'total']) expect(decision.timings[stage]).toBeGreaterThanOrEqual(0);
    // The planner saw the demonstration's plan but not its code; codegen saw the code.
    const [planRequest, codegenRequest] = llm.requests.map((r) => JSON.stringify(r.body.messages));
    expect(planRequest).toContain('age >= 18 needed');
    expect(planRequest).not.toContain('reasons: [\\"under 18\\"]');
    expect(codegenRequest).toContain('under 18');
    expect(await stack.client.result(decision.id)).toEqual(decision);
  });

  it('stores a large job once: later hops carry no copy of its text, and every stage still sees it', async () => {
    llm.enqueue(planReply, codeReply(ageCode));
    const notes = 'n'.repeat(50_000);
    const decision = await stack.client.check({ policy: 'hotel-age', input: `Task: book a hotel\nage: 16\n${notes}`, output: 'ACTION: CLICK Book' });
    expect(decision).toMatchObject({ decision: 'deny', status: 'ok', mode: 'per-request' });
    // The planner and codegen prompts had the text (read back from the stored payload).
    expect(JSON.stringify(llm.requests[0].body.messages)).toContain('age: 16');
    const runtime = stack.runtime!;
    const hops = await Promise.all(
      [['memory', 1], ['planner', 2], ['codegen', 3], ['executor', 4]].map(async ([stage, step]) =>
        runtime.redis.hget(`${stack.prefix}:${stage}:${decision.id}__${step}`, 'data'),
      ),
    );
    expect(hops.every((data) => data !== null)).toBe(true);
    for (const data of hops) {
      expect(data!.length).toBeLessThan(20_000);
      expect(JSON.parse(data!).state).toMatchObject({ jobStored: true, job: { input: '' } });
    }
  });

  it('allows when the generated code says so', async () => {
    llm.enqueue(planReply, codeReply(ageCode));
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: book a hotel\nage: 40', output: 'ACTION: CLICK Book' });
    expect(decision).toMatchObject({ decision: 'allow', status: 'ok', reasons: [] });
  });

  it('repairs code that throws through the debugger', async () => {
    llm.enqueue(planReply, codeReply('return { deny: missingHelper(input) };'), codeReply(ageCode));
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: hotel\nage: 10', output: 'x' });
    expect(decision).toMatchObject({ decision: 'deny', status: 'ok', attempts: 2 });
    expect(decision.usage.calls).toBe(3);
    const debugRequest = JSON.stringify(llm.requests[2].body.messages);
    expect(debugRequest).toContain('missingHelper');
    expect(debugRequest).toMatch(/ReferenceError|reference/);
  });

  it('fails closed when the debugger runs out of rounds', async () => {
    const broken = codeReply('throw new Error("still broken");');
    llm.enqueue(planReply, broken, broken, broken, broken);
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: hotel\nage: 40', output: 'x' });
    expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', layer: 'none', attempts: 4 });
    expect(decision.error?.code).toBe('GUARD_CODE_FAILED');
    expect(decision.reasons.join(' ')).toMatch(/still broken/);
    expect(decision.reasons.join(' ')).toMatch(/fail-closed/);
  });

  it('allows with guard_error when the policy fails open', async () => {
    await stack.client.putPolicy({ ...policy, id: 'hotel-open', failMode: 'open', limits: { maxDebugRounds: 0 } });
    llm.enqueue(planReply, codeReply('return 42;'));
    const decision = await stack.client.check({ policy: 'hotel-open', input: 'Task: hotel\nage: 40', output: 'x' });
    expect(decision).toMatchObject({ decision: 'allow', status: 'guard_error' });
    expect(decision.reasons.join(' ')).toMatch(/must return|deny/);
  });

  it('recovers when the LLM answers 500 once', async () => {
    llm.enqueue({ status: 500, headers: { 'retry-after-ms': '10' } }, planReply, codeReply(ageCode));
    const decision = await stack.client.check({ policy: 'hotel-age', input: 'Task: hotel\nage: 16', output: 'x' });
    expect(decision).toMatchObject({ decision: 'deny', status: 'ok' });
    expect(llm.requests).toHaveLength(3);
  });

  it('contains hostile guard code and reports it', async () => {
    await stack.client.putPolicy({ ...policy, id: 'hostile', limits: { maxDebugRounds: 0, cpuMs: 200, wallMs: 1000 } });
    const cases: Array<[string, RegExp]> = [
      ['while (true) {}', /timeout/],
      ['const a = []; while (true) a.push("x".repeat(1e6));', /memory|timeout/],
      ['return { deny: false, reasons: [String(process.pid)] };', /process is not defined|reference/],
      ['return { deny: false, reasons: [String(require("fs"))] };', /require is not defined|reference/],
      ['const fs = await import("fs"); return { deny: false, reasons: [typeof fs] };', /import|module|thrown|type/i],
      ['const p = this.constructor.constructor("return process")(); return { deny: false, reasons: [String(p.pid)] };', /process|undefined|type|thrown/],
      ['return { deny: false, reasons: ["x".repeat(50 * 1024 * 1024)] };', /too large|result-too-large|memory/],
    ];
    for (const [code, expected] of cases) {
      llm.enqueue(planReply, codeReply(code));
      const decision = await stack.client.check({ policy: 'hostile', input: 'Task: hotel\nage: 40', output: 'x' });
      expect(decision.status, code).toBe('guard_error');
      expect(decision.decision, code).toBe('deny');
      expect(decision.reasons.join(' '), code).toMatch(expected);
    }
    // The pipeline still serves ordinary jobs afterwards.
    llm.enqueue(planReply, codeReply(ageCode));
    const after = await stack.client.check({ policy: 'hostile', input: 'Task: hotel\nage: 40', output: 'x' });
    expect(after).toMatchObject({ decision: 'allow', status: 'ok' });
  });

  it('rejects an invalid job at submit, naming the field, and queues nothing', async () => {
    const before = await stack.runtime!.queues.queue('executor').getJobCountByTypes('waiting', 'active', 'completed');
    const error = await stack.client.submit({ policy: 'hotel-age', input: 'x', output: 'y', subject: { roles: ['a'] } } as never).catch((e) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toContain('subject.id');
    const bad = await stack.client.check({ policy: 'bad id with spaces', input: 'x' }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.message).toMatch(/policy/);
    const after = await stack.runtime!.queues.queue('executor').getJobCountByTypes('waiting', 'active', 'completed');
    expect(after).toBe(before);
  });

  it('answers guard_error for an unknown policy id at submit time', async () => {
    const error = await stack.client.check({ policy: 'no-such-policy', input: 'x' }).catch((e) => e);
    expect(error.code).toBe('NOT_FOUND');
  });

  it('ends a job the worker cannot parse as a fail-closed guard_error', async () => {
    const id = 'unparseable-1';
    const registered = await stack.client.putPolicy(policy);
    // Unparseable on purpose: straight onto the BullMQ queue, past QueueSet's typed add.
    await stack.runtime!.queues
      .queue('executor')
      .add('check', { state: { jobId: id, tenant: 'default', policy: { id: policy.id, version: '1', digest: registered.digest, programDigest: 'x' }, submittedAt: Date.now(), job: 42 } }, { jobId: id });
    const deadline = Date.now() + 10_000;
    let decision = await stack.client.result(id);
    while (!decision && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      decision = await stack.client.result(id);
    }
    expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'JOB_UNPARSEABLE' } });
  });
});

describe('per-request pipeline without a usable LLM', () => {
  it('ends at once with guard_error saying how to configure an LLM when none is configured', async () => {
    const stack = await startTestStack({ llm: null });
    try {
      await stack.client.putPolicy({ ...policy, mode: 'auto' });
      const started = Date.now();
      const decision = await stack.client.check({ policy: 'hotel-age', input: 'x', output: 'y' }, { timeoutMs: 5000 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'LLM_NOT_CONFIGURED' } });
      expect(decision.reasons.join(' ')).toMatch(/GUARDAGENT_LLM_BASE_URL/);
    } finally {
      await stack.stop();
    }
  });

  it('ends promptly with guard_error when the LLM is unreachable', async () => {
    const stack = await startTestStack({ llm: testLlm(await unusedBaseUrl(), { maxRetries: 1, timeoutMs: 2000 }) });
    try {
      await stack.client.putPolicy(policy);
      const started = Date.now();
      const decision = await stack.client.check({ policy: 'hotel-age', input: 'x', output: 'y' }, { timeoutMs: 10_000 });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(decision).toMatchObject({ decision: 'deny', status: 'guard_error', error: { code: 'LLM_REQUEST_FAILED' } });
      expect(JSON.stringify(decision)).not.toContain('sk-test-secret-key');
    } finally {
      await stack.stop();
    }
  });
});
