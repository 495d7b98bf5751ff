import { z } from 'zod';
import { SandboxLimitsSchema } from '../run-request-schema';

/**
 * The protocol between an executor and its sandbox worker processes (Node IPC, structured clone).
 * One `run` carries everything a guard run needs as data: the toolbox is named by packs and
 * tenant, and the worker builds the functions itself, so that toolbox work runs (and can be
 * killed) in the worker too. Functions that need the executor's connections (the LLM classifier
 * with its Redis cache) are called back over `host` / `host-result`.
 */

/** Most runs one message carries. */
export const MAX_RUNS_PER_MESSAGE = 64;

/** What a guard run needs, as plain data. */
export const ProcessRunRequestSchema = z.object({
  code: z.string().max(1_000_000),
  input: z.unknown(),
  output: z.unknown(),
  context: z.unknown(),
  /** Toolbox packs, built inside the worker. */
  packs: z.array(z.string().max(64)).max(32),
  /** Whose toolbox: host calls (the LLM cache) are scoped to this tenant. */
  tenant: z.string().min(1).max(256),
  limits: SandboxLimitsSchema.optional(),
  reuse: z.enum(['fresh', 'program']).optional(),
  /**
   * Which version of the tenant's guard this is (a policy or program digest): the crash budget
   * counts worker deaths per tenant and per version (see CrashBudget). Stays in the executor.
   */
  version: z.string().max(256).optional(),
});
export type ProcessRunRequest = z.infer<typeof ProcessRunRequestSchema>;

/**
 * Guard code as a run message carries it. A verified program runs thousands of times with the same
 * text, so the executor sends the text to a worker once, under a number of its choosing, and
 * then only the number (`text` absent). The executor also decides which numbers the worker
 * forgets (`forget`), so both ends agree on what the worker holds: messages on one IPC channel
 * arrive in the order they were sent.
 */
const CodeRefSchema = z.object({
  id: z.number().int().nonnegative(),
  text: z.string().max(1_000_000).optional(),
});
export type CodeRef = z.infer<typeof CodeRefSchema>;

/** A run request on the wire: the code by reference (see CodeRefSchema). */
const WireRunRequestSchema = ProcessRunRequestSchema.omit({ code: true, version: true }).extend({ code: CodeRefSchema });
export type WireRunRequest = z.infer<typeof WireRunRequestSchema>;

export const ParentMessageSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('run'),
    /**
     * Runs the worker starts one after another, in this order: the next when the one before has
     * ended or waits on a host call (see SandboxProcessPool: "Runs in one message").
     */
    runs: z
      .array(z.object({ id: z.number().int(), request: WireRunRequestSchema }))
      .min(1)
      .max(MAX_RUNS_PER_MESSAGE),
    /** Code numbers the worker drops after reading this message's code (the executor's cache of what it sent evicted them). */
    forget: z.array(z.number().int().nonnegative()).max(1024).optional(),
  }),
  z.object({
    t: z.literal('host-result'),
    callId: z.number().int(),
    ok: z.boolean(),
    value: z.unknown().optional(),
    error: z.string().optional(),
  }),
]);
export type ParentMessage = z.infer<typeof ParentMessageSchema>;

const VerdictShape = z.object({ deny: z.boolean(), reasons: z.array(z.string()), details: z.record(z.string(), z.unknown()) });
/** Every SandboxErrorKind ('quarantined' is the executor's own verdict; a worker that said it would only fail its own run closed). */
const ErrorKind = z.enum(['syntax', 'reference', 'type', 'thrown', 'timeout', 'memory', 'invalid-return', 'result-too-large', 'crashed', 'hung', 'quarantined', 'internal']);

const RunResultSchema = z.union([
  z.object({ ok: z.literal(true), verdict: VerdictShape, durationUs: z.number(), toolCalls: z.number() }),
  z.object({ ok: z.literal(false), error: z.object({ kind: ErrorKind, message: z.string() }), durationUs: z.number(), toolCalls: z.number() }),
]);

export const ChildMessageSchema = z.discriminatedUnion('t', [
  /**
   * The worker is warm: its warm-up (every toolbox pack's data loaded, one guard program run in an
   * isolate) is done, so its first run costs what its hundredth does. `warmMs` is what that took.
   */
  z.object({ t: z.literal('ready'), pid: z.number().int(), isolatedVm: z.string(), warmMs: z.number().nonnegative().optional(), rss: z.number().nonnegative().optional() }),
  /**
   * Results of runs that ended, in the order they ended (several when they ended close together),
   * and the worker's resident memory (bytes) after them: past its bound the executor recycles it.
   */
  z.object({
    t: z.literal('results'),
    results: z.array(z.object({ id: z.number().int(), result: RunResultSchema })).min(1).max(MAX_RUNS_PER_MESSAGE),
    rss: z.number().nonnegative().optional(),
  }),
  z.object({
    t: z.literal('host'),
    runId: z.number().int(),
    callId: z.number().int(),
    name: z.string().max(64),
    args: z.array(z.unknown()).max(16),
  }),
]);
export type ChildMessage = z.infer<typeof ChildMessageSchema>;
