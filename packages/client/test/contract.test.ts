import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GuardJobInput } from '@guardagent/schemas';
import { HttpTransport, exitCodeOfDecision, exitCodeOfError, type HttpTransportOptions } from '../src/index';

/**
 * The HTTP SDKs' contract (clients/contract/cases.json, described in its README.md) run against
 * HttpTransport; the Python SDK runs the same cases (clients/python/tests/test_contract.py).
 */
const CONTRACT_FILE = join(import.meta.dirname, '..', '..', '..', 'clients', 'contract', 'cases.json');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface Exchange {
  request: {
    method: string;
    path: string;
    query?: Record<string, string>;
    bodyIncludes?: Json;
    bodyEquals?: Json;
    contentType?: string;
    ndjsonLines?: number;
  };
  answer: JsonObject;
  repeat?: boolean;
}

interface Case {
  name: string;
  options?: { submitAttempts?: number; maxServerWaitMs?: number; requestTimeoutMs?: number };
  call: JsonObject & { method: string };
  exchanges: Exchange[];
  expect: {
    result?: Json;
    error?: JsonObject;
    exitCode?: number;
    requests?: number;
    minRequests?: number;
    sameIdempotencyKey?: boolean;
    idempotencyKey?: string;
    idempotencyKeyPrefix?: string;
    minGapsMs?: number[];
  };
}

interface Contract {
  apiKey: string;
  decisions: Record<string, JsonObject>;
  jobs: Record<string, GuardJobInput>;
  cases: Case[];
}

interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
  unexpected: boolean;
}

const contract = JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as Contract;

/** `{ "$decision": name }` replaced by that decision, everywhere in `value`. */
function expand(value: Json): Json {
  if (Array.isArray(value)) return value.map(expand);
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$decision') return contract.decisions[value.$decision as string] as Json;
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item)]));
  }
  return value;
}

