import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpTransport } from '@guardagent/client';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { REPO_ROOT, spawnService, waitFor } from '../helpers/pipeline-stack';

/** One OTLP/HTTP export request as a collector on 127.0.0.1 received it. */
interface Export {
  url: string;
  headers: IncomingHttpHeaders;
  spans: { service: string; resource: Record<string, string>; name: string; traceId: string }[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };

function attributes(list: OtlpAttribute[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of list ?? []) out[a.key] = String(a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? '');
  return out;
}

/** Decode an OTLP/JSON traces request (OTEL_EXPORTER_OTLP_PROTOCOL=http/json). */
function decode(url: string, headers: IncomingHttpHeaders, body: string): Export {
  const parsed = JSON.parse(body) as {
    resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: { name: string; traceId: string }[] }[] }[];
  };
  const spans: Export['spans'] = [];
  for (const rs of parsed.resourceSpans) {
    const resource = attributes(rs.resource.attributes);
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) spans.push({ service: resource['service.name'], resource, name: s.name, traceId: s.traceId.toLowerCase() });
    }
  }
  return { url, headers, spans };
}

let collector: Server;
let endpoint: string;
const exports: Export[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      exports.push(decode(req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

afterAll(async () => {
  await new Promise<void>((resolve) => collector.close(() => resolve()));
});

/** The standard variables an operator sets on every service of a deployment. */
function otelEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-token=tok-42,x-team=guard',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci,team=guard',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...extra,
  };
}

const allSpans = () => exports.flatMap((e) => e.spans);

/** Start the gateway as deployments run it and read its port from its start-up log line. */
async function spawnGateway(env: Record<string, string>): Promise<number> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'services', 'gateway', 'dist', 'main.js')], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, GUARDAGENT_GATEWAY_PORT: '0', GUARDAGENT_GATEWAY_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.on('data', () => undefined);
  return new Promise<number>((resolve, reject) => {
    let buffered = '';
    // The JSON logger writes to stderr.
    child.stderr?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        const port = /"port":(\d+)/.exec(line)?.[1];
        if (port && line.includes('gateway listening')) resolve(Number(port));
      }
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code} before listening`)));
  });
}

describe('telemetry through the standard OTEL_* variables (NodeSDK)', () => {
  it('exports one trace across the gateway and executor processes, each under its own service name, with the configured headers and resource', async () => {
    const adminKey = 'admin-key-for-otel-test-0123456789';
    const env = { REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: uniquePrefix('otel'), GUARDAGENT_ADMIN_KEY: adminKey, ...otelEnv() };
    children.push(spawnService('executor', env));
    const port = await spawnGateway(env);
    const client = new HttpTransport({ baseUrl: `http://127.0.0.1:${port}`, apiKey: adminKey });
    await client.putPolicy({
      id: 'otel',
      requests: 'Deny the word stop.',
      mode: 'compiled',
      program: 'return { deny: input === "stop", reasons: input === "stop" ? ["stop word"] : [] };',
      examples: [
        { input: 'stop', label: 1 },
        { input: 'go', label: 0 },
      ],
    });
    const decision = await client.check({ policy: 'otel', input: 'stop', output: '' }, { timeoutMs: 30_000 });
    expect(decision.decision).toBe('deny');

    const inTrace = await waitFor(
      async () => {
        const spans = allSpans().filter((s) => s.traceId === decision.traceId);
        const services = new Set(spans.map((s) => s.service));
        return services.has('guardagent-gateway') && services.has('guardagent-executor') ? spans : null;
      },
      20_000,
      'spans of the decision trace from both the gateway and the executor',
    );
    expect(inTrace.find((s) => s.service === 'guardagent-executor')?.name).toMatch(/^guardagent\.executor\.|^sandbox\.run$|^rails\.|^decisions\.store$/);
    for (const span of inTrace) {
      expect(span.resource['deployment.environment']).toBe('ci');
      expect(span.resource.team).toBe('guard');
      // The process detector (which records the command line) is left out on purpose.
      expect(span.resource['process.command_args']).toBeUndefined();
    }
    for (const request of exports) {
      expect(request.url).toBe('/v1/traces');
      expect(request.headers['x-collector-token']).toBe('tok-42');
      expect(request.headers['x-team']).toBe('guard');
    }
    expect(JSON.stringify(exports.map((e) => e.spans))).not.toContain(adminKey);
  });
});

/** A tiny program that initialises telemetry as a service does, ends one span and exits after a flush. */
async function runProbe(env: Record<string, string>): Promise<string> {
  const script = [
    "import { initTelemetry, withSpan } from '@guardagent/telemetry';",
    "const handle = initTelemetry({ serviceName: 'guardagent-probe' });",
    "const traceId = await withSpan('probe-span', {}, async (span) => span.spanContext().traceId);",
    'await handle.forceFlush();',
    'await handle.shutdown();',
    // Whether OpenTelemetry's SDK was loaded at all (it is loaded only when spans are exported).
    "const { createRequire } = await import('node:module');",
    "const sdkLoaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/@opentelemetry/sdk-node/'));",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the child's code, with a template literal, as text
    'process.stdout.write(`${traceId} ${sdkLoaded}`);',
  ].join('\n');
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`probe exited with ${code}: ${err}`);
  const [traceId, sdkLoaded] = out.trim().split(' ');
  lastProbeLoadedSdk = sdkLoaded === 'true';
  return traceId;
}
let lastProbeLoadedSdk: boolean | undefined;

describe('standard variables the SDK honours', () => {
  it('OTEL_SERVICE_NAME overrides the service name a process gives itself', async () => {
    const traceId = await runProbe(otelEnv({ OTEL_SERVICE_NAME: 'payments-guard' }));
    const spans = allSpans().filter((s) => s.traceId === traceId);
    expect(spans.map((s) => s.service)).toEqual(['payments-guard']);
  });

  it('without an override the process name stands', async () => {
    const traceId = await runProbe(otelEnv());
    expect(allSpans().filter((s) => s.traceId === traceId).map((s) => s.service)).toEqual(['guardagent-probe']);
  });

  it('OTEL_TRACES_SAMPLER=always_off exports nothing; traceidratio with arg 1 exports the span', async () => {
    const before = allSpans().length;
    const offTrace = await runProbe(otelEnv({ OTEL_TRACES_SAMPLER: 'always_off' }));
    expect(offTrace).toMatch(/^[0-9a-f]{32}$/);
    // The probe flushed before exiting: anything it would send has arrived.
    expect(allSpans().filter((s) => s.traceId === offTrace)).toHaveLength(0);
    const onTrace = await runProbe(otelEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }));
    expect(allSpans().filter((s) => s.traceId === onTrace).map((s) => s.name)).toEqual(['probe-span']);
    expect(allSpans().length).toBe(before + 1);
  });

  it('OTEL_SDK_DISABLED=true starts nothing even with an endpoint', async () => {
    const before = exports.length;
    await runProbe(otelEnv({ OTEL_SDK_DISABLED: 'true' }));
    expect(exports.length).toBe(before);
    expect(lastProbeLoadedSdk).toBe(false);
  });

  it("loads the SDK's packages only when spans are exported (they cost every process ~0.45 s to load)", async () => {
    await runProbe(otelEnv());
    expect(lastProbeLoadedSdk).toBe(true);
    expect(Object.keys(process.env).filter((name) => name.startsWith('OTEL_'))).toEqual([]);
    await runProbe({});
    expect(lastProbeLoadedSdk).toBe(false);
  });
});
