import { describe, expect, it } from 'vitest';
import { isolatedVm, isolatedVmCandidates, isolatedVmPackage } from '../src/isolated-vm';

describe('isolated-vm loader', () => {
  it('prefers the prebuilt release from Node 22 (ABI 127) on, and only the source build before', () => {
    expect(isolatedVmCandidates(115)).toEqual(['isolated-vm-5']); // Node 20
    expect(isolatedVmCandidates(127)).toEqual(['isolated-vm-6', 'isolated-vm-5']); // Node 22
    expect(isolatedVmCandidates(137)).toEqual(['isolated-vm-6', 'isolated-vm-5']); // Node 24
  });

  it('loads the release built for the running Node and runs a script in an isolate', () => {
    const abi = Number(process.versions.modules);
    expect(isolatedVmPackage).toBe(abi >= 127 ? 'isolated-vm-6' : 'isolated-vm-5');
    const isolate = new isolatedVm.Isolate({ memoryLimit: 16 });
    try {
      const context = isolate.createContextSync();
      expect(isolate.compileScriptSync('6 * 7').runSync(context)).toBe(42);
    } finally {
      isolate.dispose();
    }
  });
});
