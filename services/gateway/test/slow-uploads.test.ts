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
