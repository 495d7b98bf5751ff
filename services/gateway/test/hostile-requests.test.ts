import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: ['executor'] });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).status).toBe(200);
});
afterAll(async () => {
  await f?.close();
});

const RESERVED = ['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf', 'toLocaleString', '%2e%2e', 'then'];

describe('hostile ids and bodies answer 4xx, never 500', () => {
  it('reserved words as ids answer 404', async () => {
    for (const id of RESERVED) {
      for (const path of [`/v1/checks/${id}`, `/v1/batches/${id}`, `/v1/policies/${id}`, `/v1/compiles/${id}`, `/v1/policies/refunds/demonstrations/${id}`]) {
        const res = await f.call(path);
        expect([400, 404], `${path} → ${res.status}`).toContain(res.status);
        expect((await res.json()).error.code).not.toBe('INTERNAL_ERROR');
      }
      const feedback = await f.call(`/v1/checks/${id}/feedback`, { body: { correctLabel: 1 } });
      expect([400, 404], `feedback ${id} → ${feedback.status}`).toContain(feedback.status);
    }
  });

  it('JSON nested thousands of levels deep answers 400 naming the field', async () => {
    const deep = `${'['.repeat(2_500)}1${']'.repeat(2_500)}`;
    const res = await f.call('/v1/checks', { raw: `{"policy":"refunds","input":"x","context":{"v":${deep}}}` });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.issues[0].path).toMatch(/^context\.v/);
  });

  it('prototype keys in a check or a batch line answer 400 naming the path', async () => {
    const job = `{"policy":"refunds","input":"x","action":{"kind":"tool_call","tool":"delete_user","args":{"user_id":"u","__proto__":{"admin":true}}}}`;
    const check = await f.call('/v1/checks', { raw: job });
    expect(check.status).toBe(400);
    const constructorJob = job.replace('__proto__', 'constructor');
    const batch = await f.call('/v1/batches', { raw: `${JSON.stringify({ policy: 'refunds', input: 'ok' })}\n${constructorJob}\n`, contentType: 'application/x-ndjson' });
    expect(batch.status).toBe(400);
    const { error } = await batch.json();
    expect(error.issues.map((i: { path: string }) => i.path)).toContain('jobs[1].action.args.constructor');
  });
});

describe('idempotency keys are bound to their job', () => {
  it('the same job under the same key gets the same decision; another job under it answers 409', async () => {
    const job = { policy: 'refunds', input: 'refund please', context: { amount: 500 }, idempotencyKey: 'order-17-refund' };
    const first = await (await f.call('/v1/checks', { body: job })).json();
    expect(first.decision).toBe('deny');
    const again = await (await f.call('/v1/checks', { body: job })).json();
    expect(again.id).toBe(first.id);
    for (const changed of [
      { ...job, context: { amount: 5 } },
      { ...job, input: 'refund please!' },
      { ...job, action: { kind: 'tool_call', tool: 'issue_refund', args: {} } },
    ]) {
      const res = await f.call('/v1/checks', { body: changed });
      expect(res.status).toBe(409);
      expect((await res.json()).error.code).toBe('IDEMPOTENCY_CONFLICT');
    }
    // Another policy version is another job too.
    expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: { ...refundPolicy(), version: '2' } })).status).toBe(200);
    expect((await f.call('/v1/checks', { body: job })).status).toBe(409);
    // Key order in the JSON does not make a different job.
    const reordered = { idempotencyKey: 'order-18', context: { amount: 1, note: 'a' }, input: 'x', policy: 'refunds' };
    expect((await f.call('/v1/checks', { body: reordered })).status).toBe(200);
    expect((await f.call('/v1/checks', { body: { ...reordered, context: { note: 'a', amount: 1 } } })).status).toBe(200);
  });
});
