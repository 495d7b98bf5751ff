/**
 * Proves with recheck every pattern of shipped source that test/regex-proofs/proofs.json does not
 * hold yet, drops the proofs of patterns that are gone, and writes the record. Exits 1, writing
 * nothing, when a pattern is not safe.
 *
 *   npm run prove-patterns            # only new or changed patterns (seconds to minutes)
 *   npm run prove-patterns -- --all   # re-prove every pattern (about 3 minutes on 2 idle cores)
 */
import { check } from 'recheck';
import { collectPatterns, patternKey, type Pattern } from './collect-patterns';
import { compareWithRecord, readRecord, recheckVersion, writeRecord, type Proof, type ProofRecord } from './proof-record';

/**
 * recheck's fuzzer cuts its trial matches by wall-clock time by default, so on a busy machine a
 * slow trial reads as an attack (a false 'vulnerable'); cut by characters read instead, the
 * verdicts are the same on any machine. A pattern still undecided after five minutes is reported.
 */
const RECHECK_PARAMS = { timeout: 300_000, attackTimeout: null, incubationTimeout: null, seedingTimeout: null };

async function prove(patterns: Pattern[], concurrency: number): Promise<{ proofs: Map<string, Proof>; unsafe: string[] }> {
  const proofs = new Map<string, Proof>();
  const unsafe: string[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < patterns.length) {
      const p = patterns[next++];
      const result = await check(p.source, p.flags, RECHECK_PARAMS);
      done += 1;
      if (result.status === 'safe') {
        proofs.set(patternKey(p), { status: 'safe', checker: result.checker, complexity: result.complexity.type, where: p.where });
      } else {
        unsafe.push(`${p.where} /${p.source}/${p.flags} → ${result.status}`);
      }
      if (process.stderr.isTTY) process.stderr.write(`\r[prove-patterns] ${done}/${patterns.length}`);
      else if (done % 50 === 0) process.stderr.write(`[prove-patterns] ${done}/${patterns.length}\n`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (patterns.length > 0 && process.stderr.isTTY) process.stderr.write('\n');
  return { proofs, unsafe: unsafe.sort() };
}

async function main(): Promise<void> {
  const all = process.argv.includes('--all');
  const patterns = collectPatterns();
  const version = recheckVersion();
  const old = all ? { recheck: version, proofs: {} } : readRecord();
  const { unproved, stale } = compareWithRecord(patterns, old, version);
  console.error(`[prove-patterns] ${patterns.length} patterns; ${unproved.length} to prove, ${stale.length} stale proofs to drop`);
  const { proofs, unsafe } = await prove(unproved, 2);
  if (unsafe.length > 0) {
    console.error(`[prove-patterns] not safe (record unchanged):\n  ${unsafe.join('\n  ')}`);
    process.exit(1);
  }
  const kept = old.recheck === version ? old.proofs : {};
  const live = new Set(patterns.map(patternKey));
  const record: ProofRecord = { recheck: version, proofs: {} };
  for (const [key, proof] of Object.entries(kept)) if (live.has(key)) record.proofs[key] = proof;
  for (const [key, proof] of proofs) record.proofs[key] = proof;
  writeRecord(record);
  console.error(`[prove-patterns] record holds ${Object.keys(record.proofs).length} proofs`);
}

await main();
