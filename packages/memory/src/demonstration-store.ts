import type { Redis } from 'ioredis';
import { z } from 'zod';
import { NotFoundError, QuotaExceededError } from '@guardagent/errors';
import {
  DemonstrationSchema,
  LabelledExampleSchema,
  TextOrJsonSchema,
  parseOrThrow,
  textOf,
  type Demonstration,
  type LabelledExample,
} from '@guardagent/schemas';
import {
  ArchivedCandidateSchema,
  CandidateSchema,
  ConfirmationSchema,
  decisionAgreesWithLabel,
  type ArchivedCandidate,
  type CandidateInput,
  type Confirmation,
} from './candidate';
import { DemonstrationCache } from './demonstration-cache';
import { demonstrationIdOf } from './demonstration-id';
import { execMulti } from './exec-multi';
import { FeedbackRecordSchema, type FeedbackRecord } from './feedback-record';
import { checkJobId, checkPolicyId, checkTenant } from './identifiers';
import { memoryKeys, type MemoryKeys } from './keys';
import type { DemonstrationIndex } from './demonstration-index';
import { DEFAULT_MAX_CHARS } from './retrieval-text';
import {
  StoredDemonstrationSchema,
  sameDemonstrationContent,
  type DemonstrationSource,
  type StoredDemonstration,
} from './stored-demonstration';

export const DEFAULT_CANDIDATE_TTL_SECONDS = 7 * 24 * 60 * 60;
export const DEFAULT_CACHE_ENTRIES = 512;
const MAX_SEED = 10_000;
const MAX_K = 1_000;

export interface DemonstrationStoreOptions {
  redis: Redis;
  /** Namespace of every key, e.g. `guardagent`. */
  prefix: string;
  /** How long archived jobs wait for a confirmation. Default 7 days. */
  candidateTtlSeconds?: number;
  /** Levenshtein cap per compared text (see nearestDemonstrations). Default 4000 chars. */
  maxChars?: number;
  /** How many (tenant, policy) lists the in-process cache keeps. Default 512. */
  cacheEntries?: number;
  /**
   * Most demonstrations one policy may hold. Default 100,000: retrieval goes through the list's
   * DemonstrationIndex, which compares in full only the demonstrations its lower bounds cannot rule
   * out (docs/performance.md, issue 39). A write past it fails with QUOTA_EXCEEDED and writes nothing.
   */
  maxDemonstrations?: number;
}

const DEFAULT_MAX_DEMONSTRATIONS = 100_000;

export interface SeedOptions {
  /** Remove stored demonstrations that are not in `demos`. */
  replace?: boolean;
  source?: DemonstrationSource;
}

