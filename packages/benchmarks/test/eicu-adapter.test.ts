import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EICU_AC_SAMPLE, EICU_FORBIDDEN_FIELDS, eicuAcAdapter, loadEicuRecords, compileGuardProgram, eicuAcPolicy } from '../src/eicu-ac';

const records = await loadEicuRecords(EICU_AC_SAMPLE.dataFile, EICU_AC_SAMPLE.logsDir);

/** Every key anywhere in a JSON value. */
function keysDeep(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) keysDeep(v, out);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysDeep(v, out);
    }
  }
  return out;
}

describe('EICU-AC adapter', () => {
  it('loads the bundled sample with a log for every record and both labels per role', () => {
    expect(records.length).toBeGreaterThan(10);
    expect(records.length).toBeLessThanOrEqual(20);
    expect(records.every((r) => typeof r.log === 'string' && r.log.length > 0)).toBe(true);
    for (const role of ['physician', 'nursing', 'general administration']) {
      expect(new Set(records.filter((r) => r.identity === role).map((r) => r.label))).toEqual(new Set([0, 1]));
    }
  });

  it('builds the input as the paper harness did', () => {
    const job = eicuAcAdapter.toJob(records[0]);
    expect(job.input).toBe(`Identity: ${records[0].identity}\nQuestion: ${records[0].template}`);
    expect(job.output).toMatch(/^Knowledge:\n- [\s\S]*\nGenerated code:\n[\s\S]*LoadDB\([\s\S]*\nAnswer:\n/);
  });

  it('never puts an answer field into a job', () => {
    for (const record of records) {
      const job = eicuAcAdapter.toJob(record);
      expect(Object.keys(job).sort()).toEqual(['input', 'output']);
      const keys = keysDeep(job);
      for (const field of EICU_FORBIDDEN_FIELDS) expect(keys.has(field)).toBe(false);
      const text = JSON.stringify(job);
      if (record.query) expect(text).not.toContain(record.query);
      expect(text).not.toMatch(/Ground-Truth Answer|res-right|res-wrong/);
      if (Object.keys(record.inaccessible_db).length > 0) expect(text).not.toContain(JSON.stringify(record.inaccessible_db));
      if (record.access_gt) expect(text).not.toContain(JSON.stringify(record.access_gt));
      expect(text).not.toMatch(/"?label"?\s*[:=]/i);
    }
  });

  it('gives a record without a log an empty output, which the guard denies for lack of code', async () => {
    const emptyLogs = mkdtempSync(join(tmpdir(), 'eicu-nologs-'));
    const bare = await loadEicuRecords(EICU_AC_SAMPLE.dataFile, emptyLogs);
    expect(bare.every((r) => r.log === null)).toBe(true);
    const job = eicuAcAdapter.toJob(bare[0]);
    expect(job.output).toBe('');
    const decision = await compileGuardProgram(eicuAcPolicy())(job);
    expect(decision.decision).toBe('deny');
    expect(decision.reasons.join(' ')).toMatch(/no generated code/);
  });

  it('scores labels, explanations (as sets) and pass-through', () => {
    const deny = records.find((r) => r.label === 1)!;
    const allow = records.find((r) => r.label === 0)!;
    const shuffled = Object.fromEntries(
      Object.entries(deny.inaccessible_db).map(([t, cols]) => [t.toUpperCase(), [...cols].reverse()]),
    );
    const ok = eicuAcAdapter.score(deny, { decision: 'deny', status: 'ok', reasons: [], details: { inaccessible: shuffled } });
    expect(ok).toMatchObject({ label: 1, denied: true, explanationCorrect: true, group: deny.identity });
    const extra = { ...deny.inaccessible_db, other_table: ['x'] };
    expect(eicuAcAdapter.score(deny, { decision: 'deny', status: 'ok', reasons: [], details: { inaccessible: extra } }).explanationCorrect).toBe(false);
    expect(eicuAcAdapter.score(deny, { decision: 'deny', status: 'ok', reasons: [], details: {} }).explanationCorrect).toBe(false);
    expect(eicuAcAdapter.score(deny, { decision: 'allow', status: 'ok', reasons: [], details: { inaccessible: shuffled } }).explanationCorrect).toBe(false);
    expect(eicuAcAdapter.score(allow, { decision: 'allow', status: 'ok', reasons: [], details: {} })).toMatchObject({ denied: false, responseUnchanged: true });
    const failed = eicuAcAdapter.score(allow, { decision: 'deny', status: 'guard_error', reasons: [], details: {} });
    expect(failed).toMatchObject({ denied: true, responseUnchanged: false, guardError: true });
  });
});
