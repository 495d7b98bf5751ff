import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { BatchInputError } from './batch-input-error';

export interface TextLine {
  /** 1-based line number in the file. */
  number: number;
  text: string;
}

/** Longest line accepted: two 2 M-char texts plus context fit comfortably. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

const tooLong = (path: string, line: number, max: number) => new BatchInputError(path, line, '', `line longer than ${max} bytes`);

/**
 * The lines of a file, pulled from a stream: the reader only reads ahead when the consumer asks
 * for more, so memory is one chunk plus one line whatever the file size. (readline's async
 * iterator buffers lines without pausing on some Node versions.) A last line without a newline
 * still counts; "\r\n" endings are accepted.
 */
export async function* readLines(path: string, options: { maxLineBytes?: number } = {}): AsyncGenerator<TextLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const take = (tail: Buffer): string => {
    const bytes = pending.length ? Buffer.concat([...pending, tail]) : tail;
    pending = [];
    pendingBytes = 0;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    return bytes.toString('utf8', 0, end);
  };
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      number += 1;
      if (pendingBytes + (nl - start) > maxLineBytes) throw tooLong(path, number, maxLineBytes);
      yield { number, text: take(chunk.subarray(start, nl)) };
      start = nl + 1;
    }
    if (start < chunk.length) {
      // Copy: the stream may reuse its buffer, and a subarray would pin the whole chunk.
      pending.push(Buffer.from(chunk.subarray(start)));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong(path, number + 1, maxLineBytes);
    }
  }
  if (pendingBytes > 0) {
    number += 1;
    yield { number, text: take(Buffer.alloc(0)) };
  }
}

const isBlankByte = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d;

/** How many lines hold something besides whitespace: the progress bar's total, counted by streaming. */
export async function countNonBlankLines(path: string): Promise<number> {
  let count = 0;
  let lineHasContent = false;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      // Almost every line starts with "{", so this scan stops at once.
      for (let i = start; !lineHasContent && i < end; i += 1) if (!isBlankByte(chunk[i]!)) lineHasContent = true;
      if (nl === -1) break;
      if (lineHasContent) count += 1;
      lineHasContent = false;
      start = nl + 1;
    }
  }
  return lineHasContent ? count + 1 : count;
}

/** Fail early, naming the file, when the input cannot be read at all (exit 2, before any work starts). */
export async function assertReadableFile(path: string): Promise<void> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a regular file');
    await (await open(path, 'r')).close();
  } catch (error) {
    throw new BatchInputError(path, 0, '', `cannot read the input: ${(error as Error).message}`);
  }
}
