import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeLlmServer, unusedBaseUrl, type FakeLlmServer } from '../src/fake-llm-server';

const servers: FakeLlmServer[] = [];
async function start(...args: Parameters<typeof startFakeLlmServer>): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer(...args);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function chat(baseURL: string, content: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k-123' },
    body: JSON.stringify({ model: 'm-1', messages: [{ role: 'user', content }] }),
    ...init,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read the replies' JSON field by field
async function json(res: Response | Promise<Response>): Promise<any> {
  return (await res).json();
}

describe('startFakeLlmServer', () => {
  it('listens on 127.0.0.1 under /v1 and answers queued replies in OpenAI shape', async () => {
    const server = await start([{ content: 'first' }, { content: 'second', usage: { promptTokens: 7, completionTokens: 3 } }]);
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const a = await json(chat(server.baseURL, 'hello there'));
    expect(a.object).toBe('chat.completion');
    expect(a.model).toBe('m-1');
    expect(a.choices[0].message).toEqual({ role: 'assistant', content: 'first', refusal: null });
    expect(a.usage.prompt_tokens).toBeGreaterThan(0);
    expect(a.usage.total_tokens).toBe(a.usage.prompt_tokens + a.usage.completion_tokens);

    const b = await json(chat(server.baseURL, 'again'));
    expect(b.choices[0].message.content).toBe('second');
    expect(b.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });

    expect(server.requests).toHaveLength(2);
    expect(server.requests[0].body.messages[0].content).toBe('hello there');
    expect(server.requests[0].headers.authorization).toBe('Bearer k-123');
  });

  it('answers scripted HTTP errors with their status, body and headers', async () => {
    const server = await start([{ status: 503, headers: { 'retry-after-ms': '5' } }, { status: 429, body: { error: { message: 'slow down' } } }]);
    const a = await chat(server.baseURL, 'x');
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after-ms')).toBe('5');
    expect((await json(a)).error.message).toContain('503');
    const b = await chat(server.baseURL, 'x');
    expect(b.status).toBe(429);
    expect(await json(b)).toEqual({ error: { message: 'slow down' } });
  });

  it('uses the handler after the queue, with the request index', async () => {
    const server = await start([{ content: 'queued' }]);
    server.setHandler((body, index) => ({ content: `#${index}:${body.messages[0].content}` }));
    server.enqueue({ content: 'queued-later' });
    const texts: string[] = [];
    for (const word of ['a', 'b', 'c']) {
      texts.push((await json(chat(server.baseURL, word))).choices[0].message.content);
    }
    expect(texts).toEqual(['queued', 'queued-later', '#2:c']);
  });

  it('fails loudly with HTTP 400 when nothing is scripted', async () => {
    const server = await start();
    const res = await chat(server.baseURL, 'x');
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toMatch(/no scripted reply/);
  });

  it('delays replies by delayMs', async () => {
    const server = await start([{ delayMs: 150, content: 'late' }]);
    const started = Date.now();
    const res = await chat(server.baseURL, 'x');
    expect((await json(res)).choices[0].message.content).toBe('late');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('leaves hanging requests open, and close() drops them', async () => {
    const server = await start([{ hang: true }, { content: 'later' }]);
    let outcome = 'still waiting';
    const pending = chat(server.baseURL, 'x').then(
      () => (outcome = 'answered'),
      () => (outcome = 'connection dropped'),
    );
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    // A later request is answered while the first stays open: the server has moved past it.
    expect((await json(chat(server.baseURL, 'y'))).choices[0].message.content).toBe('later');
    expect(outcome).toBe('still waiting');
    expect(server.requests).toHaveLength(2);
    await server.close();
    expect(await pending).toBe('connection dropped');
  });

  it('answers 404 for other routes', async () => {
    const server = await start([{ content: 'unused' }]);
    const res = await fetch(`${server.baseURL}/models`);
    expect(res.status).toBe(404);
    expect(server.requests).toHaveLength(0);
  });
});

describe('unusedBaseUrl', () => {
  it('gives a loopback URL where connections are refused', async () => {
    const url = await unusedBaseUrl();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    await expect(chat(url, 'x')).rejects.toThrow();
  });
});
