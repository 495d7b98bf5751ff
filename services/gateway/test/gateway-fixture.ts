import { loadConfig, type GuardConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { STAGES, type Stage } from '@guardagent/queue';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { startGateway, type Gateway, type GatewayLimits, type StartGatewayOptions } from '../src/index';
import { silentLogger } from '@guardagent/telemetry';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

/** A fetch Response whose JSON the tests read field by field (so typed loosely on purpose). */
// biome-ignore lint/suspicious/noExplicitAny: typed loosely on purpose (see above)
type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface GatewayFixture {
  config: GuardConfig;
  gateway: Gateway;
  runtime: Runtime;
  url: string;
  /** fetch against the gateway with a bearer key (admin by default). */
  call(path: string, init?: { method?: string; body?: unknown; raw?: string; contentType?: string; key?: string | null }): Promise<TestResponse>;
  close(): Promise<void>;
}

/** A real gateway on a free port, in front of real workers for `stages`, on a fresh key prefix. */
export async function startFixture(
  options: {
    stages?: readonly Stage[];
    limits?: Partial<GatewayLimits>;
    redisUrl?: string;
    config?: Partial<GuardConfig>;
    approvalWebhooks?: StartGatewayOptions['approvalWebhooks'];
  } = {},
): Promise<GatewayFixture> {
  const config = loadConfig({}, { redisUrl: options.redisUrl ?? testRedisUrl(), prefix: uniquePrefix('gw'), adminKey: ADMIN_KEY, ...options.config });
  const runtime = await createRuntime(config, { llm: null, logger: silentLogger });
  runtime.startWorkers(options.stages ?? STAGES);
  const gateway = await startGateway({
    config,
    port: 0,
    logger: silentLogger,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.approvalWebhooks !== undefined ? { approvalWebhooks: options.approvalWebhooks } : {}),
  });
  const url = gateway.url;
  return {
    config,
    gateway,
    runtime,
    url,
    call(path, init = {}) {
      const headers: Record<string, string> = {};
      const key = init.key === undefined ? ADMIN_KEY : init.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (init.raw !== undefined) body = init.raw;
      else if (init.body !== undefined) body = JSON.stringify(init.body);
      if (body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
      return fetch(`${url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
    },
    async close() {
      await gateway.close();
      await runtime.close();
    },
  };
}

/** A policy whose supplied program denies refunds over 100; its examples let it be verified without an LLM. */
export function refundPolicy(id = 'refunds') {
  return {
    id,
    version: '1',
    requests: 'Deny any refund over 100.',
    mode: 'compiled',
    program:
      "const amount = Number(context.amount ?? 0);\n" +
      "if (amount > 100) return { deny: true, reasons: ['refund of ' + amount + ' is over 100'] };\n" +
      "return { deny: false, reasons: [] };",
    examples: [
      { id: 'big', input: 'refund please', context: { amount: 500 }, label: 1 },
      { id: 'small', input: 'refund please', context: { amount: 20 }, label: 0 },
    ],
  };
}

/** Version 2 of refundPolicy as a shadow: denies refunds over 10 (version 1: over 100). */
export function strictRefundShadow(id = 'refunds') {
  return {
    ...refundPolicy(id),
    version: '2',
    enforcement: 'shadow',
    program: refundPolicy(id).program.replaceAll('100', '10'),
    examples: [
      { id: 'big', input: 'refund please', context: { amount: 500 }, label: 1 },
      { id: 'small', input: 'refund please', context: { amount: 5 }, label: 0 },
    ],
  };
}