export interface SeedResult {
  /** Ids of the given demonstrations, in order (duplicates by content collapse to one id). */
  ids: string[];
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export type RetrievedDemonstration = StoredDemonstration & { distance: number };

export interface ConfirmResult {
  promoted: boolean;
  example: LabelledExample;
  /** The demonstration the job became, when promoted. */
  demonstration?: StoredDemonstration;
}

const RetrievalQuerySchema = z
  .object({ input: TextOrJsonSchema, output: TextOrJsonSchema.default('') })
  .strict();
const KSchema = z.number().int().min(0).max(MAX_K);
const PositiveIntSchema = z.number().int().positive();

function byCreatedThenId(a: { createdAt: string; id: string }, b: { createdAt: string; id: string }): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function decodeJson<S extends z.ZodType>(schema: S, raw: string | null | undefined): z.output<S> | undefined {
  if (raw == null) return undefined;
  try {
    const result = schema.safeParse(JSON.parse(raw));
    // A corrupt entry (hand-edited, older format) is skipped rather than failing every retrieval for the policy.
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * GuardAgent's memory (paper §4.2): demonstrations per (tenant, policy), the k nearest handed to the LLM, and
 * finished jobs archived as candidates that become demonstrations only when a person confirms them.
 */
export class DemonstrationStore {
  private readonly maxDemonstrations: number;
  readonly keys: MemoryKeys;
  private readonly redis: Redis;
  private readonly candidateTtlSeconds: number;
  private readonly maxChars: number;
  private readonly cache: DemonstrationCache;

  constructor(options: DemonstrationStoreOptions) {
    if (!options.prefix) throw new RangeError('DemonstrationStore needs a non-empty key prefix');
    this.redis = options.redis;
    this.keys = memoryKeys(options.prefix);
    this.candidateTtlSeconds = parseOrThrow(
      PositiveIntSchema,
      options.candidateTtlSeconds ?? DEFAULT_CANDIDATE_TTL_SECONDS,
      'memory options',
      'candidateTtlSeconds',
    );
    this.maxChars = parseOrThrow(PositiveIntSchema, options.maxChars ?? DEFAULT_MAX_CHARS, 'memory options', 'maxChars');
    this.maxDemonstrations = parseOrThrow(PositiveIntSchema, options.maxDemonstrations ?? DEFAULT_MAX_DEMONSTRATIONS, 'memory options', 'maxDemonstrations');
    this.cache = new DemonstrationCache(
      parseOrThrow(PositiveIntSchema, options.cacheEntries ?? DEFAULT_CACHE_ENTRIES, 'memory options', 'cacheEntries'),
      this.maxChars,
    );
  }

  /** Store one demonstration. Same content (or same explicit id and content) as a stored one returns that one. */
  async add(
    tenant: string,
    policyId: string,
    demo: Demonstration,
    options: { source?: DemonstrationSource } = {},
  ): Promise<StoredDemonstration> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const parsed = parseOrThrow(DemonstrationSchema, demo, 'demonstration', 'demonstration');
    const id = demonstrationIdOf(parsed);
    const existing = await this.get(t, p, id);
    if (existing && sameDemonstrationContent(existing, parsed)) return existing;
    if (!existing) await this.checkRoom(t, p, 1);
    const stored: StoredDemonstration = {
      id,
      input: parsed.input,
      output: parsed.output,
      plan: parsed.plan,
      code: parsed.code,
      createdAt: new Date().toISOString(),
      source: options.source ?? 'api',
    };
    await execMulti(
      this.redis.multi().hset(this.keys.demos(t, p), id, JSON.stringify(stored)).incr(this.keys.demosVersion(t, p)),
    );
    return stored;
  }

  /** All demonstrations of a policy, oldest first. */
  async list(tenant: string, policyId: string): Promise<StoredDemonstration[]> {
    const { demos } = await this.load(checkTenant(tenant), checkPolicyId(policyId));
    return demos.map((d) => ({ ...d }));
  }

  /** One demonstration, or undefined when the id is unknown. */
  async get(tenant: string, policyId: string, id: string): Promise<StoredDemonstration | undefined> {
    const raw = await this.redis.hget(this.keys.demos(checkTenant(tenant), checkPolicyId(policyId)), id);
    return decodeJson(StoredDemonstrationSchema, raw);
  }

  /** True when a demonstration was removed. */
  async delete(tenant: string, policyId: string, id: string): Promise<boolean> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const [removed] = await execMulti(
      this.redis.multi().hdel(this.keys.demos(t, p), id).incr(this.keys.demosVersion(t, p)),
    );
    return removed === 1;
  }

  async count(tenant: string, policyId: string): Promise<number> {
    return this.redis.hlen(this.keys.demos(checkTenant(tenant), checkPolicyId(policyId)));
  }

  /**
   * Store demonstrations (a policy file's, a benchmark's seed set). Idempotent: ids are the demonstrations' own
   * or their content hash, unchanged entries are left alone, and nothing is written when nothing changed.
   */
  async seed(
    tenant: string,
    policyId: string,
    demos: readonly Demonstration[],
    options: SeedOptions = {},
  ): Promise<SeedResult> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const parsed = parseOrThrow(z.array(DemonstrationSchema).max(MAX_SEED), demos, 'demonstrations', 'demonstrations');
    const source = options.source ?? 'seed';
    const key = this.keys.demos(t, p);

    const wanted = new Map<string, Demonstration>();
    const ids = parsed.map((demo) => {
      const id = demonstrationIdOf(demo);
      wanted.set(id, demo);
      return id;
    });
    const existing = new Map<string, StoredDemonstration>();
    for (const [id, raw] of Object.entries(await this.redis.hgetall(key))) {
      const stored = decodeJson(StoredDemonstrationSchema, raw);
      if (stored) existing.set(id, stored);
    }

    const createdAt = new Date().toISOString();
    const writes: string[] = [];
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    for (const [id, demo] of wanted) {
      const before = existing.get(id);
      if (before && sameDemonstrationContent(before, demo)) {
        unchanged += 1;
        continue;
      }
      if (before) updated += 1;
      else added += 1;
      const stored: StoredDemonstration = {
        id,
        input: demo.input,
        output: demo.output,
        plan: demo.plan,
        code: demo.code,
        createdAt,
        source,
      };
      writes.push(id, JSON.stringify(stored));
    }
    const removals = options.replace ? [...existing.keys()].filter((id) => !wanted.has(id)) : [];
    const after = existing.size + added - removals.length;
    if (after > this.maxDemonstrations) {
      throw new QuotaExceededError(`policy '${p}' would hold ${after} demonstrations`, this.maxDemonstrations, { policy: p });
    }

    if (writes.length > 0 || removals.length > 0) {
      const multi = this.redis.multi();
      if (writes.length > 0) multi.hset(key, ...writes);
      if (removals.length > 0) multi.hdel(key, ...removals);
      multi.incr(this.keys.demosVersion(t, p));
      await execMulti(multi);
    }
    return { ids, added, updated, unchanged, removed: removals.length };
  }

