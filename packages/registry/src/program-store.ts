import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { keys, type Keys } from '@guardagent/queue';
import { VerificationReportSchema, type VerificationReport } from '@guardagent/schemas';

export { VerificationReportSchema, type VerificationReport };

export const PromotedProgramSchema = z.object({
  code: z.string(),
  plan: z.string().nullable(),
  source: z.enum(['supplied', 'compiled']),
  policyId: z.string(),
  policyVersion: z.string(),
  programDigest: z.string(),
  report: VerificationReportSchema,
  promotedAt: z.string(),
});
export type PromotedProgram = z.infer<typeof PromotedProgramSchema>;

/** How long "no program yet" is believed before asking Redis again (auto mode picks up new programs fast). */
const NEGATIVE_CACHE_MS = 1000;
/** How long a promoted program is believed: a failed re-verification demotes it, for every executor. */
const POSITIVE_CACHE_MS = 5000;

const PROGRAM_CACHE_ENTRIES = 10_000;
const PROGRAM_CACHE_CHARS = 64 * 1024 * 1024;

/** Verified programs by program digest, cached in process (hits for seconds, misses for one). */
export class ProgramStore {
  private readonly keys: Keys;
  // Bounded: program digests come from policies clients send (inline), so their number is theirs.
  private readonly promoted = new LRUCache<string, { program: PromotedProgram; at: number; raw: string }>({
    max: PROGRAM_CACHE_ENTRIES,
    maxSize: PROGRAM_CACHE_CHARS,
    sizeCalculation: (entry) => Math.max(1, entry.raw.length),
  });
  private readonly misses = new LRUCache<string, number>({ max: PROGRAM_CACHE_ENTRIES });

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = keys(prefix);
  }

  async getPromoted(tenant: string, programDigest: string): Promise<PromotedProgram | null> {
    const cacheKey = `${tenant}:${programDigest}`;
    const hit = this.promoted.get(cacheKey);
    if (hit && this.now() - hit.at < POSITIVE_CACHE_MS) return hit.program;
    const missAt = this.misses.get(cacheKey);
    if (missAt !== undefined && this.now() - missAt < NEGATIVE_CACHE_MS) return null;
    const raw = await this.redis.get(this.keys.program(tenant, programDigest));
    if (!raw) {
      this.promoted.delete(cacheKey);
      this.misses.set(cacheKey, this.now());
      return null;
    }
    const program = hit && raw === hit.raw ? hit.program : PromotedProgramSchema.parse(JSON.parse(raw));
    this.promoted.set(cacheKey, { program, at: this.now(), raw });
    this.misses.delete(cacheKey);
    return program;
  }

  async promote(tenant: string, program: PromotedProgram): Promise<void> {
    await this.redis.set(this.keys.program(tenant, program.programDigest), JSON.stringify(program));
    // At once, before the next round trip: from the SET on, clients see the program, and a check
    // they send must not find this process still remembering a miss.
    this.misses.delete(`${tenant}:${program.programDigest}`);
    await this.saveReport(tenant, program.programDigest, program.report);
  }

  /** A program that no longer passes verification stops deciding (fail closed, or per-request in auto mode). */
  async demote(tenant: string, programDigest: string): Promise<void> {
    await this.redis.del(this.keys.program(tenant, programDigest));
    this.promoted.delete(`${tenant}:${programDigest}`);
  }

  async saveReport(tenant: string, programDigest: string, report: VerificationReport): Promise<void> {
    await this.redis.set(this.keys.programReport(tenant, programDigest), JSON.stringify(report));
  }

  /**
   * Attach a finished replay's summary to the program's verification report (the evidence a person
   * promoting it reads beside the labelled examples). No report (never verified): nothing to attach to.
   */
  async attachReplay(tenant: string, programDigest: string, replay: NonNullable<VerificationReport['replay']>): Promise<boolean> {
    const report = await this.getReport(tenant, programDigest);
    if (!report) return false;
    await this.saveReport(tenant, programDigest, { ...report, replay });
    return true;
  }

  async getReport(tenant: string, programDigest: string): Promise<VerificationReport | null> {
    const raw = await this.redis.get(this.keys.programReport(tenant, programDigest));
    return raw ? VerificationReportSchema.parse(JSON.parse(raw)) : null;
  }

  /** Take the background-compile lock for a digest; false when a compile is already running. */
  async tryLockCompile(tenant: string, programDigest: string, ttlSeconds = 900): Promise<boolean> {
    return (await this.redis.set(this.keys.compileLock(tenant, programDigest), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }

  async unlockCompile(tenant: string, programDigest: string): Promise<void> {
    await this.redis.del(this.keys.compileLock(tenant, programDigest));
  }

  /**
   * After a failed background compile, keep the lock for a while: otherwise every per-request
   * job of an `auto` policy would start another LLM compile of the same policy version. An
   * explicit compile (CLI, API) does not take the lock and always runs.
   */
  async backOffCompile(tenant: string, programDigest: string, seconds: number): Promise<void> {
    await this.redis.set(this.keys.compileLock(tenant, programDigest), 'failed', 'EX', seconds);
  }
}
