import { MAX_TEXT_CHARS } from '@guardagent/client';

/** Deeper JSON than this (counted from the result or tool) is not inspected: the whole is refused. */
export const MAX_FIELD_DEPTH = 32;
/** More JSON values than this in one result or tool are not inspected: the whole is refused. */
export const MAX_FIELD_NODES = 50_000;

/**
 * One text an upstream sent that the model may read: a string anywhere in a result or a tool's
 * entry, an object key, a number, or the text a base64 blob decodes to.
 */
export interface TextField {
  /** Where the text sits, for reasons: `content[1].description`, `structuredContent.user.card`. */
  path: string;
  text: string;
  /** Writes a changed (redacted) text back into the copy; absent where that cannot be done (a key, a number, a tool's name). */
  write?: (text: string) => void;
  /** Part of what the model reads as the result's prose, in order (read joined across blocks as well). */
  readable: boolean;
}

export type Flattened<T> = { ok: true; copy: T; fields: TextField[] } | { ok: false; reason: string };

class Unreadable extends Error {}

/** Keys shown by name in a path; any other key is shown by its position, so a path never carries an upstream's words. */
const SHOWN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,31}$/;
const childPath = (parent: string, key: string, index: number): string =>
  SHOWN_KEY.test(key) ? (parent ? `${parent}.${key}` : key) : `${parent}[key #${index}]`;

/** Sets an own property, `__proto__` included, without touching the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Blob mime types that are text whatever their bytes look like. */
const TEXT_MIME = /^text\/|[/+](?:json|xml|yaml|x-yaml|csv|javascript|ecmascript|x-sh|x-shellscript|markdown|html|sql|toml|x-python|x-typescript)\b/i;

type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16le-bom' | 'utf-16be-bom' | 'latin1';

/** The text a base64 blob holds, or null for binary data (passed on unchanged: the filters read only text). */
export function decodeBlobText(base64: string, mimeType: string | undefined): { text: string; encoding: TextEncoding } | null {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0) return null;
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { text: bytes.subarray(2).toString('utf16le'), encoding: 'utf-16le-bom' };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { text: Buffer.from(bytes.subarray(2)).swap16().toString('utf16le'), encoding: 'utf-16be-bom' };
  // ASCII written as UTF-16 is valid UTF-8 with a NUL after every letter, which no filter reads through.
  if (bytes.length >= 4 && bytes.length % 2 === 0) {
    let zeros = 0;
    for (let i = 1; i < bytes.length; i += 2) if (bytes[i] === 0) zeros++;
    if (zeros >= (bytes.length / 2) * 0.9) return { text: bytes.toString('utf16le'), encoding: 'utf-16le' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return mimeType && TEXT_MIME.test(mimeType) ? { text: bytes.toString('latin1'), encoding: 'latin1' } : null;
  }
}

function encodeBlobText(text: string, encoding: TextEncoding): string {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8').toString('base64');
    case 'latin1':
      return Buffer.from(text, 'latin1').toString('base64');
    case 'utf-16le':
      return Buffer.from(text, 'utf16le').toString('base64');
    case 'utf-16le-bom':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]).toString('base64');
    case 'utf-16be-bom':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]).toString('base64');
  }
}

/** A number shorter than this (as text) cannot be a phone, card, SSN or account number: not a field. */
const MIN_NUMBER_CHARS = 7;

/** Collects the fields of one value while copying it, within the bounds. */
class FieldWalk {
  readonly fields: TextField[] = [];
  private nodes = 0;
  private chars = 0;
  /** Keys are read once each (an array of records repeats them); they are never rewritten. */
  private readonly keys = new Set<string>();

  constructor(private readonly maxChars: number) {}

  add(field: TextField): void {
    this.chars += field.text.length;
    if (this.chars > this.maxChars) throw new Unreadable(`it holds more than ${this.maxChars} characters of text`);
    this.fields.push(field);
  }

  private enter(path: string, depth: number): void {
    if (++this.nodes > MAX_FIELD_NODES) throw new Unreadable(`it holds more than ${MAX_FIELD_NODES} values`);
    if (depth > MAX_FIELD_DEPTH) throw new Unreadable(`${path || 'it'} is nested deeper than ${MAX_FIELD_DEPTH} levels`);
  }

  /** Copies `value` through `put`, adding every string, key and number as a field. */
  value(value: unknown, path: string, depth: number, put: (v: unknown) => void, readable = false): void {
    this.enter(path, depth);
    if (typeof value === 'string') {
      put(value);
      this.add({ path, text: value, readable, write: put });
    } else if (typeof value === 'number') {
      put(value);
      const text = String(value);
      if (Number.isFinite(value) && text.length >= MIN_NUMBER_CHARS) this.add({ path, text, readable: false });
    } else if (value === null || typeof value === 'boolean') {
      put(value);
    } else if (Array.isArray(value)) {
      const copy: unknown[] = [];
      put(copy);
      value.forEach((item, i) => {
        this.value(item, `${path}[${i}]`, depth + 1, (v) => (copy[i] = v), readable);
      });
    } else if (typeof value === 'object') {
      const copy: Record<string, unknown> = {};
      put(copy);
      this.entries(value as Record<string, unknown>, path, depth, copy, () => readable);
    }
    // undefined and anything else JSON does not carry is dropped.
  }

