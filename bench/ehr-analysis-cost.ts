import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildEhrAgentOutput } from '../packages/benchmarks/src/eicu-ac/build-output';
import { ehrCodeAnalysis, ehrExtractCode } from '../packages/toolbox/src/packs/ehragent';

/**
 * µs per `ehrCodeAnalysis` (parse the Python, follow the data flow, parse the SQL) over the code
 * of every EICU-AC development log, after a warm-up, the way a sandbox worker runs it.
 * Usage: npx tsx bench/ehr-analysis-cost.ts [logsDir=../shared/benchmarks/eicu-ac/logs] [rounds=50]
 */
const dir = process.argv[2] ?? join(import.meta.dirname, '../../shared/benchmarks/eicu-ac/logs');
const rounds = Number(process.argv[3] ?? 50);
const codes = readdirSync(dir).map((f) => ehrExtractCode(buildEhrAgentOutput(readFileSync(join(dir, f), 'utf8'))));
let unanalysable = 0;
for (let r = 0; r < 5; r++) for (const c of codes) if (ehrCodeAnalysis(c).unanalysable.length > 0 && r === 0) unanalysable++;
const started = performance.now();
for (let r = 0; r < rounds; r++) for (const c of codes) ehrCodeAnalysis(c);
const us = ((performance.now() - started) * 1000) / (rounds * codes.length);
const chars = codes.reduce((n, c) => n + c.length, 0) / codes.length;
console.log(JSON.stringify({ logs: codes.length, unanalysable, mean_chars: Math.round(chars), us_per_analysis: Math.round(us) }));
