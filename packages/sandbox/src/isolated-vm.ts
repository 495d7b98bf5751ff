import { createRequire } from 'node:module';
import type IsolatedVm from 'isolated-vm';
import { ConfigError } from '@guardagent/errors';

/**
 * isolated-vm is a native addon tied to V8's ABI, and no single release installs on every Node
 * we support: 5.0.4 builds from source on Node 20 and 22 but fails to compile on Node 24, and
 * 6.2.0 ships prebuilt binaries for Node 22 (ABI 127) and 24 (ABI 137) but declares Node >= 22.
 * Both are optional dependencies under aliases; npm skips the one whose engines exclude the running
 * Node (6.2.0 on Node 20) or drops it when its build fails (5.0.4 on Node 24). Their APIs and type
 * declarations are identical. This module loads the best one for the running Node.
 */
const ISOLATED_VM_CANDIDATES: Record<'prebuilt' | 'source', string> = {
  prebuilt: 'isolated-vm-6',
  source: 'isolated-vm-5',
};

/** The alias names to try for a V8 module ABI (`process.versions.modules`), best first. */
export function isolatedVmCandidates(abi: number): string[] {
  // 127 is Node 22: the first ABI 6.2.0 has prebuilt binaries for.
  return abi >= 127 ? [ISOLATED_VM_CANDIDATES.prebuilt, ISOLATED_VM_CANDIDATES.source] : [ISOLATED_VM_CANDIDATES.source];
}

function loadIsolatedVm(): { module: typeof IsolatedVm; packageName: string } {
  const require = createRequire(import.meta.url);
  const failures: string[] = [];
  for (const name of isolatedVmCandidates(Number(process.versions.modules))) {
    try {
      return { module: require(name) as typeof IsolatedVm, packageName: name };
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new ConfigError(
    `no isolated-vm build loads on Node ${process.version} (ABI ${process.versions.modules}); ` +
      `run \`npm ci\` with this Node. Tried ${failures.join('; ')}`,
  );
}

const loaded = loadIsolatedVm();

/** The isolated-vm module for the running Node. */
export const isolatedVm: typeof IsolatedVm = loaded.module;
/** Which alias was loaded, for diagnostics (`guardagent doctor`, startup logs). */
export const isolatedVmPackage: string = loaded.packageName;
