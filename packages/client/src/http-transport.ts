import { randomUUID } from 'node:crypto';
import {
  CheckTimeoutError,
  DecisionLostError,
  GuardAgentError,
  IdempotencyConflictError,
  NotFoundError,
  QuotaExceededError,
  ScopeRequiredError,
  StoreFullError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
  errorMessage,
  type FieldIssue,
} from '@guardagent/errors';
import {
  CompileResultSchema,
  DecisionSchema,
  GuardJobSchema,
  PolicySchema,
  parseOrThrow,
  type CompileResult,
  type Policy,
  type Decision,
  type GuardJobInput,
  type PolicyInput,
} from '@guardagent/schemas';
import type { BatchStatus } from '@guardagent/schemas';
import type { CheckOptions, FeedbackInput, GuardTransport } from './guard-transport';
import { DEFAULT_SUBMIT_ATTEMPTS, withSubmitRetries } from './submit-retry';

export interface HttpTransportOptions {
  /** The gateway, e.g. `http://localhost:8080`. */
  baseUrl: string;
  /** A tenant API key (or the admin key, which acts as tenant `default`). */
  apiKey: string;
  /** Longest any one HTTP request may take beyond the wait it asks the gateway for (default 30 s). */
  requestTimeoutMs?: number;
  /** Longest wait one request asks the gateway to hold; longer check/compile timeouts poll (default 60 s). */
  maxServerWaitMs?: number;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * Tries of a check or submit whose answer was lost (the connection broke, or the gateway answered
   * 502/503/504 UNAVAILABLE, as it does while Redis reconnects or a Redis Cluster fails over; a
   * retry waits at least the answer's Retry-After, up to 10 s); default 4. Safe because every check is sent with an idempotency key
   * (a random one when the job has none), so a retry joins the job the first try may have queued.
   */
  submitAttempts?: number;
}

export type { BatchStatus };

export type ApiKeyScope = 'check' | 'feedback' | 'operate' | 'admin';
export interface ApiKeyView {
  id: string;
  name?: string;
  scopes: ApiKeyScope[];
  createdAt: string;
  rotatedAt?: string;
}
export interface IssuedApiKey extends ApiKeyView {
  apiKey: string;
}

/** A stored policy as GET /v1/policies/{id} shows it: its current version, verified program and shadow. */
export interface PolicyView {
  policy: Policy;
  digest: string;
  programDigest: string;
  program: { source: 'supplied' | 'compiled'; promotedAt: string; passedCount: number; total: number; replay: unknown } | null;
  shadow: { version: string; digest: string; programDigest: string; programPromoted: boolean; replay: unknown } | null;
}
/** One version put under a policy id (GET /v1/policies/{id}/versions), newest first. */
export interface PolicyVersionInfo {
  digest: string;
  version: string;
  enforcement: 'enforce' | 'shadow';
  putAt: string | null;
  current: boolean;
  shadow: boolean;
}
export interface TenantInfo {
  id: string;
  name?: string;
  createdAt: string;
}
/** A tenant's quotas in force, its overrides of the defaults, and what it holds now. */
export interface QuotasView {
  quotas: Record<string, number>;
  overrides: Record<string, number>;
  inFlight: number;
  storedBytes: number;
}

/** An error answer of the gateway that has no more specific class; `code` is the server's. */
export class GatewayError extends GuardAgentError {
  readonly code: string;
  readonly status: number;
  constructor(code: string, message: string, status: number, details: Record<string, unknown> = {}) {
    super(message, { ...details, status });
    this.code = code;
    this.status = status;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; issues?: unknown; details?: unknown };
}

const DEFAULT_CHECK_TIMEOUT_MS = 30_000;
const DEFAULT_COMPILE_TIMEOUT_MS = 10 * 60_000;

/** The gateway's error body → the typed error the queue transport would have thrown, with the server's message. */
async function errorFrom(response: Response, path: string): Promise<GuardAgentError> {
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    body = {};
  }
  const code = typeof body.error?.code === 'string' ? body.error.code : '';
  const message = typeof body.error?.message === 'string' ? body.error.message : `HTTP ${response.status} from ${path}`;
  const details = body.error?.details && typeof body.error.details === 'object' ? (body.error.details as Record<string, unknown>) : {};
  let error: GuardAgentError;
  if (code === 'VALIDATION_FAILED' || (!code && response.status === 400)) {
    const issues = Array.isArray(body.error?.issues) ? (body.error.issues as FieldIssue[]) : [{ path: '', message }];
    error = new ValidationError('request', issues);
  } else if (code === 'NOT_FOUND' || (!code && response.status === 404)) {
    error = new NotFoundError(typeof details.kind === 'string' ? details.kind : 'resource', typeof details.id === 'string' ? details.id : path);
  } else if (code === 'DECISION_LOST') {
    error = new DecisionLostError(typeof details.id === 'string' ? details.id : path);
  } else if (code === 'QUOTA_EXCEEDED' || (!code && response.status === 429)) {
    const retryAfter = Number(response.headers.get('retry-after'));
    error = new QuotaExceededError(message, typeof details.limit === 'number' ? details.limit : 0, {
      ...details,
      ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
    });
  } else if (code === 'STORE_FULL') {
    const retryAfter = Number(response.headers.get('retry-after'));
    error = new StoreFullError(message, { ...details, retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 1 });
  } else if (code === 'IDEMPOTENCY_CONFLICT') {
    error = new IdempotencyConflictError('');
  } else if (code === 'SCOPE_REQUIRED') {
    error = new ScopeRequiredError(typeof details.scope === 'string' ? details.scope : 'unknown', path);
  } else if (code === 'UNAUTHORIZED' || (!code && response.status === 401)) {
    error = new UnauthorizedError(message);
  } else if (code === 'UNAVAILABLE' || (!code && response.status >= 502 && response.status <= 504)) {
    // Redis reconnecting or a cluster failing over (`details.redis`), a gateway restarting, a proxy's 5xx.
    const retryAfter = Number(response.headers.get('retry-after'));
    error = new UnavailableError(message, { ...details, status: response.status, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}) });
  } else {
    error = new GatewayError(code || `HTTP_${response.status}`, message, response.status, details);
  }
  // The server's wording, so a message reads the same whichever transport raised it.
  error.message = message;
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `url` without its trailing slashes; a scan, as `/\/+$/` retried at every slash of a long run (quadratic). */
function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

