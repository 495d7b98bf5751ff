import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startFixture, type GatewayFixture } from './gateway-fixture';

let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: [], limits: { requestTimeoutMs: 1000 } });
});
afterAll(async () => {
  await f?.close();
});

/** Sends the head of a request and part of its body, then nothing more; resolves with what came back when the server closed. */
function stalledUpload(path: string, contentType: string, key: string | null): Promise<string> {
  const { port } = new URL(f.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: ${contentType}\r\nContent-Length: 100000\r\n\r\n{"policy":`,
    );
  });
}

describe('slow uploads are cut off', () => {
  it('an authenticated check body that stops arriving ends in 408, and the gateway keeps serving', async () => {
    const answer = await stalledUpload('/v1/checks', 'application/json', ADMIN_KEY);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect((await f.call('/healthz')).status).toBe(200);
  });

  it('so does a streamed batch upload', async () => {
    const answer = await stalledUpload('/v1/batches', 'application/x-ndjson', ADMIN_KEY);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it('the wait for a decision is not an upload: a check waiting past the limit still answers', async () => {
    expect((await f.call('/v1/policies/p', { method: 'PUT', body: { id: 'p', requests: 'Deny refunds.', mode: 'per-request' } })).status).toBe(200);
    // No executor runs here, so the check waits its full 2.5 s and answers 202.
    const waited = await f.call('/v1/checks?wait=2500', { body: { policy: 'p', input: 'x' } });
    expect(waited.status).toBe(202);
  });
});

/**
 * Sends a request head, then one byte of body every `everyMs` until the server answers and closes.
 * Resolves with the answer, when it came and when the connection closed (ms after the head).
 */
function dribble(url: string, path: string, contentType: string, key: string | null, everyMs: number, first = '', method = 'POST'): Promise<{ answer: string; answeredAfterMs: number; closedAfterMs: number }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let answeredAt = 0;
    let start = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk) => {
      if (!answer) answeredAt = performance.now();
      answer += chunk.toString();
    });
    socket.on('error', () => undefined); // a write racing the close
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, answeredAfterMs: answeredAt - start, closedAfterMs: performance.now() - start });
    });
    socket.once('connect', () => {
      start = performance.now();
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: ${contentType}\r\nContent-Length: 10000000\r\n\r\n${first}`);
      timer = setInterval(() => {
        if (!socket.destroyed) socket.write('x');
      }, everyMs);
    });
    setTimeout(() => reject(new Error(`no answer within 20 s: ${answer}`)), 20_000).unref();
  });
}

describe('a body trickled in is cut off at the body deadline, not the request timeout', () => {
  let g: GatewayFixture;
  const BODY_TIMEOUT_MS = 1_000;
  beforeAll(async () => {
    // The request timeout is far off, so only the body deadline can end these.
    g = await startFixture({ stages: [], limits: { requestTimeoutMs: 60_000, bodyTimeoutMs: BODY_TIMEOUT_MS, minBodyBytesPerSecond: 1024 } });
    expect((await g.call('/v1/policies/p', { method: 'PUT', body: { id: 'p', requests: 'Deny refunds.', mode: 'per-request' } })).status).toBe(200);
  });
  afterAll(async () => {
    await g?.close();
  });

  it('an authenticated check body sent a byte every 100 ms: 408 REQUEST_TIMEOUT after the deadline, and the connection is closed', async () => {
    const { answer, answeredAfterMs, closedAfterMs } = await dribble(g.url, '/v1/checks', 'application/json', ADMIN_KEY, 100, '{"policy":"p","input":"');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
    expect(answeredAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(answeredAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 1_000);
    expect(closedAfterMs - answeredAfterMs).toBeLessThan(1_000);
    expect((await g.call('/healthz')).status).toBe(200);
  });

  it('so is a policy body (every JSON route has the deadline); a path with no route answers 404 without reading one', async () => {
    const policy = await dribble(g.url, '/v1/policies/q', 'application/json', ADMIN_KEY, 100, '{"id":"q","requests":"', 'PUT');
    expect(policy.answer).toMatch(/^HTTP\/1\.1 408/);
    expect(policy.answeredAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 1_000);
    const nowhere = await dribble(g.url, '/v1/nowhere', 'application/json', null, 100, '{');
    expect(nowhere.answer).toMatch(/^HTTP\/1\.1 404/);
    expect(nowhere.closedAfterMs).toBeLessThan(500);
  });

  it('a streamed batch trickled slower than the minimum rate: 408 soon after the grace, the batch aborted', async () => {
    const { answer, answeredAfterMs, closedAfterMs } = await dribble(g.url, '/v1/batches', 'application/x-ndjson', ADMIN_KEY, 100, `${JSON.stringify({ policy: 'p', input: 'first' })}\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
    // Grace 1 s, plus 1 s per 1,024 bytes received (~35 here).
    expect(answeredAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(answeredAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 1_000);
    expect(closedAfterMs - answeredAfterMs).toBeLessThan(1_000);
    const batchId = /x-batch-id: ([0-9a-f-]+)/i.exec(answer)![1];
    expect((await (await g.call(`/v1/batches/${batchId}`)).json()).state).toBe('aborted');
  });

  it('a streamed batch that keeps above the rate may take longer than the grace', async () => {
    const { port } = new URL(g.url);
    const lines = Array.from({ length: 8 }, (_, i) => `${JSON.stringify({ policy: 'p', input: `job ${i} ${'x'.repeat(1_500)}` })}\n`);
    const body = lines.join('');
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('error', reject);
      socket.on('end', () => resolve(received));
      socket.write(`POST /v1/batches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
      // One line (~1.5 KB) every 300 ms: ~5 KB/s, above the 1 KB/s minimum; 2.4 s in all.
      let next = 0;
      const timer = setInterval(() => {
        socket.write(lines[next++]);
        if (next === lines.length) clearInterval(timer);
      }, 300);
    });
    expect(performance.now() - started).toBeGreaterThan(2 * BODY_TIMEOUT_MS);
    expect(answer).toMatch(/^HTTP\/1\.1 202/);
    expect(answer).toContain('"total":8');
  });

  it('an unauthenticated body is answered 401 at once and the connection closed, unread', async () => {
    const { answer, closedAfterMs } = await dribble(g.url, '/v1/checks', 'application/json', null, 100, '{"policy":');
    expect(answer).toMatch(/^HTTP\/1\.1 401/);
    expect(closedAfterMs).toBeLessThan(500);
  });
});
