import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type GuardConfig } from '@guardagent/config';
import { UnavailableError } from '@guardagent/errors';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { startGateway, type Gateway } from '@guardagent/service-gateway';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { HttpTransport } from '../src/index';
import { refundsPolicy as policy } from './refunds-policy';
import { silentLogger } from '@guardagent/telemetry';

const ADMIN_KEY = 'http-retry-admin-key-0123456789abcd';

let config: GuardConfig;
let runtime: Runtime;
let gateway: Gateway;
let redis: Redis;
let proxy: Server;
let proxyUrl: string;
/** How many upcoming POST /v1/checks the proxy forwards and then answers by dropping the connection. */
let dropNext = 0;
let checkPosts = 0;
/** How many upcoming POST /v1/checks the proxy answers itself with this status (as a gateway whose Redis fails over would), unforwarded. */
let answerNext: { count: number; status: number; code: string; retryAfter?: string } = { count: 0, status: 0, code: '' };
/** When each POST /v1/checks reached the proxy. */
const checkPostTimes: number[] = [];

/**
 * A proxy in front of the gateway that can lose answers: the request reaches the gateway (the job
 * is queued and decided), but the caller sees the connection break: the ambiguous failure.
 */
function startLossyProxy(target: string): Promise<Server> {
  const { hostname, port } = new URL(target);
  const server = createServer((req, res) => {
    const isCheck = req.method === 'POST' && (req.url ?? '').startsWith('/v1/checks');
    if (isCheck) {
      checkPosts += 1;
      checkPostTimes.push(performance.now());
    }
    if (isCheck && answerNext.count > 0) {
      answerNext.count -= 1;
      req.resume();
      const body = JSON.stringify({ error: { code: answerNext.code, message: 'as the gateway answers during a Redis Cluster failover', details: { redis: 'failover' } } });
      res.writeHead(answerNext.status, { 'content-type': 'application/json', ...(answerNext.retryAfter ? { 'retry-after': answerNext.retryAfter } : {}) });
      res.end(body);
      return;
    }
    const drop = isCheck && dropNext > 0;
    if (drop) dropNext -= 1;
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      if (drop) {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function decisionsStored(): Promise<number> {
  return (await redis.keys(`${config.prefix}:default:decision:*`)).length;
}

beforeAll(async () => {
  config = loadConfig({}, { redisUrl: testRedisUrl(), prefix: uniquePrefix('retry'), adminKey: ADMIN_KEY });
  runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers();
  gateway = await startGateway({ config, port: 0, logger: silentLogger });
  redis = new Redis(config.redisUrl as string);
  proxy = await startLossyProxy(gateway.url);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const direct = new HttpTransport({ baseUrl: gateway.url, apiKey: ADMIN_KEY });
  expect((await direct.compile(policy, { timeoutMs: 20_000 })).status).toBe('promoted');
  await direct.close();
});
afterAll(async () => {
  proxy?.close();
  redis?.disconnect();
  await gateway?.close();
  await runtime?.close();
});

describe('HttpTransport when an answer is lost on the way back', () => {
  it('retries a check itself and gets the decision of the one job the first try queued', async () => {
    const transport = new HttpTransport({ baseUrl: proxyUrl, apiKey: ADMIN_KEY });
    try {
      const before = await decisionsStored();
      const postsBefore = checkPosts;
      dropNext = 1;
      const decision = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 500 } });
      expect(decision).toMatchObject({ decision: 'deny', reasons: ['over 100'] });
      expect(checkPosts - postsBefore).toBe(2);
      expect(await decisionsStored()).toBe(before + 1);
    } finally {
      await transport.close();
    }
  });

  it('retries a submit the same way: two answers lost, still one job', async () => {
    const transport = new HttpTransport({ baseUrl: proxyUrl, apiKey: ADMIN_KEY });
    try {
      const before = await decisionsStored();
      dropNext = 2;
      const { id } = await transport.submit({ policy: 'refunds', input: 'r', context: { amount: 5 } });
      let decision = await transport.result(id);
      for (let i = 0; i < 200 && !decision; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        decision = await transport.result(id);
      }
      expect(decision?.decision).toBe('allow');
      expect(await decisionsStored()).toBe(before + 1);
    } finally {
      await transport.close();
    }
  });

  it('keeps a caller-given idempotency key, and gives up after submitAttempts with UnavailableError', async () => {
    const transport = new HttpTransport({ baseUrl: proxyUrl, apiKey: ADMIN_KEY, submitAttempts: 1 });
    try {
      const job = { policy: 'refunds', input: 'r', context: { amount: 7 }, idempotencyKey: 'order-77' };
      dropNext = 1;
      const lost = await transport.check(job).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(UnavailableError);
      expect((lost as UnavailableError).details.unreachable).toBe(true);
      // The lost try was queued and decided; the caller's own retry with its key finds that job.
      const before = await decisionsStored();
      const decision = await transport.check(job);
      expect(decision.decision).toBe('allow');
      expect(await decisionsStored()).toBe(before);
    } finally {
      await transport.close();
    }
  });

  it('retries a 503 UNAVAILABLE (Redis failing over behind the gateway), waiting its Retry-After', async () => {
    const transport = new HttpTransport({ baseUrl: proxyUrl, apiKey: ADMIN_KEY });
    try {
      const before = await decisionsStored();
      const postsBefore = checkPostTimes.length;
      answerNext = { count: 2, status: 503, code: 'UNAVAILABLE', retryAfter: '1' };
      const decision = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 900 } });
      expect(decision.decision).toBe('deny');
      const times = checkPostTimes.slice(postsBefore);
      expect(times).toHaveLength(3);
      // Its own backoff would have been 100 and 400 ms; the answers asked for 1 s each.
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(950);
      expect(await decisionsStored()).toBe(before + 1);
    } finally {
      await transport.close();
    }
  });

  it('does not retry a 500 (a fault, not a passing outage), nor wait past 10 s for a Retry-After', async () => {
    const transport = new HttpTransport({ baseUrl: proxyUrl, apiKey: ADMIN_KEY });
    try {
      const postsBefore = checkPostTimes.length;
      answerNext = { count: 1, status: 500, code: 'INTERNAL_ERROR' };
      const failed = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 1 } }).catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
      expect(checkPostTimes.length - postsBefore).toBe(1);

      answerNext = { count: 1, status: 503, code: 'UNAVAILABLE', retryAfter: '3600' };
      const started = performance.now();
      const decision = await transport.check({ policy: 'refunds', input: 'r', context: { amount: 2 } });
      expect(decision.decision).toBe('allow');
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(9_900);
      expect(waited).toBeLessThan(15_000);
    } finally {
      await transport.close();
    }
  });
});