/**
 * The job with an idempotency key: its own, or a fresh random one. The gateway derives the job id
 * from it, so a retried request joins the job an earlier try queued instead of queueing another.
 */
function withIdempotencyKey(job: GuardJobInput): GuardJobInput {
  return job.idempotencyKey ? job : { ...job, idempotencyKey: `sdk-${randomUUID()}` };
}

/** GuardTransport over the gateway's HTTP API (fetch; no Redis access needed on the agent's side). */
export class HttpTransport implements GuardTransport {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly requestTimeoutMs: number;
  private readonly maxServerWaitMs: number;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: HttpTransportOptions) {
    if (!options.apiKey) throw new UnauthorizedError('HttpTransport needs an apiKey');
    this.baseUrl = withoutTrailingSlashes(options.baseUrl);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.maxServerWaitMs = options.maxServerWaitMs ?? 60_000;
  }

  async submit(job: GuardJobInput): Promise<{ id: string }> {
    parseOrThrow(GuardJobSchema, job, 'guard job');
    const response = await this.submitRequest('/v1/checks?wait=0', withIdempotencyKey(job));
    const body = (await response.json()) as { id: string };
    return { id: body.id };
  }

  async check(job: GuardJobInput, options: CheckOptions = {}): Promise<Decision> {
    parseOrThrow(GuardJobSchema, job, 'guard job');
    const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const wait = Math.max(1, Math.min(timeoutMs, this.maxServerWaitMs));
    const response = await this.submitRequest(`/v1/checks?wait=${wait}`, withIdempotencyKey(job), wait);
    const body = await response.json();
    if (response.status === 200) return DecisionSchema.parse(body);
    const { id } = body as { id: string };
    const decision = await this.pollUntil(deadline, () => this.result(id));
    if (!decision) throw new CheckTimeoutError(id, timeoutMs);
    return decision;
  }

  /**
   * The stored decision, or null while there is none (running, unknown or expired). A check that
   * was decided and whose decision Redis has since lost throws DecisionLostError: polling it would
   * never end.
   */
  async result(id: string): Promise<Decision | null> {
    const path = `/v1/checks/${encodeURIComponent(id)}`;
    const response = await this.request('GET', path, { allow: [202, 404] });
    if (response.status === 404) {
      const error = await errorFrom(response, path);
      if (error instanceof DecisionLostError) throw error;
      return null;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return null;
    }
    return DecisionSchema.parse(await response.json());
  }

  async feedback(id: string, feedback: FeedbackInput): Promise<{ promoted: boolean }> {
    const response = await this.request('POST', `/v1/checks/${encodeURIComponent(id)}/feedback`, { json: feedback, waitMs: 30_000 });
    const body = (await response.json()) as { promoted: boolean };
    return { promoted: Boolean(body.promoted) };
  }

  async putPolicy(input: PolicyInput): Promise<{ id: string; version: string; digest: string }> {
    const policy = parseOrThrow(PolicySchema, input, 'policy');
    const response = await this.request('PUT', `/v1/policies/${encodeURIComponent(policy.id)}`, { json: input });
    return (await response.json()) as { id: string; version: string; digest: string };
  }

  async compile(policyOrId: PolicyInput | string, options: CheckOptions = {}): Promise<CompileResult> {
    const id = typeof policyOrId === 'string' ? policyOrId : (await this.putPolicy(policyOrId)).id;
    const timeoutMs = options.timeoutMs ?? DEFAULT_COMPILE_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const wait = Math.max(1, Math.min(timeoutMs, this.maxServerWaitMs));
    const response = await this.request('POST', `/v1/policies/${encodeURIComponent(id)}/compile?wait=${wait}`, { waitMs: wait });
    const body = await response.json();
    if (response.status === 200) return CompileResultSchema.parse(body);
    const compileId = (body as { id: string }).id;
    const result = await this.pollUntil(deadline, async () => {
      const read = await this.request('GET', `/v1/compiles/${encodeURIComponent(compileId)}`, { allow: [202] });
      if (read.status === 200) return CompileResultSchema.parse(await read.json());
      await read.body?.cancel();
      return null;
    });
    if (!result) throw new CheckTimeoutError(compileId, timeoutMs);
    return result;
  }

  /** The tenant's policies: each id's current version. */
  async listPolicies(): Promise<Array<{ id: string; version: string; digest: string; description?: string }>> {
    const response = await this.request('GET', '/v1/policies');
    return ((await response.json()) as { policies: Array<{ id: string; version: string; digest: string; description?: string }> }).policies;
  }

  /** A policy's current version, its verified program (if one is promoted) and its shadow (if any). */
  async getPolicy(id: string): Promise<PolicyView> {
    const response = await this.request('GET', `/v1/policies/${encodeURIComponent(id)}`);
    const view = (await response.json()) as PolicyView;
    return { ...view, policy: PolicySchema.parse(view.policy) };
  }

  async deletePolicy(id: string): Promise<void> {
    await this.request('DELETE', `/v1/policies/${encodeURIComponent(id)}`);
  }

  /** The versions put under a policy id, newest first (the last 100). */
  async policyVersions(id: string): Promise<PolicyVersionInfo[]> {
    const response = await this.request('GET', `/v1/policies/${encodeURIComponent(id)}/versions`);
    return ((await response.json()) as { versions: PolicyVersionInfo[] }).versions;
  }

  /** One version of a policy id by digest (or a prefix of 8 hex digits or more). */
  async policyVersion(id: string, digest: string): Promise<{ policy: Policy; digest: string; programDigest: string }> {
    const response = await this.request('GET', `/v1/policies/${encodeURIComponent(id)}/versions/${encodeURIComponent(digest)}`);
    const view = (await response.json()) as { policy: unknown; digest: string; programDigest: string };
    return { policy: PolicySchema.parse(view.policy), digest: view.digest, programDigest: view.programDigest };
  }

  /**
   * Approve a held tool call by its token (a key with scope `operate`; the server admin key names
   * the `tenant`). A used or expired token, or the call's own subject as approver, is refused
   * (GatewayError CONFLICT or FORBIDDEN), an unknown token is a NotFoundError.
   */
  async approve(token: string, approver: string, options: { tenant?: string } = {}): Promise<'approved' | 'already-approved'> {
    const response = await this.request('POST', '/v1/approvals', { json: { token, approver, ...(options.tenant ? { tenant: options.tenant } : {}) } });
    return ((await response.json()) as { result: 'approved' | 'already-approved' }).result;
  }

  /** Create a tenant and its first key (the server admin key); the key is in this answer only. */
  async createTenant(input: { id?: string; name?: string } = {}): Promise<{ id: string; apiKey: string; key: ApiKeyView; createdAt: string }> {
    const response = await this.request('POST', '/v1/tenants', { json: input });
    return (await response.json()) as { id: string; apiKey: string; key: ApiKeyView; createdAt: string };
  }

  /** The tenants, oldest first, a page at a time (the server admin key). */
  async listTenants(options: { limit?: number; offset?: number } = {}): Promise<{ tenants: TenantInfo[]; total: number }> {
    const query = new URLSearchParams({ limit: String(options.limit ?? 100), offset: String(options.offset ?? 0) });
    const response = await this.request('GET', `/v1/tenants?${query}`);
    return (await response.json()) as { tenants: TenantInfo[]; total: number };
  }

  /** A tenant's quotas (the server admin key), or without an id the caller's own. */
  async tenantQuotas(id?: string): Promise<QuotasView> {
    const response = await this.request('GET', id === undefined ? '/v1/quotas' : `/v1/tenants/${encodeURIComponent(id)}/quotas`);
    return (await response.json()) as QuotasView;
  }

  /** Replace a tenant's quota overrides (the server admin key); quotas left out take the defaults. */
  async setTenantQuotas(id: string, overrides: Record<string, number>): Promise<QuotasView> {
    const response = await this.request('PUT', `/v1/tenants/${encodeURIComponent(id)}/quotas`, { json: overrides });
    return (await response.json()) as QuotasView;
  }

  /** Queue many jobs as one batch (sent as NDJSON). */
  async submitBatch(jobs: Iterable<GuardJobInput>): Promise<{ id: string; total: number }> {
    let body = '';
    for (const job of jobs) body += `${JSON.stringify(job)}\n`;
    const response = await this.request('POST', '/v1/batches', { raw: body, contentType: 'application/x-ndjson', waitMs: 60_000 });
    return (await response.json()) as { id: string; total: number };
  }

  async batch(id: string): Promise<BatchStatus> {
    const response = await this.request('GET', `/v1/batches/${encodeURIComponent(id)}`);
    return (await response.json()) as BatchStatus;
  }

  /** The batch's decisions made so far, read as a stream; `from` skips ones already read. */
  async *batchResults(id: string, options: { from?: number } = {}): AsyncGenerator<Decision> {
    const response = await this.request('GET', `/v1/batches/${encodeURIComponent(id)}/results?from=${options.from ?? 0}`, { waitMs: 300_000 });
    if (!response.body) return;
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(chunk, { stream: true });
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.trim()) yield DecisionSchema.parse(JSON.parse(line));
        newline = pending.indexOf('\n');
      }
    }
    pending += decoder.decode();
    if (pending.trim()) yield DecisionSchema.parse(JSON.parse(pending));
  }

  /** Abort requests still in flight; later calls fail with UnavailableError. */
  /** The tenant's API keys (a key with scope `admin`). */
  async listKeys(): Promise<ApiKeyView[]> {
    const response = await this.request('GET', '/v1/keys');
    return ((await response.json()) as { keys: ApiKeyView[] }).keys;
  }

  /** Issue a key: give agents `['check']`. The secret is in this answer only. */
  async createKey(input: { name?: string; scopes: ApiKeyScope[] }): Promise<IssuedApiKey> {
    const response = await this.request('POST', '/v1/keys', { json: input });
    return (await response.json()) as IssuedApiKey;
  }

  /** A new secret for the key; the old one stops working at once or after `overlapSeconds`. */
  async rotateKey(id: string, options: { overlapSeconds?: number } = {}): Promise<IssuedApiKey> {
    const response = await this.request('POST', `/v1/keys/${encodeURIComponent(id)}/rotate`, { json: options });
    return (await response.json()) as IssuedApiKey;
  }

  async revokeKey(id: string): Promise<void> {
    await this.request('DELETE', `/v1/keys/${encodeURIComponent(id)}`);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.inFlight) controller.abort(new UnavailableError('HttpTransport closed'));
    this.inFlight.clear();
  }

  private async pollUntil<T>(deadline: number, read: () => Promise<T | null>): Promise<T | null> {
    let delay = 50;
    while (Date.now() < deadline) {
      const found = await read();
      if (found) return found;
      await sleep(Math.min(delay, Math.max(0, deadline - Date.now())));
      delay = Math.min(delay * 2, 1000);
    }
    return read();
  }

  /**
   * POST a check, trying again when its answer was lost: the first try may have queued the job, and
   * the job's idempotency key makes the next try join it rather than queue a second one.
   */
  private async submitRequest(path: string, job: GuardJobInput, waitMs?: number): Promise<Response> {
    return withSubmitRetries(() => this.request('POST', path, { json: job, ...(waitMs !== undefined ? { waitMs } : {}) }), {
      attempts: this.options.submitAttempts ?? DEFAULT_SUBMIT_ATTEMPTS,
      isLost: (error) => error instanceof UnavailableError && (error.details.unreachable === true || error.details.status !== undefined),
      stopped: () => this.closed,
      retryAfterMs: (error) => {
        const seconds = error instanceof UnavailableError ? error.details.retryAfterSeconds : undefined;
        return typeof seconds === 'number' ? seconds * 1000 : null;
      },
    });
  }

  private async request(
    method: string,
    path: string,
    options: { json?: unknown; raw?: string; contentType?: string; waitMs?: number; allow?: number[] } = {},
  ): Promise<Response> {
    if (this.closed) throw new UnavailableError('HttpTransport is closed');
    const controller = new AbortController();
    const limitMs = this.requestTimeoutMs + (options.waitMs ?? 0);
    const timer = setTimeout(() => controller.abort(new UnavailableError(`no answer from ${this.baseUrl} within ${limitMs} ms`)), limitMs);
    this.inFlight.add(controller);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    } else if (options.raw !== undefined) {
      body = options.raw;
      headers['content-type'] = options.contentType ?? 'application/json';
    }
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body, signal: controller.signal });
    } catch (error) {
      clearTimeout(timer);
      this.inFlight.delete(controller);
      const reason = controller.signal.reason;
      if (reason instanceof GuardAgentError) throw reason;
      throw new UnavailableError(`cannot reach the gateway at ${this.baseUrl}: ${errorMessage((error as { cause?: unknown }).cause ?? error)}`, { unreachable: true });
    }
    clearTimeout(timer);
    this.inFlight.delete(controller);
    if (response.ok || options.allow?.includes(response.status)) return response;
    throw await errorFrom(response, path);
  }
}
