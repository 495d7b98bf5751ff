import { canonicalJson, sha256 } from '@guardagent/schemas';

export { canonicalJson };

/** sha256 (hex) of the canonical JSON of `{ tool, args }`: what an approval token is bound to. */
export function toolCallHash(tool: string, args: unknown): string {
  return sha256(canonicalJson({ tool, args }));
}
