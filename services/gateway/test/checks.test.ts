import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ limits: { jsonBodyBytes: 256 * 1024 } });
  const put = await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() });
  expect(put.status).toBe(200);
  const compiled = await f.call('/v1/policies/refunds/compile', { method: 'POST' });
  expect(compiled.status).toBe(200);
  expect((await compiled.json()).status).toBe('promoted');
});
afterAll(async () => {
  await f?.close();
});

async function metricValue(name: string, labels: string): Promise<number> {
  const text = await (await f.call('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('checks', () => {
  it('decides as the compiled program says, and the decision can be read back by id', async () => {
    const deny = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 500 } } });
    expect(deny.status).toBe(200);
    const denied = await deny.json();
    expect(denied).toMatchObject({ decision: 'deny', status: 'ok', layer: 'guardagent', mode: 'compiled' });
    expect(denied.reasons).toEqual(['refund of 500 is over 100']);

    const allow = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 20 } } });
    expect((await allow.json()).decision).toBe('allow');

    const again = await f.call(`/v1/checks/${denied.id}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(denied);
  });

  it('answers 202 with the id when asked not to wait, then serves the decision', async () => {
    const queued = await f.call('/v1/checks?wait=0', { body: { policy: 'refunds', input: 'refund', context: { amount: 101 } } });
    expect(queued.status).toBe(202);
    const { id, status } = await queued.json();
    expect(status).toBe('queued');
    expect(queued.headers.get('location')).toBe(`/v1/checks/${id}`);
    let decision: { decision?: string } = {};
    for (let i = 0; i < 100 && !decision.decision; i += 1) {
      const read = await f.call(`/v1/checks/${id}`);
      expect([200, 202]).toContain(read.status);
      if (read.status === 200) decision = await read.json();
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(decision.decision).toBe('deny');
  });

  it('serves metrics to the admin key only (their labels name every tenant)', async () => {
    expect((await f.call('/metrics', { key: null })).status).toBe(401);
    const tenant = await (await f.call('/v1/tenants', { body: { id: 'metrics-peek' } })).json();
    expect((await f.call('/metrics', { key: tenant.apiKey })).status).toBe(403);
    expect((await f.call('/metrics')).status).toBe(200);
  });

  it('moves the metrics after a check', async () => {
    const labels = 'tenant="default",policy="refunds",decision="deny",status="ok"';
    const before = await metricValue('guardagent_decisions_total', labels);
    const executeBefore = await metricValue('guardagent_stage_duration_seconds_count', 'stage="execute"');
    const res = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'refund', context: { amount: 999 } } });
    expect((await res.json()).decision).toBe('deny');
    expect(await metricValue('guardagent_decisions_total', labels)).toBe(before + 1);
    expect(await metricValue('guardagent_stage_duration_seconds_count', 'stage="execute"')).toBe(executeBefore + 1);
    const text = await (await f.call('/metrics')).text();
    expect(text).toMatch(/guardagent_queue_jobs\{stage="executor",state="waiting"\} \d+/);
    expect(text).toMatch(/guardagent_http_requests_total\{method="POST",route="\/v1\/checks",status="200"\} \d+/);
  });

  it('mirrors the takeover counts every worker keeps in Redis', async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(f.config.redisUrl as string);
    try {
      expect(await metricValue('guardagent_jobs_stalled_total', 'stage="executor"')).toBe(0);
      await redis.hset(`${f.config.prefix}:metrics:takeovers`, { 'stalled|executor': '3', 'recovered|executor': '2', 'failed_after_takeover|executor': '1', 'stalled|planner': '1' });
      expect(await metricValue('guardagent_jobs_stalled_total', 'stage="executor"')).toBe(3);
      expect(await metricValue('guardagent_jobs_stalled_total', 'stage="planner"')).toBe(1);
      expect(await metricValue('guardagent_jobs_recovered_total', 'stage="executor"')).toBe(2);
      expect(await metricValue('guardagent_jobs_recovered_total', 'stage="planner"')).toBe(0);
      expect(await metricValue('guardagent_jobs_failed_after_takeover_total', 'stage="executor"')).toBe(1);
    } finally {
      redis.disconnect();
    }
  });

  it('answers 404 for an unknown policy and an unknown check id', async () => {
    const check = await f.call('/v1/checks', { body: { policy: 'no-such-policy', input: 'x' } });
    expect(check.status).toBe(404);
    expect((await check.json()).error).toMatchObject({ code: 'NOT_FOUND', message: "policy 'no-such-policy' not found" });
    const read = await f.call('/v1/checks/does-not-exist');
    expect(read.status).toBe(404);
    expect((await read.json()).error.code).toBe('NOT_FOUND');
    const compile = await f.call('/v1/policies/nope/compile', { method: 'POST' });
    expect(compile.status).toBe(404);
  });
});

describe('authentication', () => {
  it('answers 401 without a key and with a wrong one', async () => {
    const none = await f.call('/v1/checks', { body: { policy: 'refunds' }, key: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await none.json()).error.code).toBe('UNAUTHORIZED');
    const wrong = await f.call('/v1/policies/refunds', { key: 'ga_not-a-real-key' });
    expect(wrong.status).toBe(401);
    const malformed = await fetch(`${f.url}/v1/policies/refunds`, { headers: { authorization: `Basic ${ADMIN_KEY}` } });
    expect(malformed.status).toBe(401);
  });

  it('lets only the admin key create tenants, and shows each key once', async () => {
    const created = await f.call('/v1/tenants', { body: { id: 'acme' } });
    expect(created.status).toBe(201);
    const { id, apiKey } = await created.json();
    expect(id).toBe('acme');
    expect(apiKey).toMatch(/^ga_[A-Za-z0-9_-]{43}$/);
    const keys = await f.runtime.redis.keys(`${f.config.prefix}:tenant*`);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    const stored = await Promise.all(
      keys.map(async (k) => {
        const type = await f.runtime.redis.type(k);
        if (type === 'hash') return JSON.stringify(await f.runtime.redis.hgetall(k));
        // The tenant index (tenants:~index) holds tenant ids, never keys.
        if (type === 'zset') return JSON.stringify(await f.runtime.redis.zrange(k, '0', '-1'));
        return f.runtime.redis.get(k);
      }),
    );
    expect(stored.join('\n')).not.toContain(apiKey);
    expect(stored.join('\n')).not.toContain(apiKey.slice(3));

    const byTenant = await f.call('/v1/tenants', { body: { id: 'other' }, key: apiKey });
    expect(byTenant.status).toBe(403);
    expect((await byTenant.json()).error.code).toBe('FORBIDDEN');
    const duplicate = await f.call('/v1/tenants', { body: { id: 'acme' } });
    expect(duplicate.status).toBe(409);
    const reserved = await f.call('/v1/tenants', { body: { id: 'default' } });
    expect(reserved.status).toBe(409);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another tenant's checks and policies, both ways", async () => {
    const mk = async (id: string) => (await (await f.call('/v1/tenants', { body: { id } })).json()).apiKey as string;
    const keyA = await mk('tenant-a');
    const keyB = await mk('tenant-b');
    // Same policy id in both tenants, with opposite programs.
    const policyA = refundPolicy('shared');
    const policyB = {
      ...refundPolicy('shared'),
      program: "return { deny: true, reasons: ['tenant b denies everything'] };",
      examples: [{ id: 'any', input: 'x', label: 1 }],
    };
    expect((await f.call('/v1/policies/shared', { method: 'PUT', body: policyA, key: keyA })).status).toBe(200);
    expect((await f.call('/v1/policies/shared', { method: 'PUT', body: policyB, key: keyB })).status).toBe(200);
    expect((await (await f.call('/v1/policies/shared/compile', { method: 'POST', key: keyA })).json()).status).toBe('promoted');
    expect((await (await f.call('/v1/policies/shared/compile', { method: 'POST', key: keyB })).json()).status).toBe('promoted');

    const job = { policy: 'shared', input: 'refund', context: { amount: 5 } };
    const a = await (await f.call('/v1/checks', { body: job, key: keyA })).json();
    const b = await (await f.call('/v1/checks', { body: job, key: keyB })).json();
    expect(a.decision).toBe('allow');
    expect(b.decision).toBe('deny');

    for (const [id, key] of [
      [a.id, keyB],
      [b.id, keyA],
      [a.id, ADMIN_KEY],
    ] as const) {
      const res = await f.call(`/v1/checks/${id}`, { key });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: `check '${id}' not found`, details: { kind: 'check', id } } });
    }
    expect((await f.call(`/v1/checks/${a.id}`, { key: keyA })).status).toBe(200);
    // The admin (tenant 'default') has its own 'refunds'; tenants do not see it.
    expect((await f.call('/v1/policies/refunds', { key: keyA })).status).toBe(404);
    expect((await f.call('/v1/checks', { body: { policy: 'refunds', input: 'x' }, key: keyB })).status).toBe(404);
    const listA = await (await f.call('/v1/policies', { key: keyA })).json();
    expect(listA.policies.map((p: { id: string }) => p.id)).toEqual(['shared']);
    expect((await f.call(`/v1/checks/${a.id}/feedback`, { body: { correctLabel: 1 }, key: keyB })).status).toBe(404);
  });
});

describe('invalid requests', () => {
  it('answers 400 naming each invalid field of a check', async () => {
    const res = await f.call('/v1/checks', {
      body: { policy: 'bad id!', subject: { roles: 'admin' }, action: { kind: 'tool_call', tool: '' }, idempotencyKey: '' },
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('VALIDATION_FAILED');
    const paths = error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['policy', 'subject.id', 'subject.roles', 'action.tool', 'idempotencyKey']));
    for (const issue of error.issues) expect(issue.message.length).toBeGreaterThan(0);
  });

  it('answers 400 for malformed JSON, a bad query, a bad policy and bad feedback', async () => {
    const broken = await f.call('/v1/checks', { raw: '{"policy": "refunds",' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.code).toBe('VALIDATION_FAILED');

    const poisoned = await f.call('/v1/checks', { raw: '{"policy":"refunds","__proto__":{"x":1}}' });
    expect(poisoned.status).toBe(400);

    const wait = await f.call('/v1/checks?wait=soon', { body: { policy: 'refunds' } });
    expect(wait.status).toBe(400);
    expect((await wait.json()).error.issues.map((i: { path: string }) => i.path)).toEqual(['query.wait']);

    const policy = await f.call('/v1/policies/p1', { method: 'PUT', body: { id: 'p2', mode: 'sometimes', k: -1 } });
    expect(policy.status).toBe(400);
    expect((await policy.json()).error.issues).toEqual([{ path: 'id', message: "must equal the id in the path ('p1')" }]);
    const policy2 = await f.call('/v1/policies/p1', { method: 'PUT', body: { mode: 'sometimes', k: -1 } });
    const paths = (await policy2.json()).error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['mode', 'k']));

    const feedback = await f.call('/v1/checks/some-id/feedback', { body: { correctLabel: 2, extra: true } });
    expect(feedback.status).toBe(400);
    const issues = (await feedback.json()).error.issues;
    expect(issues.map((i: { path: string }) => i.path)).toContain('correctLabel');
  });

  it('answers 413 for a body over the limit and 415 for an unknown content type', async () => {
    const big = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'x'.repeat(300 * 1024) } });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
    const xml = await f.call('/v1/checks', { raw: '<job/>', contentType: 'application/xml' });
    expect(xml.status).toBe(415);
  });

  it('refuses feedback on a decision memory cannot learn from', async () => {
    const decided = await (await f.call('/v1/checks', { body: { policy: 'refunds', input: 'r', context: { amount: 1 } } })).json();
    const res = await f.call(`/v1/checks/${decided.id}/feedback`, { body: { correctLabel: 1 } });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe('FEEDBACK_NOT_APPLICABLE');
  });

  it('keeps serving after a barrage of hostile requests', async () => {
    const hostile = [
      f.call('/v1/checks', { raw: '['.repeat(5000) }),
      f.call('/v1/checks', { raw: 'null' }),
      f.call('/v1/checks', { raw: '"just a string"' }),
      f.call('/v1/checks', { body: { policy: { id: 'inline' } } }),
      f.call('/v1/checks', { body: { policy: 'refunds', context: { amount: { $gt: 1 } }, input: { deep: [[[[1]]]] } } }),
      f.call(`/v1/checks/${'x'.repeat(300)}`),
      f.call('/v1/policies/..%2F..%2Fetc', { method: 'PUT', body: refundPolicy() }),
      f.call('/v1/batches', { raw: '{}\n{"policy":', contentType: 'application/x-ndjson' }),
    ];
    const statuses = (await Promise.all(hostile)).map((r) => r.status);
    for (const status of statuses) expect(status).toBeLessThan(500);
    expect((await f.call('/healthz', { key: null })).status).toBe(200);
    const ok = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'r', context: { amount: 1 } } });
    expect((await ok.json()).decision).toBe('allow');
  });
});

describe('memory', () => {
  it('adds, lists and deletes demonstrations of a policy', async () => {
    const demo = { input: 'refund 500', output: 'issue_refund(500)', plan: 'compare the amount with 100', code: 'return { deny: true };' };
    const added = await f.call('/v1/policies/refunds/demonstrations', { body: [demo, { ...demo, input: 'refund 5' }] });
    expect(added.status).toBe(201);
    const { ids } = await added.json();
    expect(ids).toHaveLength(2);
    const listed = await (await f.call('/v1/policies/refunds/demonstrations')).json();
    expect(listed.demonstrations.map((d: { id: string }) => d.id).sort()).toEqual([...ids].sort());
    expect((await f.call(`/v1/policies/refunds/demonstrations/${ids[0]}`, { method: 'DELETE' })).status).toBe(204);
    expect((await f.call(`/v1/policies/refunds/demonstrations/${ids[0]}`, { method: 'DELETE' })).status).toBe(404);
    expect((await (await f.call('/v1/policies/refunds/demonstrations')).json()).demonstrations).toHaveLength(1);
    expect((await f.call('/v1/policies/nope/demonstrations')).status).toBe(404);
    const bad = await f.call('/v1/policies/refunds/demonstrations', { body: { input: 'x' } });
    expect(bad.status).toBe(400);
  });
});

describe('documentation', () => {
  it('publishes an OpenAPI 3.1 document built from the zod schemas, and a docs page', async () => {
    const doc = await (await f.call('/openapi.json', { key: null })).json();
    expect(doc.openapi).toBe('3.1.0');
    const job = doc.components.schemas.GuardJob;
    expect(job.required).toEqual(['policy']);
    expect(job.additionalProperties).toBe(false);
    expect(doc.paths['/v1/checks'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GuardJob' });
    expect(doc.paths['/v1/checks'].post.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Decision');
    expect(doc.paths['/v1/checks'].post.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(doc.paths['/v1/batches'].post.requestBody.content).toHaveProperty('application/x-ndjson');
    // Every $ref points at a component that exists.
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) {
      const name = ref.slice('"$ref":"#/components/schemas/'.length, -1);
      expect(doc.components.schemas, ref).toHaveProperty(name);
    }
    const page = await f.call('/docs', { key: null });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/openapi.json');
    const bundle = await f.call('/docs/static/swagger-ui-bundle.js', { key: null });
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});
