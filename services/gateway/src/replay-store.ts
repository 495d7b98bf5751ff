import type { Redis } from 'ioredis';
import { z } from 'zod';
import { keys, type Keys } from '@guardagent/queue';
import { DecisionDiffSchema, ReplayProgressSchema } from '@guardagent/replay';

/** A replay's record, as GET /v1/replays/{id} shows it. */
export const ReplayRecordSchema = z.object({
  id: z.string(),
  policyId: z.string(),
  /** The policy version that re-decided the traffic, and how it was named (shadow, current, or a digest). */
  candidate: z.object({ named: z.enum(['shadow', 'current', 'digest']), version: z.string(), digest: z.string(), programDigest: z.string() }),
  since: z.string().nullable(),
  until: z.string().nullable(),
  limit: z.number().int(),
  /** `interrupted`: the gateway running it stopped (or lost Redis) before it finished; start another. */
  state: z.enum(['running', 'done', 'failed', 'interrupted']),
  progress: ReplayProgressSchema,
  /** The decision diff, once done. */
  diff: DecisionDiffSchema.nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  createdAt: z.string(),
  /** Last sign of life of the gateway running it (refreshed every few seconds while running). */
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ReplayRecord = z.infer<typeof ReplayRecordSchema>;

/** A running replay whose gateway has not written for this long is reported `interrupted`. */
const REPLAY_STALE_MS = 60_000;
/** Replays (and their diffs) are kept this long: as long as the decision log keeps entries by default. */
const REPLAY_TTL_SECONDS = 7 * 86_400;
/** Most replays listed per policy. */
const LIST_MAX = 50;

/** Replays per tenant: one JSON record each, and a per-policy index by start time. */
export class ReplayStore {
  private readonly keys: Keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keys(prefix);
  }

  /** Store a new replay's record and list it under its policy. */
  async create(tenant: string, record: ReplayRecord): Promise<void> {
    const index = this.keys.policyReplays(tenant, record.policyId);
    await this.redis
      .multi()
      .set(this.keys.replay(tenant, record.id), JSON.stringify(record), 'EX', REPLAY_TTL_SECONDS)
      .zadd(index, Date.parse(record.createdAt), record.id)
      // The index forgets replays past the TTL, and keeps the newest LIST_MAX.
      .zremrangebyscore(index, '-inf', this.now() - REPLAY_TTL_SECONDS * 1000)
      .zremrangebyrank(index, 0, -(LIST_MAX + 1))
      .expire(index, REPLAY_TTL_SECONDS)
      .exec();
  }

  /** Overwrite a replay's record as it progresses (one write; the index is the creation's). */
  async save(tenant: string, record: ReplayRecord): Promise<void> {
    await this.redis.set(this.keys.replay(tenant, record.id), JSON.stringify(record), 'EX', REPLAY_TTL_SECONDS);
  }

  /** The replay, or null when this tenant has none with that id. */
  async get(tenant: string, id: string): Promise<ReplayRecord | null> {
    const raw = await this.redis.get(this.keys.replay(tenant, id));
    if (!raw) return null;
    const record = ReplayRecordSchema.parse(JSON.parse(raw));
    if (record.state === 'running' && this.now() - Date.parse(record.updatedAt) > REPLAY_STALE_MS) return { ...record, state: 'interrupted' };
    return record;
  }

  /** A policy's replays, newest first. */
  async list(tenant: string, policyId: string): Promise<ReplayRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.policyReplays(tenant, policyId), 0, LIST_MAX - 1);
    const records = await Promise.all(ids.map((id) => this.get(tenant, id)));
    return records.filter((record): record is ReplayRecord => record !== null);
  }
}