  /**
   * The k demonstrations nearest to the query (Levenshtein on capped `input + "\n" + output`), nearest first,
   * ties by id. Costs one GET while the cached list is current.
   */
  async retrieve(
    tenant: string,
    policyId: string,
    query: { input: unknown; output?: unknown },
    k: number,
  ): Promise<RetrievedDemonstration[]> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const q = parseOrThrow(RetrievalQuerySchema, query, 'retrieval query', 'query');
    const count = parseOrThrow(KSchema, k, 'retrieval k', 'k');
    if (count === 0) return [];
    const index = await this.load(t, p);
    return index.nearestYielding({ input: textOf(q.input), output: textOf(q.output) }, count);
  }

  /** Keep a finished job for candidateTtlSeconds, in case it is confirmed. Re-archiving a job replaces it. */
  async archive(tenant: string, policyId: string, candidate: CandidateInput): Promise<ArchivedCandidate> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const parsed = parseOrThrow(CandidateSchema, candidate, 'candidate', 'candidate');
    const record: ArchivedCandidate = { ...parsed, archivedAt: new Date().toISOString() };
    await this.redis.set(this.keys.candidate(t, p, parsed.jobId), JSON.stringify(record), 'EX', this.candidateTtlSeconds);
    return record;
  }

  async getCandidate(tenant: string, policyId: string, jobId: string): Promise<ArchivedCandidate | undefined> {
    const key = this.keys.candidate(checkTenant(tenant), checkPolicyId(policyId), checkJobId(jobId));
    return decodeJson(ArchivedCandidateSchema, await this.redis.get(key));
  }

  /**
   * Record the right answer for an archived job. Always stores a labelled example (id = job id) for the next
   * compile to verify against; the job becomes a demonstration only if it has a plan and code and its decision
   * agreed with the label (deny ↔ 1), because the LLM must only imitate guard code that judged correctly.
   * A later contrary label takes back a demonstration an earlier confirmation of the same job created.
   */
  async confirm(tenant: string, policyId: string, jobId: string, confirmation: Confirmation): Promise<ConfirmResult> {
    const t = checkTenant(tenant);
    const p = checkPolicyId(policyId);
    const j = checkJobId(jobId);
    const conf = parseOrThrow(ConfirmationSchema, confirmation, 'confirmation', 'confirmation');
    const candidate = await this.getCandidate(t, p, j);
    if (!candidate) throw new NotFoundError('candidate', j);

    const promotable =
      decisionAgreesWithLabel(candidate.decision, conf.correctLabel) &&
      Boolean(candidate.plan?.trim()) &&
      Boolean(candidate.code?.trim());
    let demonstration: StoredDemonstration | undefined;
    if (promotable) {
      try {
        demonstration = await this.add(
          t,
          p,
          { input: textOf(candidate.input), output: textOf(candidate.output), plan: candidate.plan!, code: candidate.code! },
          { source: 'feedback' },
        );
      } catch (error) {
        // A full policy still records the label (below); it just gains no demonstration.
        if (!(error instanceof QuotaExceededError)) throw error;
      }
    }
    const previous = candidate.confirmation?.promotedDemonstrationId;
    if (previous && previous !== demonstration?.id) await this.delete(t, p, previous);

    const example = parseOrThrow(
      LabelledExampleSchema,
      {
        id: j,
        input: candidate.input,
        output: candidate.output,
        ...(candidate.context ? { context: candidate.context } : {}),
        ...(candidate.subject ? { subject: candidate.subject } : {}),
        ...(candidate.action ? { action: candidate.action } : {}),
        label: conf.correctLabel,
      },
      'feedback example',
      'example',
    );
    const confirmedAt = new Date().toISOString();
    const record: FeedbackRecord = {
      example,
      ...(conf.note !== undefined ? { note: conf.note } : {}),
      confirmedAt,
      promoted: promotable,
    };
    const updatedCandidate: ArchivedCandidate = {
      ...candidate,
      confirmation: {
        label: conf.correctLabel,
        confirmedAt,
        // Only a demonstration this job created may be taken back later, never an identical seed demonstration.
        ...(demonstration?.source === 'feedback' ? { promotedDemonstrationId: demonstration.id } : {}),
      },
    };
    await execMulti(
      this.redis
        .multi()
        .hset(this.keys.feedbackExamples(t, p), j, JSON.stringify(record))
        .set(this.keys.candidate(t, p, j), JSON.stringify(updatedCandidate), 'KEEPTTL'),
    );
    return { promoted: promotable, example, ...(demonstration ? { demonstration } : {}) };
  }

  /** Confirmed labelled examples of a policy, in confirmation order: what the next compile verifies against. */
  async listFeedbackExamples(tenant: string, policyId: string): Promise<LabelledExample[]> {
    return (await this.listFeedbackRecords(tenant, policyId)).map((r) => r.example);
  }

  async listFeedbackRecords(tenant: string, policyId: string): Promise<FeedbackRecord[]> {
    const all = await this.redis.hgetall(this.keys.feedbackExamples(checkTenant(tenant), checkPolicyId(policyId)));
    const records: FeedbackRecord[] = [];
    for (const raw of Object.values(all)) {
      const record = decodeJson(FeedbackRecordSchema, raw);
      if (record) records.push(record);
    }
    return records.sort((a, b) =>
      byCreatedThenId(
        { createdAt: a.confirmedAt, id: a.example.id ?? '' },
        { createdAt: b.confirmedAt, id: b.example.id ?? '' },
      ),
    );
  }

  async getFeedbackExample(tenant: string, policyId: string, id: string): Promise<LabelledExample | undefined> {
    const raw = await this.redis.hget(this.keys.feedbackExamples(checkTenant(tenant), checkPolicyId(policyId)), id);
    return decodeJson(FeedbackRecordSchema, raw)?.example;
  }

  /** Forget the in-process copies (tests, or after editing Redis by hand without bumping the version). */
  clearCache(): void {
    this.cache.clear();
  }

  /** Fail with QUOTA_EXCEEDED, writing nothing, if `adding` more would pass the per-policy cap. */
  private async checkRoom(t: string, p: string, adding: number): Promise<void> {
    const held = await this.redis.hlen(this.keys.demos(t, p));
    if (held + adding > this.maxDemonstrations) {
      throw new QuotaExceededError(`policy '${p}' holds ${held} demonstrations`, this.maxDemonstrations, { policy: p });
    }
  }

  /** The (cached) list and its index: one GET of the version counter; a MULTI of GET + HGETALL when it moved. */
  private async load(t: string, p: string): Promise<DemonstrationIndex<StoredDemonstration>> {
    const cacheKey = `${t}\u0000${p}`;
    const versionKey = this.keys.demosVersion(t, p);
    const version = (await this.redis.get(versionKey)) ?? '0';
    const cached = this.cache.get(cacheKey, version);
    if (cached) return cached;
    // Version and hash read together, so the list is never cached under a version newer than its content.
    const [freshVersion, all] = (await execMulti(
      this.redis.multi().get(versionKey).hgetall(this.keys.demos(t, p)),
    )) as [string | null, Record<string, string>];
    const demos: StoredDemonstration[] = [];
    for (const raw of Object.values(all)) {
      const demo = decodeJson(StoredDemonstrationSchema, raw);
      if (demo) demos.push(demo);
    }
    demos.sort(byCreatedThenId);
    return this.cache.set(cacheKey, freshVersion ?? '0', demos);
  }
}
