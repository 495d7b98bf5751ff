import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_ID_PATTERN, COMPILE_ID_PATTERN, jobIdFor, compileIdFor } from '@guardagent/client';
import { ADMIN_KEY, refundPolicy, startFixture, type GatewayFixture } from './gateway-fixture';

// Every route of the OpenAPI document, with every path parameter (and the id-bearing query
// parameters) set in turn to ids shaped like BullMQ's own keys, like the gateway's other keys of the
// same tenant, or just odd: each answers 400 or 404, never 500. Before, a check id such as `events`
// read BullMQ's events stream as a job (WRONGTYPE, 500), and a batch id `<batch>:results` read the
// batch's results list as its record.

let f: GatewayFixture;
let batchId: string;
let checkId: string;
let compileId: string;
const VALID: Record<string, string> = { id: 'refunds', demoId: 'demo-1' };
/** Policy and tenant ids (the shape PolicyIdSchema and TenantIdSchema accept). */
const POLICY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

beforeAll(async () => {
  f = await startFixture({ stages: ['executor'] });
  expect((await f.call('/v1/policies/refunds', { method: 'PUT', body: refundPolicy() })).status).toBe(200);
  // Leave every kind of key behind: a decided check (the executor queue's own keys with it), a
  // batch (its record and results list), a compile that is still queued (no worker reads it here).
  const decided = await f.call('/v1/checks', { body: { policy: 'refunds', input: 'x', context: { amount: 5 } } });
  expect(decided.status).toBe(200);
  checkId = (await decided.json()).id;
  const batch = await f.call('/v1/batches', { raw: `${JSON.stringify({ policy: 'refunds', input: 'y' })}\n`, contentType: 'application/x-ndjson' });
  expect(batch.status).toBe(202);
  batchId = (await batch.json()).id;
  const compile = await f.call('/v1/policies/refunds/compile?wait=0', { method: 'POST' });
  expect(compile.status).toBe(202);
  compileId = (await compile.json()).id;
});
afterAll(async () => {
  await f?.close();
});

function oddIds(): string[] {
  const bullmq = ['wait', 'meta', 'events', 'id', 'completed', 'failed', 'active', 'stalled-check', 'marker', 'paused', 'delayed', 'prioritized', 'pc', 'limiter'];
  return [
    'bull:x:1',
    'bull:executor:1',
    ':',
    '{}',
    '{guardagent}',
    '*',
    '..',
    '.',
    '__proto__',
    'a b',
    '\u0000',
    'é',
    '😀',
    'ü:ß',
    'x'.repeat(90),
    'x'.repeat(101),
    'x'.repeat(5000),
    ...bullmq,
    ...bullmq.map((name) => `executor:${name}`),
    `${checkId}:lock`,
    `${checkId}:logs`,
    `${batchId}:results`,
    `${compileId}:x`,
    checkId.toUpperCase(),
  ];
}

interface Operation {
  method: string;
  path: string;
  parameters?: Array<{ name: string; in: string }>;
}

async function operations(): Promise<Operation[]> {
  const document = await (await f.call('/openapi.json')).json();
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { parameters?: Operation['parameters'] }>>)) {
    for (const [method, operation] of Object.entries(methods)) out.push({ method: method.toUpperCase(), path, parameters: operation.parameters });
  }
  return out;
}

/** The request as written: node:http sends the path untouched (fetch would resolve `..` first). */
function send(method: string, path: string): Promise<{ status: number; text: string }> {
  const body = method === 'POST' || method === 'PUT' ? '{}' : undefined;
  const { hostname, port } = new URL(f.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function expectNo500(method: string, url: string, allowed = [400, 404]): Promise<number> {
  const res = await send(method, url);
  const text = res.text;
  expect(allowed, `${method} ${url.slice(0, 120)} → ${res.status} ${text.slice(0, 200)}`).toContain(res.status);
  if (text && res.status >= 400) expect(JSON.parse(text).error.code, `${method} ${url.slice(0, 120)}`).not.toBe('INTERNAL_ERROR');
  return res.status;
}

describe('odd ids answer 400 or 404 on every route, never 500', () => {
  it('the ids the gateway hands out have the shapes its routes accept', () => {
    for (const id of [checkId, jobIdFor('acme', undefined), jobIdFor('acme', 'order-1')]) expect(id).toMatch(CHECK_ID_PATTERN);
    for (const id of [compileId, compileIdFor('ab'.repeat(32))]) expect(id).toMatch(COMPILE_ID_PATTERN);
  });

  it('every path parameter of every route', async () => {
    const ops = (await operations()).filter((op) => op.path.includes('{'));
    expect(ops.length).toBeGreaterThanOrEqual(18);
    let tried = 0;
    for (const op of ops) {
      const names = [...op.path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]);
      for (const odd of names) {
        for (const id of oddIds()) {
          let url = op.path;
          for (const name of names) url = url.replace(`{${name}}`, encodeURIComponent(name === odd ? id : VALID[name]));
          // A well-formed policy id that names no policy may read as an empty list (its replays).
          const listing = op.method === 'GET' && odd === 'id' && POLICY_ID.test(id) && op.path.startsWith('/v1/policies/');
          await expectNo500(op.method, url, listing ? [200, 400, 404] : [400, 404]);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(500);
  });

  it('every id-bearing query parameter', async () => {
    const ops = (await operations()).filter((op) => op.parameters?.some((p) => p.in === 'query' && (p.name === 'tenant' || p.name === 'policy')));
    expect(ops.map((op) => `${op.method} ${op.path}`)).toEqual(expect.arrayContaining(['GET /v1/keys', 'GET /v1/decision-log']));
    for (const op of ops) {
      const name = op.parameters!.find((p) => p.in === 'query' && (p.name === 'tenant' || p.name === 'policy'))!.name;
      const path = op.path.replace('{id}', 'k-0123456789ab');
      for (const id of oddIds()) {
        // An id of the right shape that names nothing lists nothing (200); any other is a 400.
        const status = await expectNo500(op.method, `${path}?${name}=${encodeURIComponent(id)}`, [200, 400, 404]);
        if (!POLICY_ID.test(id)) expect(status, `${op.method} ${path}?${name}=${id.slice(0, 40)}`).toBe(400);
      }
    }
  });

  it('well-formed ids still reach their resources', async () => {
    expect((await f.call(`/v1/checks/${checkId}`)).status).toBe(200);
    expect((await f.call(`/v1/batches/${batchId}`)).status).toBe(200);
    expect([200, 202]).toContain((await f.call(`/v1/compiles/${compileId}`)).status);
    // Well-formed and unknown: 404.
    expect((await f.call('/v1/checks/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await f.call(`/v1/checks/idem-${'0'.repeat(40)}`)).status).toBe(404);
    expect((await f.call('/v1/batches/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await f.call('/v1/replays/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // Of another shape: no such id can exist, so 404 as well, before any key is read.
    const malformed = await f.call('/v1/checks/events');
    expect(malformed.status).toBe(404);
    expect((await malformed.json()).error).toMatchObject({ code: 'NOT_FOUND', details: { kind: 'check', id: 'events' } });
  });
});
