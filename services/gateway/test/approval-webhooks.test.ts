import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { verifyWebhookSignature } from '@guardagent/client';
import { keys } from '@guardagent/queue';
import { waitFor } from '@guardagent/testing';
import { startFixture, type GatewayFixture } from './gateway-fixture';

// A signed webhook per new held call (issue 36): real gateway and workers, a real HTTP receiver.
const refundDesk = parse(readFileSync(join(import.meta.dirname, '../../../examples/policies/refund-desk.yaml'), 'utf8'));
const refund = (who: string, amount: number) => ({
  policy: 'refund-desk',
  subject: { id: who, roles: ['support_agent'], attributes: { email: `${who}@example.com` } },
  action: { kind: 'tool_call', tool: 'issue_refund', args: { user_id: who, amount, reason: 'broken item' } },
});

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  answered: boolean;
  /** When it arrived and when it was answered (ms). */
  at: number;
  answeredAt: number;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers as `answer` says (a promise holds the answer back). */
async function startReceiver(answer: (request: Received, index: number) => number | Promise<number>) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', async () => {
      const entry = { headers: req.headers, body, answered: false, at: Date.now(), answeredAt: 0 };
      received.push(entry);
      const status = await answer(entry, received.length - 1);
      entry.answered = true;
      entry.answeredAt = Date.now();
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/guardagent?token=chat-secret`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const timings = { pollMs: 20, retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 2000, attempts: 4 };

describe("a tenant's own webhook (private hosts allowed)", () => {
  let f: GatewayFixture;
  let operatorKey: string;
  let agentKey: string;

  beforeAll(async () => {
    f = await startFixture({ stages: ['executor'], config: { approvalWebhook: { privateHosts: 'allow' } }, approvalWebhooks: timings });
    operatorKey = (await (await f.call('/v1/tenants', { body: { id: 'shop' } })).json()).apiKey;
    agentKey = (await (await f.call('/v1/keys', { body: { name: 'agent', scopes: ['check'] }, key: operatorKey })).json()).apiKey;
    expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key: operatorKey })).status).toBe(200);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('POSTs each held call signed with the tenant secret, retries a failure with backoff, and never holds up a check', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The first delivery waits until the test lets it answer 503; the next ones get 200.
    const receiver = await startReceiver(async (_request, index) => {
      if (index > 0) return 200;
      await held;
      return 503;
    });
    try {
      const set = await f.call('/v1/webhooks/approvals', { method: 'PUT', body: { url: receiver.url }, key: operatorKey });
      expect(set.status).toBe(200);
      const { secret } = await set.json();
      expect(secret).toMatch(/^whsec_/);
      expect(await (await f.call('/v1/webhooks/approvals', { key: operatorKey })).json()).toEqual({ url: receiver.url, createdAt: expect.any(String), source: 'tenant' });
      expect((await f.call('/v1/webhooks/approvals', { method: 'PUT', body: { url: receiver.url }, key: agentKey })).status).toBe(403);

      const first = await (await f.call('/v1/checks', { body: refund('u-1', 80), key: agentKey })).json();
      expect(first.decision).toBe('pending');
      await waitFor(async () => receiver.received.length >= 1, 10_000, 'the first webhook');
      // The receiver has not answered the first webhook; a check still gets its decision.
      const second = await (await f.call('/v1/checks', { body: refund('u-2', 90), key: agentKey })).json();
      expect(second.decision).toBe('pending');
      expect(receiver.received[0]!.answered).toBe(false);
      release();

      const forFirst = () => receiver.received.filter((r) => r.headers['guardagent-webhook-id'] === first.approval.id);
      await waitFor(async () => forFirst().length >= 2 && forFirst()[1]!.answered, 10_000, 'the retried webhook');
      const [failed, retried] = forFirst();
      expect([failed!.headers['guardagent-webhook-attempt'], retried!.headers['guardagent-webhook-attempt']]).toEqual(['1', '2']);
      // Backoff: the retry waited at least retryBaseMs after the failure.
      expect(retried!.at - failed!.answeredAt).toBeGreaterThanOrEqual(timings.retryBaseMs - 5);
      for (const request of [failed!, retried!]) {
        expect(request.headers['content-type']).toBe('application/json');
        expect(verifyWebhookSignature({ secret, body: request.body, headers: request.headers as Record<string, string> })).toBe(true);
        expect(verifyWebhookSignature({ secret: `${secret}x`, body: request.body, headers: request.headers as Record<string, string> })).toBe(false);
        expect(verifyWebhookSignature({ secret, body: request.body.replace('80', '8000'), headers: request.headers as Record<string, string> })).toBe(false);
        // A captured request replayed an hour later is refused.
        expect(verifyWebhookSignature({ secret, body: request.body, headers: request.headers as Record<string, string>, now: Date.now() + 3_600_000 })).toBe(false);
      }
      const event = JSON.parse(retried!.body);
      expect(event).toMatchObject({
        type: 'approval.pending',
        id: first.approval.id,
        tenant: 'shop',
        policy: 'refund-desk',
        tool: 'issue_refund',
        args: { user_id: 'u-1', amount: 80, reason: 'broken item' },
        subject: 'u-1',
        reasons: ["refunds over 50 need a supervisor's approval"],
        rules: ['tools.issue_refund.approval.over-50'],
        decisionId: first.id,
        expiresAt: first.approval.expiresAt,
        links: { approve: `/v1/approvals/${first.approval.id}/approve`, reject: `/v1/approvals/${first.approval.id}/reject` },
      });
      expect(retried!.body).not.toContain('apv_');
      // Delivered: its entry leaves the queue, and it is sent no more.
      const queue = keys(f.runtime.shardOf('shop').prefix).approvalWebhooks();
      await waitFor(async () => (await f.runtime.redis.zscore(queue, first.approval.id)) === null, 10_000, 'the delivered webhook to leave the queue');
      await waitFor(async () => receiver.received.some((r) => r.headers['guardagent-webhook-id'] === second.approval.id && r.answered), 10_000, 'the second webhook');
      await waitFor(async () => (await f.runtime.redis.zcard(queue)) === 0, 10_000, 'every webhook delivered');
      expect(forFirst()).toHaveLength(2);
      // The approver acts on the event: approve by its id.
      const approved = await f.call(event.links.approve, { body: { approver: 'ops-lead' }, key: operatorKey });
      expect(approved.status).toBe(200);
    } finally {
      await receiver.close();
    }
  });

  it('stops retrying once the call is decided, and does not retry an answer that says it will not help', async () => {
    const statuses: number[] = [];
    const receiver = await startReceiver((request) => {
      const event = JSON.parse(request.body);
      const status = event.args.amount === 410 ? 410 : 500;
      statuses.push(status);
      return status;
    });
    try {
      expect((await f.call('/v1/webhooks/approvals', { method: 'PUT', body: { url: receiver.url, secret: 'a-secret-of-our-own-0123' }, key: operatorKey })).status).toBe(200);
      const queue = keys(f.runtime.shardOf('shop').prefix).approvalWebhooks();
      const gone = await (await f.call('/v1/checks', { body: refund('u-3', 410), key: agentKey })).json();
      await waitFor(async () => (await f.runtime.redis.zscore(queue, gone.approval.id)) === null, 10_000, 'the 410 webhook to be dropped');
      expect(receiver.received.filter((r) => r.headers['guardagent-webhook-id'] === gone.approval.id)).toHaveLength(1);

      const failing = await (await f.call('/v1/checks', { body: refund('u-4', 99), key: agentKey })).json();
      const tries = () => receiver.received.filter((r) => r.headers['guardagent-webhook-id'] === failing.approval.id).length;
      await waitFor(async () => tries() >= 2, 10_000, 'a retry of the failing webhook');
      expect((await f.call(`/v1/approvals/${failing.approval.id}/reject`, { body: { approver: 'ops-lead', reason: 'no' }, key: operatorKey })).status).toBe(200);
      await waitFor(async () => (await f.runtime.redis.zscore(queue, failing.approval.id)) === null, 10_000, 'the decided webhook to be dropped');
      const after = tries();
      expect(after).toBeLessThan(timings.attempts + 1);
      // Dropped for good: nothing is sent for it however long the queue is read (a later held call's webhook goes through the same loop).
      const later = await (await f.call('/v1/checks', { body: refund('u-5', 51), key: agentKey })).json();
      await waitFor(async () => receiver.received.some((r) => r.headers['guardagent-webhook-id'] === later.approval.id), 10_000, 'a later webhook');
      expect(tries()).toBe(after);
      expect((await f.call('/v1/webhooks/approvals', { method: 'DELETE', key: operatorKey })).status).toBe(204);
      expect((await f.call('/v1/webhooks/approvals', { method: 'DELETE', key: operatorKey })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  });
});

describe("the deployment's webhook, and tenants' webhooks to private addresses (refused by default)", () => {
  let f: GatewayFixture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const deploymentSecret = 'deployment-webhook-secret-0123';

  beforeAll(async () => {
    receiver = await startReceiver(() => 204);
    f = await startFixture({
      stages: ['executor'],
      config: { approvalWebhook: { url: receiver.url, secret: deploymentSecret, privateHosts: 'deny' } },
      approvalWebhooks: timings,
    });
    for (const tenant of ['plain', 'private']) {
      const key = (await (await f.call('/v1/tenants', { body: { id: tenant } })).json()).apiKey;
      expect((await f.call('/v1/policies/refund-desk', { method: 'PUT', body: refundDesk, key })).status).toBe(200);
    }
    // Tenant `private` points its own webhook at a loopback address: refused, never sent.
    expect((await f.call('/v1/webhooks/approvals?tenant=private', { method: 'PUT', body: { url: receiver.url.replace('/hooks/', '/private/') } })).status).toBe(200);
  });
  afterAll(async () => {
    await f?.close();
    await receiver?.close();
  });

  it('sends a tenant without a webhook of its own to the deployment one, signed with its secret; never a private address for a tenant', async () => {
    const plainKey = (await (await f.call('/v1/keys?tenant=plain', { body: { scopes: ['check'] } })).json()).apiKey;
    const privateKey = (await (await f.call('/v1/keys?tenant=private', { body: { scopes: ['check'] } })).json()).apiKey;
    const plain = await (await f.call('/v1/checks', { body: refund('u-7', 70), key: plainKey })).json();
    const hidden = await (await f.call('/v1/checks', { body: refund('u-8', 70), key: privateKey })).json();
    expect([plain.decision, hidden.decision]).toEqual(['pending', 'pending']);
    const prefixOf = (tenant: string) => keys(f.runtime.shardOf(tenant).prefix).approvalWebhooks();
    await waitFor(async () => (await f.runtime.redis.zscore(prefixOf('private'), hidden.approval.id)) === null, 10_000, "the private tenant's webhook to be dropped");
    await waitFor(async () => receiver.received.some((r) => r.headers['guardagent-webhook-id'] === plain.approval.id), 10_000, "the plain tenant's webhook");
    const sent = receiver.received.find((r) => r.headers['guardagent-webhook-id'] === plain.approval.id)!;
    expect(verifyWebhookSignature({ secret: deploymentSecret, body: sent.body, headers: sent.headers as Record<string, string> })).toBe(true);
    expect(JSON.parse(sent.body)).toMatchObject({ tenant: 'plain', id: plain.approval.id });
    expect(receiver.received.some((r) => r.headers['guardagent-webhook-id'] === hidden.approval.id)).toBe(false);
    const view = await (await f.call('/v1/webhooks/approvals?tenant=plain')).json();
    expect(view).toMatchObject({ source: 'deployment' });
    expect(JSON.stringify(view)).not.toContain('chat-secret');
  });
});
