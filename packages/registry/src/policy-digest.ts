import type { Policy } from '@guardagent/schemas';
import { TOOLBOX_PACK_VERSIONS } from '@guardagent/schemas';
import { canonicalJson, sha256 } from '@guardagent/schemas';

/** Digest of the whole policy: identifies one exact version of it. */
export function policyDigest(policy: Policy): string {
  return sha256(canonicalJson(policy));
}

/**
 * Digest of what a verified guard program depends on: the policy id, specification, requests,
 * toolbox packs and their versions, a supplied program, and the labelled examples it was verified
 * against. A change to any of them makes a new digest, so a program verified for an older policy
 * version is never used for a newer one.
 */
export function programDigest(policy: Policy): string {
  const packs = [...new Set(['core', ...policy.toolbox])].sort();
  return sha256(
    canonicalJson({
      policyId: policy.id,
      specification: policy.specification,
      requests: policy.requests ?? '',
      toolbox: packs.map((pack) => `${pack}@${TOOLBOX_PACK_VERSIONS[pack as keyof typeof TOOLBOX_PACK_VERSIONS]}`),
      program: policy.program ?? null,
      examples: policy.examples,
    }),
  );
}