/** `actual` holds `expected`: objects by their keys, lists item by item (same length), the rest equal. */
function expectContains(actual: unknown, expected: Json, where = 'value'): void {
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${where}: ${JSON.stringify(actual)}`).toBe(true);
    expect((actual as unknown[]).length, where).toBe(expected.length);
    for (const [index, item] of expected.entries()) expectContains((actual as unknown[])[index], item, `${where}[${index}]`);
  } else if (expected && typeof expected === 'object') {
    expect(actual !== null && typeof actual === 'object', `${where}: ${JSON.stringify(actual)}`).toBe(true);
    for (const [key, item] of Object.entries(expected)) expectContains((actual as Record<string, unknown>)[key], item, `${where}.${key}`);
  } else {
    expect(actual, where).toEqual(expected);
  }
}

let server: Server;
let baseUrl: string;
let exchanges: Exchange[] = [];
let requests: Recorded[] = [];
const hanging = new Set<ServerResponse>();

function answer(req: IncomingMessage, res: ServerResponse, scripted: JsonObject): void {
  if (scripted.drop) {
    req.socket.destroy();
    return;
  }
  if (scripted.hang) {
    hanging.add(res);
    return;
  }
  const status = scripted.status as number;
  const headers = { ...((scripted.headers as Record<string, string> | undefined) ?? {}) };
  if (Array.isArray(scripted.ndjson)) {
    res.writeHead(status, { 'content-type': 'application/x-ndjson; charset=utf-8' });
    for (const item of scripted.ndjson) res.write(`${JSON.stringify(item)}\n`);
    res.end();
    return;
  }
  const json = 'body' in scripted;
  const payload = json ? JSON.stringify(scripted.body) : String(scripted.text ?? '');
  res.writeHead(status, { 'content-type': json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8', ...headers });
  res.end(payload);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://contract.invalid');
      // The path as sent, escapes included (URL would normalize nothing here, but keep the raw one).
      const rawPath = (req.url ?? '/').split('?')[0]!;
      const index = requests.length;
      const last = exchanges[exchanges.length - 1];
      const exchange = index < exchanges.length ? exchanges[index] : last?.repeat ? last : undefined;
      requests.push({ method: req.method ?? '', path: rawPath, query: url.searchParams, headers: req.headers, body, at: performance.now(), unexpected: !exchange });
      answer(req, res, exchange ? (expand(exchange.answer) as JsonObject) : { status: 599, text: 'no scripted answer for this request' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  for (const res of hanging) res.destroy();
  hanging.clear();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function transportFor(options: Case['options'] = {}): HttpTransport {
  const settings: HttpTransportOptions = { baseUrl, apiKey: contract.apiKey };
  if (options.submitAttempts !== undefined) settings.submitAttempts = options.submitAttempts;
  if (options.maxServerWaitMs !== undefined) settings.maxServerWaitMs = options.maxServerWaitMs;
  if (options.requestTimeoutMs !== undefined) settings.requestTimeoutMs = options.requestTimeoutMs;
  return new HttpTransport(settings);
}

async function invoke(transport: HttpTransport, call: Case['call']): Promise<unknown> {
  const job = (name: Json) => contract.jobs[name as string]!;
  switch (call.method) {
    case 'check':
      return transport.check(job(call.job), call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs as number } : {});
    case 'submit':
      return (await transport.submit(job(call.job))).id;
    case 'result':
      return transport.result(call.id as string);
    case 'feedback':
      return transport.feedback(call.id as string, { correctLabel: call.correctLabel as 0 | 1, ...(call.note !== undefined ? { note: call.note as string } : {}) });
    case 'approve':
      return transport.approve(call.token as string, call.approver as string, call.tenant !== undefined ? { tenant: call.tenant as string } : {});
    case 'submitBatch':
      return transport.submitBatch((call.jobs as string[]).map(job));
    case 'batchResults': {
      const decisions = [];
      for await (const decision of transport.batchResults(call.id as string, call.from !== undefined ? { from: call.from as number } : {})) decisions.push(decision);
      return decisions;
    }
    default:
      throw new Error(`the contract names a method this runner does not know: ${call.method}`);
  }
}

/** The error as the contract names its fields (the Python runner reads the same from its errors). */
function errorFields(error: unknown): Record<string, unknown> {
  const e = error as { code?: string; status?: number; message?: string; scope?: string; issues?: unknown; jobId?: string; details?: Record<string, unknown> };
  const details = e.details ?? {};
  return {
    code: e.code,
    status: e.status ?? details.status ?? null,
    message: e.message,
    retryAfterSeconds: details.retryAfterSeconds ?? null,
    scope: e.scope ?? null,
    issues: e.issues ?? null,
    unreachable: Boolean(details.unreachable),
    jobId: e.jobId ?? null,
  };
}

function checkRequests(testCase: Case): void {
  const { expect: want } = testCase;
  expect(requests.filter((r) => r.unexpected).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  if (want.requests !== undefined) expect(requests.map((r) => `${r.method} ${r.path}`)).toHaveLength(want.requests);
  if (want.minRequests !== undefined) expect(requests.length).toBeGreaterThanOrEqual(want.minRequests);
  requests.forEach((recorded, index) => {
    const request = testCase.exchanges[index]?.request;
    if (!request) return;
    expect(recorded.headers.authorization).toBe(`Bearer ${contract.apiKey}`);
    expect(recorded.method).toBe(request.method);
    expect(recorded.path).toBe(request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) expect(recorded.query.get(key), `query ${key}`).toBe(value);
    if (request.bodyIncludes !== undefined) expectContains(JSON.parse(recorded.body), request.bodyIncludes, 'body');
    if (request.bodyEquals !== undefined) expect(JSON.parse(recorded.body)).toEqual(request.bodyEquals);
    if (request.contentType !== undefined) expect(String(recorded.headers['content-type']).split(';')[0]).toBe(request.contentType);
    if (request.ndjsonLines !== undefined) {
      const lines = recorded.body.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as JsonObject);
      expect(lines).toHaveLength(request.ndjsonLines);
      expect(lines.every((line) => !('idempotencyKey' in line))).toBe(true);
    }
  });
  const keys = requests.filter((r) => r.method === 'POST' && r.path === '/v1/checks').map((r) => (JSON.parse(r.body) as JsonObject).idempotencyKey);
  if (want.sameIdempotencyKey) {
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(1);
  }
  if (want.idempotencyKey !== undefined) {
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toBe(want.idempotencyKey);
  }
  if (want.idempotencyKeyPrefix !== undefined) {
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(String(key).startsWith(want.idempotencyKeyPrefix), String(key)).toBe(true);
  }
  (want.minGapsMs ?? []).forEach((least, index) => {
    const gap = requests[index + 1]!.at - requests[index]!.at;
    expect(gap, `request ${index + 2} came ${gap.toFixed(0)} ms after request ${index + 1}`).toBeGreaterThanOrEqual(least);
  });
}

describe('the HTTP SDK contract (clients/contract/cases.json) against HttpTransport', () => {
  it('every case expects either a result or an error, and a number of requests', () => {
    expect(contract.cases.length).toBeGreaterThan(0);
    for (const testCase of contract.cases) {
      expect('result' in testCase.expect !== 'error' in testCase.expect, testCase.name).toBe(true);
      expect(testCase.expect.requests !== undefined || testCase.expect.minRequests !== undefined, testCase.name).toBe(true);
    }
  });

  it.each(contract.cases.map((testCase) => [testCase.name, testCase] as const))('%s', async (_name, testCase) => {
    exchanges = testCase.exchanges;
    requests = [];
    const transport = transportFor(testCase.options);
    try {
      if (testCase.expect.error) {
        const error = await invoke(transport, testCase.call).then(
          (value) => {
            throw new Error(`expected an error, got ${JSON.stringify(value)}`);
          },
          (raised: unknown) => raised,
        );
        const fields = errorFields(error);
        for (const [key, value] of Object.entries(testCase.expect.error)) expect(fields[key], `error ${key} of ${String(error)}`).toEqual(value);
        if (testCase.expect.exitCode !== undefined) expect(exitCodeOfError(error)).toBe(testCase.expect.exitCode);
      } else {
        const result = await invoke(transport, testCase.call);
        expectContains(result, testCase.expect.result ?? null, 'result');
        if (testCase.expect.exitCode !== undefined) expect(exitCodeOfDecision(result as Parameters<typeof exitCodeOfDecision>[0])).toBe(testCase.expect.exitCode);
      }
    } finally {
      await transport.close();
    }
    checkRequests(testCase);
  });
});
