import {
  buildEhrAgentOutput,
  eicuInput,
  EICU_AC_SAMPLE,
  loadEicuRecords,
  loadM2wRecords,
  m2wToJob,
  MIND2WEB_SC_SAMPLE_PATH,
  sharedEicuAcPaths,
  sharedM2wDevPath,
} from '@guardagent/benchmarks';
import { capText, DEFAULT_MAX_CHARS, DemonstrationIndex, retrievalText } from '@guardagent/memory';
import { distance } from 'fastest-levenshtein';
import { log } from '../lib/log';
import { quantile, round } from '../lib/stats';

/**
 * `--only retrieval` (issue 39): exact k-nearest demonstrations through DemonstrationIndex at
 * 1,000, 10,000 and 100,000 demonstrations (scaled by --scale), against the plain scan (every
 * demonstration compared by Levenshtein) at 1,000 and 10,000.
 *
 * Data: the Mind2Web-SC and EICU-AC cases (bundled samples, plus the shared development halves
 * when present) as input + output texts. Demonstrations come in families, as a real memory does:
 * a family is one case with ~40 word edits (swaps, insertions, deletions, replacements) and its
 * output cut to 300–3,000 characters; its members are the family text with 0–15 further word
 * edits. Queries (never in the set): 80 % a new member of an existing family, 20 % a fresh text
 * (a new family's text).
 */
export type RetrievalResult = Record<string, number>;

const K = 2;

interface Options {
  sizes: ReadonlyArray<{ label: string; n: number }>;
  queries: number;
  scanQueries: number;
}

export async function runRetrieval(options: Options): Promise<RetrievalResult> {
  const cases = await loadCases();
  log(`retrieval: ${cases.length} cases, ${Math.round(cases.reduce((s, c) => s + c.input.length + c.output.length, 0) / cases.length)} chars on average`);
  const results: RetrievalResult = {};
  for (const { label, n } of options.sizes) {
    const rand = rng(n);
    const generator = demoGenerator(cases, rand);
    const families = Math.max(1, Math.round(n / 20));
    const family = Array.from({ length: families }, () => generator.family());
    const demos = Array.from({ length: n }, (_, i) => ({ id: `demo-${i}`, ...generator.member(family[i % families]!) }));
    const queries = Array.from({ length: options.queries }, () =>
      rand() < 0.8 ? { fresh: false, ...generator.member(family[Math.floor(rand() * families)]!) } : { fresh: true, ...generator.member(generator.family(), 0) },
    );

    const builtAt = performance.now();
    const index = DemonstrationIndex.build(demos, DEFAULT_MAX_CHARS);
    const buildMs = performance.now() - builtAt;
    // What the index adds to the list it indexes: its typed arrays (the texts are the list's own).
    const heapMb = index.bytes / 2 ** 20;

    index.nearest(queries[0]!, K); // warm-up
    const times: number[] = [];
    const near: number[] = [];
    const fresh: number[] = [];
    let exact = 0;
    for (const query of queries) {
      const started = performance.now();
      const found = index.searchSync(query, K);
      const ms = performance.now() - started;
      times.push(ms);
      (query.fresh ? fresh : near).push(ms);
      if (found.exact) exact += 1;
    }
    results[`retrieval_p50_ms_${label}`] = round(quantile(times, 0.5), 2);
    results[`retrieval_p99_ms_${label}`] = round(quantile(times, 0.99), 2);
    results[`retrieval_max_ms_${label}`] = round(Math.max(...times), 2);
    results[`retrieval_near_p99_ms_${label}`] = round(quantile(near, 0.99), 2);
    results[`retrieval_fresh_p50_ms_${label}`] = round(quantile(fresh, 0.5), 2);
    results[`retrieval_fresh_p99_ms_${label}`] = round(quantile(fresh, 0.99), 2);
    results[`retrieval_exact_share_${label}`] = round(exact / queries.length, 3);
    results[`retrieval_build_ms_${label}`] = round(buildMs, 1);
    results[`retrieval_heap_mb_${label}`] = round(heapMb, 1);
    log(`retrieval ${label} (${n}): p50 ${quantile(times, 0.5).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms (near ${quantile(near, 0.99).toFixed(2)}, fresh ${quantile(fresh, 0.99).toFixed(2)}), exact ${exact}/${queries.length}, build ${buildMs.toFixed(0)} ms, index ${heapMb.toFixed(1)} MB`);

    if (label !== '100k' && options.scanQueries > 0) {
      const scanTimes: number[] = [];
      for (const query of queries.slice(0, options.scanQueries)) {
        const started = performance.now();
        const expected = scan(demos, query);
        scanTimes.push(performance.now() - started);
        // The index must return what the scan returns: a bench of a wrong answer measures nothing.
        const got = index.nearest(query, K, Number.POSITIVE_INFINITY).map((d) => `${d.id}:${d.distance}`);
        if (got.join() !== expected.join()) throw new Error(`retrieval ${label}: index ${got.join()} ≠ scan ${expected.join()}`);
      }
      results[`retrieval_scan_p50_ms_${label}`] = round(quantile(scanTimes, 0.5), 1);
      log(`retrieval ${label}: scan p50 ${quantile(scanTimes, 0.5).toFixed(0)} ms over ${scanTimes.length} queries, same results`);
    }
  }
  return results;
}

