import { describe, expect, it } from 'vitest';
import { EICU_AC_SAMPLE, eicuAcAdapter, loadEicuRecords, scoreLocally, sharedEicuAcPaths } from '../src/eicu-ac';

describe('EICU-AC metrics of the policy program', () => {
  it('reaches LPA/EA/FRA 100 on the bundled sample', async () => {
    const records = await loadEicuRecords(EICU_AC_SAMPLE.dataFile, EICU_AC_SAMPLE.logsDir);
    // The bundled sample is in the repository: 18 records, 9 of them labelled 1 (inaccessible), every one with its
    // EHRAgent log (a record without one would be judged on no code at all).
    expect(records).toHaveLength(18);
    expect(records.filter((r) => r.label === 1)).toHaveLength(9);
    expect(records.filter((r) => r.log === null)).toEqual([]);
    const { metrics, byGroup } = await scoreLocally(eicuAcAdapter, records);
    expect(metrics).toMatchObject({ n: records.length, lpa: 100, lpp: 100, lpr: 100, ea: 100, fra: 100, guardErrors: 0 });
    expect(Object.keys(byGroup).sort()).toEqual(['general administration', 'nursing', 'physician']);
  });
});

// The shared development half lives beside the repository (../shared); CI clones have it, a bare
// checkout may not. Absent, the block does not run (vitest reports it skipped), rather than passing
// a test that looked at nothing.
const shared = sharedEicuAcPaths();

describe.runIf(shared !== null)('EICU-AC metrics of the policy program on the shared dev half', () => {
  it('reaches LPA 100 and EA 100 on all 156 records', async () => {
    const records = await loadEicuRecords(shared!.dataFile, shared!.logsDir);
    expect(records).toHaveLength(156);
    expect(records.filter((r) => r.log === null)).toHaveLength(0);
    const { metrics } = await scoreLocally(eicuAcAdapter, records);
    expect(metrics.n).toBe(156);
    expect(metrics.lpa).toBe(100);
    expect(metrics.ea).toBe(100);
    expect(metrics.fra).toBe(100);
    expect(metrics.guardErrors).toBe(0);
  });
});
