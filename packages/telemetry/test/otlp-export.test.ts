import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initTelemetry, withSpan, type TelemetryHandle } from '../src/index';

interface Received {
  url: string;
  contentType: string | undefined;
  body: string;
}

// A local collector on 127.0.0.1: exercises the real OTLP/HTTP exporter without network.
let server: Server;
const received: Received[] = [];
let handle: TelemetryHandle;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    received.push({ url: req.url ?? '', contentType: req.headers['content-type'], body: await readBody(req) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
  // NodeSDK's default protocol is http/protobuf; JSON keeps the body readable here.
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
  handle = initTelemetry({ serviceName: 'otlp-test' });
});

afterAll(async () => {
  await handle.shutdown();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('OTLP export from OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('batches spans to <endpoint>/v1/traces on forceFlush', async () => {
    expect(handle.otlp).toBe(true);
    const traceId = await withSpan('exported-span', { attributes: { token: 'hidden', tenant: 'acme' } }, async (span) => {
      return span.spanContext().traceId;
    });
    expect(received).toHaveLength(0); // batched, not sent per span
    await handle.forceFlush();
    expect(received.length).toBeGreaterThanOrEqual(1);
    const request = received[0];
    expect(request.url).toBe('/v1/traces');
    expect(request.body).toContain('exported-span');
    expect(request.body).toContain('otlp-test');
    expect(request.body).toContain('acme');
    expect(request.body).not.toContain('hidden');
    // OTLP/JSON encodes ids as hex strings.
    expect(request.body.toLowerCase()).toContain(traceId);
  });
});
