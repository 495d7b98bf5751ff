// biome-ignore-all lint/suspicious/noExplicitAny: request bodies are any JSON a client sent, which handlers and tests read field by field
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * TEST FIXTURE ONLY. A real HTTP server on 127.0.0.1 that speaks just enough of the OpenAI
 * `POST /v1/chat/completions` protocol to drive the real `openai` client through replies,
 * retries and timeouts without any network.
 */

/** A normal completion. `delayMs` waits before answering (to test timeouts and latency). */
interface FakeContentReply {
  content: string;
  delayMs?: number;
  usage?: { promptTokens?: number; completionTokens?: number };
  model?: string;
  finishReason?: string;
  headers?: Record<string, string>;
}

/** The model proposes tool calls (`finish_reason: tool_calls`); `arguments` is sent as JSON text. */
export interface FakeToolCallsReply {
  toolCalls: { id?: string; name: string; arguments: unknown }[];
  content?: string | null;
  delayMs?: number;
}

/** An HTTP error. `body` defaults to an OpenAI-style `{ error: { message, type } }`. */
interface FakeErrorReply {
  status: number;
  body?: unknown;
  delayMs?: number;
  /** e.g. `{ 'retry-after-ms': '10' }` to make the client's retry wait short. */
  headers?: Record<string, string>;
}

/** Never answer; the connection stays open until the client gives up or the server closes. */
interface FakeHangReply {
  hang: true;
}

export type FakeLlmReply = FakeContentReply | FakeToolCallsReply | FakeErrorReply | FakeHangReply;

/** Computes the reply for the `index`-th request (0-based, counting every chat request). */
export type FakeLlmHandler = (body: any, index: number) => FakeLlmReply | Promise<FakeLlmReply>;

export interface FakeLlmRequest {
  body: any;
  headers: Record<string, string>;
}

export interface FakeLlmServer {
  /** `http://127.0.0.1:PORT/v1`, to pass as the client's baseURL. */
  baseURL: string;
  /** Every chat request received, in order (including ones answered with errors or left hanging). */
  requests: FakeLlmRequest[];
  /** Append scripted replies; they are used before the handler. */
  enqueue(...replies: FakeLlmReply[]): void;
  /** Reply with `fn` once the queue is empty. */
  setHandler(fn: FakeLlmHandler): void;
  /** Stop listening and drop every open connection (hanging ones too). */
  close(): Promise<void>;
}

function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function promptText(body: any): string {
  const messages: unknown = body?.messages;
  if (!Array.isArray(messages)) return '';
  return messages.map((m) => (typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? ''))).join('\n');
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function toolCallsCompletion(body: any, reply: FakeToolCallsReply, index: number): unknown {
  const toolCalls = reply.toolCalls.map((call, i) => ({
    id: call.id ?? `call_fake_${index}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const promptTokens = roughTokens(promptText(body));
  const completionTokens = roughTokens(JSON.stringify(toolCalls));
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: typeof body?.model === 'string' ? body.model : 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: reply.content ?? null, refusal: null, tool_calls: toolCalls }, finish_reason: 'tool_calls', logprobs: null }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function completion(body: any, reply: FakeContentReply, index: number): unknown {
  const promptTokens = reply.usage?.promptTokens ?? roughTokens(promptText(body));
  const completionTokens = reply.usage?.completionTokens ?? roughTokens(reply.content);
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? (typeof body?.model === 'string' ? body.model : 'fake-model'),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content, refusal: null },
        finish_reason: reply.finishReason ?? 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Start the fake endpoint. `script` is either the initial reply queue or a handler.
 * With neither a queued reply nor a handler, a request gets HTTP 400 (not retried by the
 * client), so a test that under-scripts fails loudly instead of hanging.
 */
export async function startFakeLlmServer(script?: FakeLlmReply[] | FakeLlmHandler): Promise<FakeLlmServer> {
  const queue: FakeLlmReply[] = Array.isArray(script) ? [...script] : [];
  let handler: FakeLlmHandler | undefined = typeof script === 'function' ? script : undefined;
  const requests: FakeLlmRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
      sendJson(res, 404, { error: { message: `fake-llm-server: no route ${req.method} ${url.pathname}`, type: 'not_found' } });
      return;
    }
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      sendJson(res, 400, { error: { message: 'fake-llm-server: body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    const index = requests.length;
    requests.push({ body, headers: flatHeaders(req) });
    if (body?.stream) {
      sendJson(res, 400, { error: { message: 'fake-llm-server: streaming is not supported', type: 'invalid_request_error' } });
      return;
    }

    const reply = queue.length > 0 ? queue.shift() : handler ? await handler(body, index) : undefined;
    if (!reply) {
      sendJson(res, 400, {
        error: { message: `fake-llm-server: no scripted reply left for request ${index}`, type: 'invalid_request_error' },
      });
      return;
    }
    if ('hang' in reply) return; // keep the socket open; close() destroys it
    if (reply.delayMs) await wait(reply.delayMs);
    if (closed || res.destroyed) return;
    if ('status' in reply) {
      const payload = reply.body ?? { error: { message: `fake-llm-server: scripted HTTP ${reply.status}`, type: 'server_error' } };
      sendJson(res, reply.status, payload, reply.headers);
      return;
    }
    if ('toolCalls' in reply) {
      sendJson(res, 200, toolCallsCompletion(body, reply, index));
      return;
    }
    sendJson(res, 200, completion(body, reply, index), reply.headers);
  }

  const server: Server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, { error: { message: `fake-llm-server: handler failed: ${String(error)}`, type: 'server_error' } });
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setHandler: (fn) => {
      handler = fn;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await done;
    },
  };
}

/**
 * A baseURL on 127.0.0.1 where nothing listens (a port the OS just handed out and took back),
 * for "endpoint unreachable" tests: connections are refused at once.
 */
export async function unusedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
