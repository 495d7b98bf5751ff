import { DEPLOYMENT_SEGMENTS } from '@guardagent/queue';

/** One call to count against a per-subject, per-tool sliding window. */
export interface RateLimitRequest {
  tenant: string;
  policyId: string;
  tool: string;
  subjectId: string;
  max: number;
  windowSeconds: number;
  /** The guard job's id: the same job hitting again (a re-run after a crash) is counted once. */
  callId?: string;
}

export interface RateLimitResult {
  /** True when the call fits in the window; it has then been counted. Refused calls are not counted. */
  allowed: boolean;
  /** Calls in the window, including this one when allowed. */
  count: number;
  /** When refused: milliseconds until the oldest counted call leaves the window. 0 when allowed. */
  retryAfterMs: number;
}

/** Sliding-window limiter. Implementations must check-and-count atomically. */
export interface RateLimiter {
  hit(request: RateLimitRequest): Promise<RateLimitResult>;
}

/** Key components may contain ':' (subject ids); encode them so two different tuples never share a key. */
export function rateLimitKey(prefix: string, r: Pick<RateLimitRequest, 'tenant' | 'policyId' | 'tool' | 'subjectId'>): string {
  return [prefix, DEPLOYMENT_SEGMENTS.rateLimits, ...[r.tenant, r.policyId, r.tool, r.subjectId].map(encodeURIComponent)].join(':');
}
