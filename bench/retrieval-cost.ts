/**
 * What one retrieval costs over a policy's full memory (1,000 demonstrations, the cap) of long
 * texts, bounded (two stages: heads and tails of all, then 32 candidates in full) and compared in
 * full (every demonstration at maxChars, as before issue 32), in one process, alternated.
 * Usage: npx tsx --conditions=@guardagent/source bench/retrieval-cost.ts [demos=1000] [chars=5000] [rounds=3]
 */
import { nearestDemonstrations } from '@guardagent/memory';

const [n = 1000, chars = 5000, rounds = 3] = process.argv.slice(2).map(Number);
let seed = 11;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const text = (length: number) => Array.from({ length }, () => 'abcdefghij klmnop'[Math.floor(rand() * 17)]).join('');
const demos = Array.from({ length: n }, (_, i) => ({ id: `d${i}`, input: text(chars * 0.6), output: text(chars * 0.4) }));
const query = { input: text(chars * 0.6), output: text(chars * 0.4) };
// k large enough that the first stage keeps every demonstration: the one-stage search, in full.
const kFull = Math.ceil(n / 4) + 1;
const time = (k: number) => {
  const started = performance.now();
  nearestDemonstrations(demos, query, k);
  return performance.now() - started;
};
for (let r = 0; r < rounds; r++) {
  const bounded = time(3);
  const full = time(kFull);
  console.log(`round ${r + 1}: ${n} demonstrations of ${chars} chars: bounded ${bounded.toFixed(0)} ms, in full ${full.toFixed(0)} ms (${(full / bounded).toFixed(1)}x)`);
}
