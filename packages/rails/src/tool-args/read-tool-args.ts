import { MAX_JSON_DEPTH } from '@guardagent/schemas';

/**
 * Most texts (string values, keys and long integers) read from one tool call's arguments. The
 * arguments' JSON text is at most 2,000,000 characters, so a call can still hold a million tiny
 * strings; past this bound the call is not read and is denied (each text costs the detectors a
 * fixed few microseconds, and a call with this many is not an agent's ordinary tool call).
 */
export const MAX_ARG_TEXTS = 50_000;

/** Integers of fewer digits are no PII of any kind the rail knows (a card has 12 or more, an SSN 9, a phone 7). */
const MIN_NUMBER_DIGITS = 7;

/** An array index, or an object key with its place among its object's keys. */
export type ArgSegment = number | { key: string; at: number };

/** One text of a tool call's arguments. */
export interface ArgText {
  /** From the arguments down to the value, or to the entry whose key this is. */
  segments: readonly ArgSegment[];
  /** `value`: a string, or an integer of 7 digits or more (read as its digits); `key`: an object key. */
  kind: 'value' | 'key';
  text: string;
  /** A value's nearest key (the array's key for an array element): read before the value by the PII rail. */
  label?: string;
  /** The value is a number (a redaction turns it into a string). */
  number?: boolean;
}

export type ToolArgsReading = { ok: true; texts: ArgText[] } | { ok: false; reason: string };

/**
 * Every string, key and long integer of `args`, in document order (an object's keys in their
 * order, each key before its value). Iterative, bounded in depth and count: past either bound the
 * arguments are not read (`ok: false`, the caller denies).
 */
export function readToolArgs(args: unknown, maxTexts = MAX_ARG_TEXTS, maxDepth = MAX_JSON_DEPTH): ToolArgsReading {
  const texts: ArgText[] = [];
  // Pushed in reverse, so popped in document order.
  const stack: Array<{ value: unknown; segments: ArgSegment[]; label: string | undefined }> = [{ value: args, segments: [], label: undefined }];
  while (stack.length > 0) {
    const { value, segments, label } = stack.pop()!;
    if (typeof value === 'string') {
      texts.push({ segments, kind: 'value', text: value, ...(label !== undefined ? { label } : {}) });
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && Math.abs(value) >= 10 ** (MIN_NUMBER_DIGITS - 1)) {
        texts.push({ segments, kind: 'value', text: String(value), number: true, ...(label !== undefined ? { label } : {}) });
      }
    } else if (value !== null && typeof value === 'object') {
      if (segments.length >= maxDepth) return { ok: false, reason: `they nest deeper than ${maxDepth} levels` };
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], segments: [...segments, i], label });
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          const segment = { key, at: i };
          stack.push({ value: (value as Record<string, unknown>)[key], segments: [...segments, segment], label: key });
          stack.push({ value: KEY, segments: [...segments, segment], label: undefined });
        }
      }
    } else if (value === KEY) {
      texts.push({ segments, kind: 'key', text: (segments[segments.length - 1] as { key: string }).key });
    }
    if (texts.length > maxTexts) return { ok: false, reason: `they hold more than ${maxTexts} strings, keys and long numbers` };
  }
  return { ok: true, texts };
}

/** Marks a key's place in the walk (read as a text of its own, before its value). */
const KEY = Symbol('key');

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The path of an argument for reasons, e.g. `action.args.items[0].note`. A key is written out only
 * when it is a plain identifier that `shows` allows (the caller checks it holds no PII); any other
 * key is named by its place among its object's keys, from 0 (`action.args[key 2]`), so a reason never repeats an
 * argument's content.
 */
export function argPath(segments: readonly ArgSegment[], shows: (key: string) => boolean): string {
  let path = 'action.args';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else if (IDENTIFIER.test(segment.key) && shows(segment.key)) path += `.${segment.key}`;
    else path += `[key ${segment.at}]`;
  }
  return path;
}
