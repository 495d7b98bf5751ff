import { describe, expect, it } from 'vitest';
import { DEPLOYMENT_SEGMENTS, RESERVED_TENANT_IDS, STAGES, isReservedTenantId, keys } from '../src/index';

// Tenant data is `<prefix>:<tenant>:…`; every other key is `<prefix>:<reserved segment>:…`. With no
// tenant allowed a reserved id, no tenant key can equal a deployment key, in one shard or many.

const P = 'guardagent';
const k = keys(P);

/** Every builder of keys(), with the arguments it takes: the tenant's first where it has one. */
const TENANT_KEYS: Record<string, (tenant: string) => string> = {
  decision: (t) => k.decision(t, 'id'),
  jobPayload: (t) => k.jobPayload(t, 'id'),
  idempotencyBinding: (t) => k.idempotencyBinding(t, 'id'),
  decisionLog: (t) => k.decisionLog(t),
  checkChunk: (t) => k.checkChunk(t, 'id'),
  compileResult: (t) => k.compileResult(t, 'id'),
  policyCurrent: (t) => k.policyCurrent(t, 'id'),
  policyIndex: (t) => k.policyIndex(t),
  policyShadow: (t) => k.policyShadow(t, 'id'),
  policySnapshot: (t) => k.policySnapshot(t, 'digest'),
  policyVersions: (t) => k.policyVersions(t, 'id'),
  program: (t) => k.program(t, 'digest'),
  programReport: (t) => k.programReport(t, 'digest'),
  compileLock: (t) => k.compileLock(t, 'digest'),
  llmCache: (t) => k.llmCache(t, 'hash'),
  batch: (t) => k.batch(t, 'id'),
  batchResults: (t) => k.batchResults(t, 'id'),
  replay: (t) => k.replay(t, 'id'),
  policyReplays: (t) => k.policyReplays(t, 'id'),
  quotaBucket: (t) => k.quotaBucket(t),
  jobsInFlight: (t) => k.jobsInFlight(t),
  storedBytes: (t) => k.storedBytes(t),
  metricsPolicies: (t) => k.metricsPolicies(t),
  approvalIndex: (t) => k.approvalIndex(t),
  heldCall: (t) => k.heldCall(t, 'hash'),
};
const DEPLOYMENT_KEYS: Record<string, string> = {
  replyChannel: k.replyChannel('client'),
  metricsShadow: k.metricsShadow(),
  tenant: k.tenant('acme'),
  tenantIndex: k.tenantIndex(),
  tenantIndexBuilt: k.tenantIndexBuilt(),
  tenantQuotas: k.tenantQuotas('acme'),
  tenantByKeyHash: k.tenantByKeyHash('ab'.repeat(32)),
  tenantKeyRecords: k.tenantKeyRecords('acme'),
  metricsDecisions: k.metricsDecisions(),
  metricsTakeovers: k.metricsTakeovers(),
  workerHeartbeat: k.workerHeartbeat('executor'),
  metricsSandbox: k.metricsSandbox(),
  sandboxPools: k.sandboxPools(),
  shardLayout: k.shardLayout(),
  approvalWebhooks: k.approvalWebhooks(),
  approvalWebhookAttempts: k.approvalWebhookAttempts(),
  tenantWebhook: k.tenantWebhook('acme'),
  // BullMQ's own layout: `<prefix>:<queue>:…`.
  jobLock: k.jobLock('executor', 'job'),
};

const firstSegment = (key: string) => key.slice(P.length + 1).split(':')[0];

describe('tenant data and the deployment\'s own keys do not share a key space', () => {
  it('every builder is classified here (a new one must be added to one list or the other)', () => {
    expect(Object.keys(k).sort()).toEqual([...Object.keys(TENANT_KEYS), ...Object.keys(DEPLOYMENT_KEYS)].sort());
  });

  it('tenant keys start with the tenant segment; the others with a reserved segment', () => {
    for (const [name, build] of Object.entries(TENANT_KEYS)) expect(firstSegment(build('acme')), name).toBe('acme');
    for (const [name, key] of Object.entries(DEPLOYMENT_KEYS)) expect(RESERVED_TENANT_IDS, `${name}: ${key}`).toContain(firstSegment(key));
    // BullMQ queues are named after the stages, and the rails' windows and approvals have their own.
    for (const stage of STAGES) expect(isReservedTenantId(stage)).toBe(true);
    expect(isReservedTenantId(DEPLOYMENT_SEGMENTS.rateLimits)).toBe(true);
    expect(isReservedTenantId(DEPLOYMENT_SEGMENTS.approval)).toBe(true);
  });

  it('the collision that a tenant named `tenants` caused is what the reservation rules out', () => {
    // A policy `keys` of tenant `tenants` is the key-record hash of tenant `policy`; quotas likewise.
    expect(k.policyCurrent('tenants', 'keys')).toBe(k.tenantKeyRecords('policy'));
    expect(k.policyCurrent('tenants', 'quotas')).toBe(k.tenantQuotas('policy'));
    expect(isReservedTenantId('tenants')).toBe(true);
    // An allowed tenant id reaches no deployment key, whatever its ids.
    for (const tenant of ['policy', 'acme', 'Tenants', 't-0123', 'executor2']) {
      expect(isReservedTenantId(tenant)).toBe(false);
      for (const build of Object.values(TENANT_KEYS)) {
        expect(RESERVED_TENANT_IDS).not.toContain(firstSegment(build(tenant)));
        expect(Object.values(DEPLOYMENT_KEYS)).not.toContain(build(tenant));
      }
    }
  });
});
