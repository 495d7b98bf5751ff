import { toolCallHash } from '@guardagent/rails';

interface Held {
  token: string;
  expiresAt: number;
}

/**
 * The approval tokens of calls this proxy held, by subject and canonical hash of tool + args.
 * An MCP client cannot present a token, so when the model repeats a held call with the same
 * arguments the proxy presents the token for it. Bounded: past `max` entries the oldest goes.
 */
export class ApprovalMemory {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly options: { max?: number; now?: () => number } = {},
  ) {}

  private key(subjectId: string, tool: string, args: Record<string, unknown>): string {
    return `${subjectId}\u0000${toolCallHash(tool, args)}`;
  }

  get(subjectId: string, tool: string, args: Record<string, unknown>): string | undefined {
    const key = this.key(subjectId, tool, args);
    const entry = this.held.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.held.delete(key);
      return undefined;
    }
    return entry.token;
  }

  remember(subjectId: string, tool: string, args: Record<string, unknown>, token: string, expiresAt: string): void {
    const key = this.key(subjectId, tool, args);
    this.held.delete(key);
    this.held.set(key, { token, expiresAt: Date.parse(expiresAt) || this.now() });
    const max = this.options.max ?? 10_000;
    while (this.held.size > max) this.held.delete(this.held.keys().next().value as string);
  }

  forget(subjectId: string, tool: string, args: Record<string, unknown>): void {
    this.held.delete(this.key(subjectId, tool, args));
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
