import type { Decision } from '@guardagent/schemas';

/** A complete, valid Decision for tests of what stores and reads decisions; `overrides` wins. */
export function testDecision(id: string, overrides: Partial<Decision> = {}): Decision {
  return {
    id,
    policy: { id: 'p', version: '1', digest: 'd', programDigest: 'p' },
    decision: 'deny',
    status: 'ok',
    layer: 'rails',
    mode: null,
    reasons: [],
    rules: [],
    details: {},
    plan: null,
    code: null,
    attempts: 0,
    timings: {},
    usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    traceId: '0'.repeat(32),
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}
