import { describe, expect, it } from 'vitest';
import { check } from 'recheck';
import { collectPatterns, patternKey, regexLiterals } from './collect-patterns';
import { compareWithRecord, readRecord, recheckVersion } from './proof-record';

// Every pattern applied to job text must be proved linear by recheck. Proving all of them takes
// minutes, so the proofs live in proofs.json, keyed by each pattern's hash: this test fails when a
// pattern of the source has no proof there (new or changed: run `npm run prove-patterns`, which
// proves only those and refuses to record an unsafe one) or when the record keeps a proof of a
// pattern that is gone. `npm run prove-patterns -- --all` re-proves everything.

describe('every pattern applied to job text is proved linear (recheck), and the record says so', () => {
  const patterns = collectPatterns();
  const record = readRecord();

  it('finds the patterns: regex literals in packages/*/src and services/*/src, and those built at load time', () => {
    expect(regexLiterals().length).toBeGreaterThan(200);
    expect(patterns.length).toBeGreaterThan(regexLiterals().length / 2);
  });

  it('has a proof for every pattern in the source, made by the recheck release installed', () => {
    expect(record.recheck).toBe(recheckVersion());
    const { unproved } = compareWithRecord(patterns, record);
    expect(
      unproved.map((p) => `${p.where} /${p.source.length > 120 ? `${p.source.slice(0, 120)}…` : p.source}/${p.flags}`),
      'patterns with no proof in test/regex-proofs/proofs.json: run `npm run prove-patterns` and commit the record',
    ).toEqual([]);
  });

  it('keeps no proof of a pattern that is gone', () => {
    expect(compareWithRecord(patterns, record).stale, 'stale proofs: run `npm run prove-patterns` and commit the record').toEqual([]);
  });

  it('the record cannot be satisfied by a pattern it has not seen: a changed pattern needs a new proof', () => {
    const [first] = patterns;
    const changed = { ...first, source: `${first.source}|changed` };
    expect(patternKey(changed)).not.toBe(patternKey(first));
    expect(compareWithRecord([changed], record).unproved).toEqual([changed]);
  });

  it('recheck itself still tells a catastrophic pattern from a linear one (the prover is not a rubber stamp)', async () => {
    const params = { timeout: 60_000, attackTimeout: null, incubationTimeout: null, seedingTimeout: null };
    expect((await check('^(a+)+$', '', params)).status).toBe('vulnerable');
    expect((await check('^a+$', '', params)).status).toBe('safe');
  }, 120_000);
});
