import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { patternKey, type Pattern } from './collect-patterns';

/** One proved pattern: recheck's verdict on it, as recheck reported it. */
export interface Proof {
  /** Always 'safe': an unsafe pattern is never recorded (the prover exits non-zero instead). */
  status: 'safe';
  checker: 'automaton' | 'fuzz';
  /** 'safe' when the fuzzer, not the automaton, decided (it proves no bound, finds no attack). */
  complexity: 'constant' | 'linear' | 'safe';
  /** Where the pattern first appeared when it was proved (for a reader; not compared). */
  where: string;
}

export interface ProofRecord {
  /** recheck's version: proofs made by another release are stale. */
  recheck: string;
  proofs: Record<string, Proof>;
}

const RECORD_PATH = join(import.meta.dirname, 'proofs.json');

export function recheckVersion(): string {
  return (createRequire(import.meta.url)('recheck/package.json') as { version: string }).version;
}

export function readRecord(path = RECORD_PATH): ProofRecord {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as ProofRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { recheck: recheckVersion(), proofs: {} };
    throw error;
  }
}

/** Keys sorted, one proof per line: a change to one pattern is a one-line diff. */
export function writeRecord(record: ProofRecord, path = RECORD_PATH): void {
  const keys = Object.keys(record.proofs).sort();
  const lines = keys.map((key) => `    ${JSON.stringify(key)}: ${JSON.stringify(record.proofs[key])}`);
  writeFileSync(path, `{\n  "recheck": ${JSON.stringify(record.recheck)},\n  "proofs": {\n${lines.join(',\n')}\n  }\n}\n`);
}

export interface RecordCheck {
  /** Patterns in the source with no proof in the record (or one made by another recheck release). */
  unproved: Pattern[];
  /** Proofs in the record for patterns no longer in the source. */
  stale: string[];
}

/** Compares the source's patterns with the record: both lists empty means every pattern is proved. */
export function compareWithRecord(patterns: Pattern[], record: ProofRecord, version = recheckVersion()): RecordCheck {
  if (record.recheck !== version) return { unproved: patterns, stale: Object.keys(record.proofs) };
  const live = new Set(patterns.map(patternKey));
  return {
    unproved: patterns.filter((p) => record.proofs[patternKey(p)]?.status !== 'safe'),
    stale: Object.keys(record.proofs).filter((key) => !live.has(key)),
  };
}
