import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@guardagent/errors';
import { loadConfig } from '@guardagent/config';
import { ADMIN_KEY, startFixture, type GatewayFixture } from './gateway-fixture';

const METRICS_KEY = 'metrics-only-key-0123456789abcdef';
let f: GatewayFixture;

beforeAll(async () => {
  f = await startFixture({ stages: [], config: { metricsKey: METRICS_KEY } });
});
afterAll(async () => {
  await f?.close();
});

describe('/metrics access, as the docs state it', () => {
  it('answers the metrics key and the admin key; no key 401, a tenant key 403', async () => {
    const scraped = await f.call('/metrics', { key: METRICS_KEY });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/^# HELP guardagent_/m);
    expect((await f.call('/metrics', { key: ADMIN_KEY })).status).toBe(200);
    expect((await f.call('/metrics', { key: null })).status).toBe(401);
    const tenant = await (await f.call('/v1/tenants', { body: { id: 'scraper-test' } })).json();
    const asTenant = await f.call('/metrics', { key: tenant.apiKey });
    expect(asTenant.status).toBe(403);
    expect((await asTenant.json()).error.message).toMatch(/metrics key \(GUARDAGENT_METRICS_KEY\) or the admin key/);
    // /healthz and /readyz need no key.
    expect((await f.call('/healthz', { key: null })).status).toBe(200);
    expect([200, 503]).toContain((await f.call('/readyz', { key: null })).status);
  });

  it('the metrics key opens nothing else', async () => {
    for (const path of ['/v1/policies', '/v1/tenants', '/v1/quotas', '/v1/keys']) {
      expect((await f.call(path, { key: METRICS_KEY })).status, path).toBe(401);
    }
  });

  it('examples/http.md states it so: /metrics is not among the operations that need no key', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', 'examples', 'http.md'), 'utf8');
    const operations = doc.slice(doc.indexOf('## Operations'));
    const open = operations.indexOf('```', operations.indexOf('No key:'));
    const noKey = operations.slice(open, operations.indexOf('```', open + 3));
    expect(noKey).toContain('/healthz');
    expect(noKey).toContain('/readyz');
    expect(noKey).not.toContain('/metrics');
    expect(operations).toMatch(/`\/metrics`[\s\S]*answers only the metrics key[\s\S]*\(`GUARDAGENT_METRICS_KEY`[\s\S]*or the\s+admin key; without a key 401, with a tenant's key 403/);
  });

  it('a metrics key equal to the admin key is refused at start', () => {
    expect(() => loadConfig({ GUARDAGENT_ADMIN_KEY: ADMIN_KEY, GUARDAGENT_METRICS_KEY: ADMIN_KEY })).toThrow(ConfigError);
    expect(() => loadConfig({ GUARDAGENT_METRICS_KEY: 'short' })).toThrow(/GUARDAGENT_METRICS_KEY must be at least 16 characters/);
  });
});
