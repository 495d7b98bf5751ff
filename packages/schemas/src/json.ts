import { z } from 'zod';
import { jsonCharsOver } from './json-size';
import { jsonShapeIssue } from './json-shape';

/**
 * Checks the raw value before zod walks it: zod's JSON schema recurses (2,000 levels of nesting
 * overflowed the stack) and its record parsing turns a `__proto__` key into a prototype.
 */
const shaped = <T extends z.ZodType>(schema: T) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      const issue = jsonShapeIssue(value);
      if (issue) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    })
    .pipe(schema);

/** zod's JSON schema, typed as unknown (callers narrow it themselves). Unshaped: use JsonValueSchema. */
const anyJson: z.ZodType<unknown> = z.json();

/** Any JSON value (no forbidden keys, at most MAX_JSON_DEPTH levels deep). */
export const JsonValueSchema: z.ZodType<unknown> = shaped(anyJson);

/** Largest agent input, output, context or action arguments, as text or as JSON text. */
export const MAX_TEXT_CHARS = 2_000_000;

/** The issue of a value over MAX_TEXT_CHARS (as a string, or as JSON text), if it is. */
export function sizeIssue(value: unknown): string | null {
  const over = typeof value === 'string' ? value.length > MAX_TEXT_CHARS : jsonCharsOver(value, MAX_TEXT_CHARS);
  return over ? `longer than ${MAX_TEXT_CHARS} characters (as text, or as JSON)` : null;
}

const bounded = <T extends z.ZodType>(schema: T) =>
  schema.superRefine((value, ctx) => {
    const issue = sizeIssue(value);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });

/**
 * A JSON object (string keys), checked for shape (depth, forbidden keys) but not size: what the
 * guard derived from a bounded one (redacted arguments, whose placeholders can be longer than the
 * text they replace).
 */
export const DerivedJsonObjectSchema = shaped(z.record(z.string(), anyJson));

/** A JSON object (string keys), bounded like agent text. */
export const JsonObjectSchema = bounded(shaped(z.record(z.string(), anyJson)));
export type JsonObject = z.infer<typeof JsonObjectSchema>;

/**
 * Agent input or output: a string, or any JSON value, bounded so one job cannot exhaust Redis or
 * the detectors. (A union of a bounded string and any JSON once let any string through: the JSON
 * branch accepted what the string branch refused.)
 */
export const TextOrJsonSchema = bounded(JsonValueSchema);
export type TextOrJson = z.infer<typeof TextOrJsonSchema>;

/** The text form of a TextOrJson value (for retrieval, prompts and filters). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value);
}
