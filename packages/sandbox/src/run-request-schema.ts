import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { ValidationError } from '@guardagent/errors';
import { parseOrThrow, toFieldIssues } from '@guardagent/schemas';
import type { RunRequest, SandboxLimits, SandboxPoolOptions, SandboxToolboxFunction } from './sandbox-types';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** Names a toolbox function may not take: the guard's parameters and words the wrapper relies on. */
const RESERVED_NAMES = new Set(['input', 'output', 'context', 'arguments', 'eval', 'await', 'async', 'undefined']);

export const SandboxLimitsSchema = z
  .object({
    cpuMs: z.number().int().positive().max(600_000),
    wallMs: z.number().int().positive().max(600_000),
    memoryMb: z.number().int().min(8).max(4096),
    maxResultBytes: z.number().int().positive().max(512 * 1024 * 1024),
  })
  .partial()
  .strict();

export const SandboxToolboxFunctionSchema = z.object({
  name: z
    .string()
    .regex(IDENTIFIER, 'must be a JavaScript identifier')
    .refine((n) => !RESERVED_NAMES.has(n), 'is reserved inside the sandbox'),
  async: z.boolean(),
  // biome-ignore lint/suspicious/noExplicitAny: any function at all; `unknown[]` parameters would not accept functions with typed ones
  fn: z.custom<(...args: any[]) => unknown>((v) => typeof v === 'function', 'expected a function'),
});

const ToolboxSchema = z.array(SandboxToolboxFunctionSchema).superRefine((fns, ctx) => {
  const seen = new Set<string>();
  fns.forEach((f, i) => {
    if (seen.has(f.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate name '${f.name}'` });
    seen.add(f.name);
  });
});

const RunRequestSchema = z.object({
  code: z.string().max(1_000_000),
  input: z.unknown(),
  output: z.unknown(),
  context: z.unknown(),
  toolbox: z.unknown(),
  limits: SandboxLimitsSchema.optional(),
  reuse: z.enum(['fresh', 'program']).optional(),
});

const SandboxPoolOptionsSchema = z
  .object({
    size: z.number().int().min(1).max(256),
    memoryMb: z.number().int().min(8).max(4096),
    maxRunsPerIsolate: z.number().int().min(1),
    maxHeapRatio: z.number().gt(0).max(1),
    maxRunsPerProgramContext: z.number().int().min(1),
    maxCachedScripts: z.number().int().min(1),
    maxProgramContexts: z.number().int().min(1),
    defaultLimits: SandboxLimitsSchema,
    onCatastrophicError: z.custom<(message: string) => void>((v) => typeof v === 'function', 'expected a function'),
    idleGroupMs: z.number().int().min(1),
    now: z.custom<() => number>((v) => typeof v === 'function', 'expected a function'),
  })
  .partial()
  .strict();

/** What the pool derives once per toolbox array (validated names, async flags, cache key part). */
export interface ToolboxShape {
  names: string[];
  asyncFlags: boolean[];
  anyAsync: boolean;
  /** Names with their kind, e.g. `checkAccess:s,classify:a`; part of a program context's key. */
  key: string;
}

// Toolbox arrays are usually built once per process and passed with every request: validate each once.
const shapes = new WeakMap<readonly SandboxToolboxFunction[], ToolboxShape>();
// A toolbox with host-backed functions is rebuilt for every run (its functions are bound to the
// run), with the same names each time: what the schema checks of the names is checked once per
// list of names and kinds, and of each new array only that its entries are functions.
const shapesByKey = new LRUCache<string, ToolboxShape>({ max: 256 });

/** `name:a|s,...` of an array that looks like a toolbox, or null (the schema then says what is wrong). */
function shapeKey(toolbox: unknown): string | null {
  if (!Array.isArray(toolbox)) return null;
  const parts: string[] = [];
  for (const f of toolbox as unknown[]) {
    if (typeof f !== 'object' || f === null) return null;
    const { name, async, fn } = f as Record<string, unknown>;
    if (typeof name !== 'string' || typeof async !== 'boolean' || typeof fn !== 'function') return null;
    parts.push(`${name}:${async ? 'a' : 's'}`);
  }
  return parts.join(',');
}

export function toolboxShape(toolbox: unknown): ToolboxShape {
  if (Array.isArray(toolbox)) {
    const cached = shapes.get(toolbox);
    if (cached) return cached;
  }
  const key = shapeKey(toolbox);
  let shape = key === null ? undefined : shapesByKey.get(key);
  if (!shape) {
    const result = ToolboxSchema.safeParse(toolbox);
    if (!result.success) throw new ValidationError('sandbox run request', toFieldIssues(result.error, 'toolbox'));
    const fns = toolbox as SandboxToolboxFunction[];
    shape = {
      names: fns.map((f) => f.name),
      asyncFlags: fns.map((f) => f.async),
      anyAsync: fns.some((f) => f.async),
      key: fns.map((f) => `${f.name}:${f.async ? 'a' : 's'}`).join(','),
    };
    shapesByKey.set(shape.key, shape);
  }
  shapes.set(toolbox as SandboxToolboxFunction[], shape);
  return shape;
}

export function parseRunRequest(request: unknown): RunRequest {
  return parseOrThrow(RunRequestSchema, request, 'sandbox run request') as RunRequest;
}

export function parseLimits(limits: unknown, what: string): SandboxLimits {
  return parseOrThrow(SandboxLimitsSchema, limits, what);
}

export function parsePoolOptions(options: unknown): SandboxPoolOptions {
  return parseOrThrow(SandboxPoolOptionsSchema, options, 'sandbox pool options');
}
