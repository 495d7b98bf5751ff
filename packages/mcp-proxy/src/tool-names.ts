import { ConfigError } from '@guardagent/client';

/** Between an upstream's name and its tool's name in the name the client sees. */
export const UPSTREAM_SEPARATOR = '__';
const UPSTREAM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;

export interface ToolAddress {
  upstream: string;
  tool: string;
}

/**
 * Tool names the client sees. With one unnamed upstream they are the upstream's own names, so a
 * policy names tools as the server does. With several upstreams every tool is shown as
 * `<upstream>__<tool>` (and the policy names it so): upstream names may not contain `_`, so the
 * first `__` always splits a name unambiguously and two servers' `read_file` never collide.
 */
export class ToolNames {
  readonly prefixed: boolean;

  constructor(readonly upstreams: readonly string[]) {
    if (upstreams.length === 0) throw new ConfigError('the MCP proxy needs at least one upstream server');
    if (new Set(upstreams).size !== upstreams.length) throw new ConfigError(`upstream names must be distinct: ${upstreams.join(', ')}`);
    this.prefixed = upstreams.length > 1 || upstreams[0] !== '';
    if (this.prefixed) {
      for (const name of upstreams) {
        if (!UPSTREAM_NAME.test(name)) throw new ConfigError(`upstream name '${name}' must match ${UPSTREAM_NAME.source} (needed with several upstreams)`);
      }
    }
  }

  expose(address: ToolAddress): string {
    return this.prefixed ? `${address.upstream}${UPSTREAM_SEPARATOR}${address.tool}` : address.tool;
  }

  /** The upstream and tool an exposed name stands for, or null when it names none of ours. */
  resolve(exposed: string): ToolAddress | null {
    if (!this.prefixed) return { upstream: this.upstreams[0], tool: exposed };
    const at = exposed.indexOf(UPSTREAM_SEPARATOR);
    if (at <= 0) return null;
    const upstream = exposed.slice(0, at);
    const tool = exposed.slice(at + UPSTREAM_SEPARATOR.length);
    return this.upstreams.includes(upstream) && tool.length > 0 ? { upstream, tool } : null;
  }
}