/** The reference: every demonstration compared by Levenshtein, sorted by distance then id. */
function scan(demos: ReadonlyArray<{ id: string; input: string; output: string }>, query: { input: string; output: string }): string[] {
  const q = capText(retrievalText(query), DEFAULT_MAX_CHARS);
  return demos
    .map((d) => ({ id: d.id, d: distance(q, capText(retrievalText(d), DEFAULT_MAX_CHARS)) }))
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, K)
    .map((s) => `${s.id}:${s.d}`);
}

interface Case {
  input: string;
  output: string;
}

async function loadCases(): Promise<Case[]> {
  const m2wPaths = [MIND2WEB_SC_SAMPLE_PATH, sharedM2wDevPath()].filter((p): p is string => p !== null);
  const cases: Case[] = [];
  for (const path of m2wPaths) for (const record of await loadM2wRecords(path)) cases.push(m2wToJob(record));
  for (const paths of [EICU_AC_SAMPLE, sharedEicuAcPaths()]) {
    if (!paths) continue;
    for (const record of await loadEicuRecords(paths.dataFile, paths.logsDir)) {
      cases.push({ input: eicuInput(record), output: record.log === null ? '' : buildEhrAgentOutput(record.log) });
    }
  }
  return cases;
}

function demoGenerator(cases: readonly Case[], rand: () => number) {
  const vocabulary = [...new Set(cases.flatMap((c) => `${c.input} ${c.output}`.split(/\s+/)).filter((w) => w.length > 0 && w.length < 20))];
  const word = () => vocabulary[Math.floor(rand() * vocabulary.length)]!;
  const edit = (text: string, edits: number): string => {
    const words = text.split(' ');
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(rand() * words.length);
      const op = rand();
      if (op < 0.35 && at + 1 < words.length) [words[at], words[at + 1]] = [words[at + 1]!, words[at]!];
      else if (op < 0.65) words.splice(at, 0, word());
      else if (op < 0.8 && words.length > 1) words.splice(at, 1);
      else words[at] = word();
    }
    return words.join(' ');
  };
  return {
    family(): Case {
      const base = cases[Math.floor(rand() * cases.length)]!;
      const outputChars = 300 + Math.floor(rand() * 2700);
      return { input: edit(base.input, 4), output: edit(base.output, 36).slice(0, outputChars) };
    },
    member(family: Case, edits = Math.floor(rand() * 16)): Case {
      const inInput = Math.floor(rand() * (edits + 1) * 0.2);
      return { input: edit(family.input, inInput), output: edit(family.output, edits - inInput) };
    },
  };
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}