  /** The entries of an object into `copy`, each key a field; `readableKey` says which values the model reads as prose. */
  entries(
    value: Record<string, unknown>,
    path: string,
    depth: number,
    copy: Record<string, unknown>,
    readableKey: (key: string) => boolean,
    special?: (key: string, item: unknown, path: string, put: (v: unknown) => void) => boolean,
  ): void {
    let index = 0;
    for (const [key, item] of Object.entries(value)) {
      const at = childPath(path, key, index);
      if (!this.keys.has(key)) {
        this.keys.add(key);
        this.add({ path: `${at} (key)`, text: key, readable: false });
      }
      const put = (v: unknown) => setOwn(copy, key, v);
      if (!special?.(key, item, at, put)) this.value(item, at, depth + 1, put, readableKey(key));
      index++;
    }
  }

  /** A base64 string: copied as is, and the text it decodes to (if any) is a field written back re-encoded. */
  base64(value: string, path: string, mimeType: unknown, put: (v: unknown) => void): void {
    put(value);
    const decoded = decodeBlobText(value, typeof mimeType === 'string' ? mimeType : undefined);
    if (decoded) this.add({ path: `${path} (decoded ${decoded.encoding} text)`, text: decoded.text, readable: true, write: (t) => put(encodeBlobText(t, decoded.encoding)) });
  }
}

function walk<T>(maxChars: number, fill: (walk: FieldWalk, put: (v: unknown) => void) => void): Flattened<T> {
  const fieldWalk = new FieldWalk(maxChars);
  let copy: unknown;
  try {
    fill(fieldWalk, (v) => (copy = v));
  } catch (error) {
    if (error instanceof Unreadable) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, copy: copy as T, fields: fieldWalk.fields };
}

/** Which fields of each content block type the model reads as the block's prose. */
const READABLE: Readonly<Record<string, readonly string[]>> = {
  text: ['text'],
  resource_link: ['name', 'title', 'description'],
};

/** `_meta` keys of our own (the decision GuardAgent attaches): an upstream may not forge them. */
const OWN_META = /^guardagent\//;

/**
 * Every text of a tool result as fields: the content blocks' strings (text, resource links' name,
 * title, description and uri, embedded resources' text, blobs and image/audio data that decode
 * to text), `structuredContent`, `_meta` of the result and of each block, and anything else the
 * result carries; object keys and numbers too. `_meta` keys under `guardagent/` are dropped.
 */
export function resultFields<T extends Record<string, unknown>>(result: T, maxChars = MAX_TEXT_CHARS): Flattened<T> {
  return walk<T>(maxChars, (w, put) => {
    const copy: Record<string, unknown> = {};
    put(copy);
    w.entries(result, '', 0, copy, () => false, (key, item, path, putItem) => {
      if (key === '_meta' && item && typeof item === 'object' && !Array.isArray(item)) {
        const meta = Object.fromEntries(Object.entries(item).filter(([k]) => !OWN_META.test(k)));
        w.value(meta, path, 1, putItem);
        return true;
      }
      if (key !== 'content' || !Array.isArray(item)) return false;
      const blocks: unknown[] = [];
      putItem(blocks);
      item.forEach((block, i) => {
        const blockPath = `content[${i}]`;
        if (!block || typeof block !== 'object' || Array.isArray(block)) {
          w.value(block, blockPath, 2, (v) => (blocks[i] = v));
          return;
        }
        const b = block as Record<string, unknown>;
        const blockCopy: Record<string, unknown> = {};
        blocks[i] = blockCopy;
        const readable = READABLE[String(b.type)] ?? [];
        w.entries(b, blockPath, 2, blockCopy, (k) => readable.includes(k), (k, value, at, putValue) => {
          if ((b.type === 'image' || b.type === 'audio') && k === 'data' && typeof value === 'string') {
            w.base64(value, at, b.mimeType, putValue);
            return true;
          }
          if (b.type !== 'resource' || k !== 'resource' || !value || typeof value !== 'object' || Array.isArray(value)) return false;
          const resource = value as Record<string, unknown>;
          const resourceCopy: Record<string, unknown> = {};
          putValue(resourceCopy);
          w.entries(resource, at, 3, resourceCopy, (rk) => rk === 'text', (rk, rv, rat, putR) => {
            if (rk !== 'blob' || typeof rv !== 'string') return false;
            w.base64(rv, rat, resource.mimeType, putR);
            return true;
          });
          return true;
        });
      });
      return true;
    });
  });
}

/** Every text of one upstream error message (a single field, `error`). */
export function errorFields(message: string): Flattened<{ message: string }> {
  return walk(MAX_TEXT_CHARS, (w, put) => {
    const copy = { message };
    put(copy);
    w.add({ path: 'error', text: message, readable: true, write: (t) => (copy.message = t) });
  });
}

/**
 * Every text of a tool's catalogue entry: name (never rewritten), title, description, the input
 * and output schemas (descriptions, titles, enums, defaults, examples, property names), annotations,
 * icons, `_meta`; object keys and numbers too.
 */
export function toolFields<T extends Record<string, unknown>>(tool: T, maxChars: number): Flattened<T> {
  return walk<T>(maxChars, (w, put) => {
    const copy: Record<string, unknown> = {};
    put(copy);
    w.entries(tool, '', 0, copy, (k) => k === 'description' || k === 'title', (key, item, path, putItem) => {
      if (key !== 'name' || typeof item !== 'string') return false;
      putItem(item);
      w.add({ path, text: item, readable: false });
      return true;
    });
  });
}
