import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line (one JSON-RPC message) read from the client; a longer one is refused. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * The MCP stdio transport (one JSON-RPC message per line) on the server side of the proxy.
 * The SDK's StdioServerTransport drops a line it cannot parse without answering and buffers
 * lines without bound; the proxy must answer every bad line with a JSON-RPC error (parse error,
 * or invalid request with the id when one can be read) and keep serving, with a bounded buffer.
 * Only protocol is written to `output`.
 */
export class LineStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Dropping the rest of an over-long line, up to its newline. */
  private discarding = false;
  private closed = false;
  private readonly onData = (chunk: Buffer) => this.receive(chunk);
  private readonly onEnd = () => void this.close();

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', (error: Error) => this.onerror?.(error));
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      const line = this.buffered > 0 ? Buffer.concat([...this.chunks, piece]) : piece;
      this.chunks = [];
      this.buffered = 0;
      if (line.length > this.maxLineBytes) this.refuse(null, ErrorCode.InvalidRequest, `message longer than ${this.maxLineBytes} bytes`);
      else this.handleLine(line.toString('utf8'));
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || this.discarding) return;
    this.buffered += rest.length;
    if (this.buffered > this.maxLineBytes) {
      this.chunks = [];
      this.buffered = 0;
      this.discarding = true;
      this.refuse(null, ErrorCode.InvalidRequest, `message longer than ${this.maxLineBytes} bytes`);
      return;
    }
    this.chunks.push(Buffer.from(rest));
  }

  private handleLine(line: string): void {
    const text = line.replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.refuse(null, ErrorCode.ParseError, 'Parse error: the line is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      const usableId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
      this.refuse(usableId, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    try {
      this.onmessage?.(parsed.data);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    // JSON-RPC answers an unidentifiable request's error with id null; the SDK's types do not
    // model that, so the line is written directly.
    this.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }));
  }

  private write(line: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${line}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.write(JSON.stringify(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.onclose?.();
  }
}
