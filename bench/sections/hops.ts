import { createServer, type Server } from 'node:http';
import { QueueTransport } from '@guardagent/client/queue';
import type { Decision } from '@guardagent/schemas';
import { startExecutor, waitForExecutors, type ExecutorProcess } from '../lib/executors';
import { log } from '../lib/log';
import type { M2wWorkload } from '../lib/m2w-jobs';
import { quantile, round } from '../lib/stats';
import { checkBurst } from './compiled';

export interface HopsOptions {
  redisUrl: string;
  prefix: string;
  workload: M2wWorkload;
  warmup: number;
  samples: number;
  /** Checks in flight from a second client while the lone checks of the "under the burst" table run. */
  burstInFlight: number;
  workDir: string;
}

/** One hop's wall time over the samples, ms. */
type HopStats = { p50: number; p99: number };

/** Where a lone compiled check's wall time goes, hop by hop (see HOPS for what each covers). */
export interface HopsTable {
  samples: number;
  /** Samples whose executor spans all arrived (the others are left out of the hop rows). */
  traced: number;
  hops: Record<HopName, HopStats>;
}

export interface HopsResult {
  /** What each row covers. */
  hops_legend: Readonly<Record<HopName, string>>;
  hops_idle: HopsTable;
  hops_under_burst: HopsTable & { burst_checks: number };
}

/**
 * The hops, in the order a check passes them. Times come from the bench's clock (the client) and
 * from the executor's OpenTelemetry spans (exported as OTLP/JSON to this process), on one machine:
 * performance.timeOrigin + now() in both (see withSpan), so they compare to within microseconds.
 * The six rows after `total` (all but `store_reply`) add up to it.
 */
const HOPS = {
  total: 'client.check() called → its promise resolved',
  submit_to_pickup: 'client.check() called → the executor starts the check (client side, queue add, worker wake-up, job fetch and parse)',
  pickup_to_sandbox: 'the executor starts the check → it sends the run to a sandbox worker (policy and program lookups, rails)',
  sandbox_messages: 'the run sent → its result back, minus the run itself (a wait for a free worker, IPC both ways, the worker picking it up)',
  program: 'the guard run in the sandbox worker (isolate entry, program, toolbox)',
  decision_built: 'the result back → the store script sent (decision built)',
  store_to_client: 'the store script sent → the client resolved (decision stored and published, delivered, parsed)',
  store_reply: 'the store script sent → its reply back in the executor (not on the client path: Redis answers both at once)',
} as const;
type HopName = keyof typeof HOPS;

interface Span {
  traceId: string;
  name: string;
  startMs: number;
  endMs: number;
  attrs: Record<string, unknown>;
}

/** A minimal OTLP/HTTP JSON receiver: the executor's spans, by trace id. */
async function startSpanReceiver(): Promise<{ server: Server; url: string; byTrace: Map<string, Span[]> }> {
  const byTrace = new Map<string, Span[]>();
  const nanosToMs = (nanos: string) => Number(BigInt(nanos) / 1000n) / 1000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const s of scope.spans ?? []) {
              const attrs: Record<string, unknown> = {};
              for (const a of s.attributes ?? []) attrs[a.key] = a.value.intValue ?? a.value.doubleValue ?? a.value.stringValue ?? a.value.boolValue;
              const span = { traceId: s.traceId, name: s.name, startMs: nanosToMs(s.startTimeUnixNano), endMs: nanosToMs(s.endTimeUnixNano), attrs };
              const list = byTrace.get(s.traceId);
              if (list) list.push(span);
              else byTrace.set(s.traceId, [span]);
            }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/v1/traces`, byTrace };
}

interface OtlpBody {
  resourceSpans?: Array<{
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        name: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: Array<{ key: string; value: { intValue?: string; doubleValue?: number; stringValue?: string; boolValue?: boolean } }>;
      }>;
    }>;
  }>;
}

const epochMs = () => performance.timeOrigin + performance.now();

interface Sample {
  traceId: string;
  calledMs: number;
  resolvedMs: number;
}

function table(samples: Sample[], byTrace: Map<string, Span[]>): HopsTable {
  const values: Record<HopName, number[]> = Object.fromEntries(Object.keys(HOPS).map((k) => [k, []])) as unknown as Record<HopName, number[]>;
  let traced = 0;
  for (const s of samples) {
    values.total.push(s.resolvedMs - s.calledMs);
    const spans = byTrace.get(s.traceId) ?? [];
    const find = (name: string) => spans.find((span) => span.name === name);
    const check = find('guardagent.executor.check');
    const sandbox = find('sandbox.run');
    const store = find('decisions.store');
    const programUs = Number(sandbox?.attrs['guardagent.sandbox.duration_us']);
    if (!check || !sandbox || !store || !Number.isFinite(programUs)) continue;
    traced++;
    values.submit_to_pickup.push(check.startMs - s.calledMs);
    values.pickup_to_sandbox.push(sandbox.startMs - check.startMs);
    values.sandbox_messages.push(sandbox.endMs - sandbox.startMs - programUs / 1000);
    values.program.push(programUs / 1000);
    values.decision_built.push(store.startMs - sandbox.endMs);
    values.store_to_client.push(s.resolvedMs - store.startMs);
    values.store_reply.push(store.endMs - store.startMs);
  }
  const hops = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, v.length > 0 ? { p50: round(quantile(v, 0.5), 3), p99: round(quantile(v, 0.99), 3) } : { p50: Number.NaN, p99: Number.NaN }]),
  ) as Record<HopName, HopStats>;
  return { samples: samples.length, traced, hops };
}

/**
 * Where a lone compiled check's wall time goes, hop by hop, on an idle executor and while a second
 * client keeps a burst in flight. The executor traces every check here (the spans are what
 * carries its timestamps), so its totals run a little above `compiled_p50_ms`.
 */
export async function runHops(o: HopsOptions): Promise<HopsResult> {
  const receiver = await startSpanReceiver();
  const executor: ExecutorProcess = startExecutor({
    redisUrl: o.redisUrl,
    prefix: o.prefix,
    index: 1,
    workDir: o.workDir,
    profileDir: null,
    env: {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // Under the burst every check is traced: keep them all rather than drop the lone ones.
      OTEL_BSP_MAX_QUEUE_SIZE: '200000',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2000',
    },
  });
  const client = await QueueTransport.connect({ redisUrl: o.redisUrl, prefix: o.prefix });
  const burstClient = await QueueTransport.connect({ redisUrl: o.redisUrl, prefix: o.prefix });
  try {
    await waitForExecutors(o.redisUrl, o.prefix, 1);
    const compiled = await client.compile(o.workload.policy, { timeoutMs: 60_000 });
    if (compiled.status !== 'promoted') throw new Error('the mind2web-sc program was not promoted');
    const policy = o.workload.policy.id;
    type Job = M2wWorkload['jobs'][number];
    const check = (c: QueueTransport, job: Job): Promise<Decision> => c.check({ policy, input: job.input, output: job.output });
    const lone = async (n: number): Promise<Sample[]> => {
      const samples: Sample[] = [];
      for (let i = 0; i < n; i++) {
        const job = o.workload.jobs[i % o.workload.jobs.length]!;
        const calledMs = epochMs();
        const decision = await check(client, job);
        samples.push({ traceId: decision.traceId, calledMs, resolvedMs: epochMs() });
      }
      return samples;
    };
    await lone(o.warmup);
    const idle = await lone(o.samples);

    // The same lone checks while a second client keeps `burstInFlight` checks in flight.
    let stop = false;
    let burstChecks = 0;
    const burst = (async () => {
      while (!stop) {
        const done = await checkBurst((job) => check(burstClient, job), o.workload.jobs, o.burstInFlight * 4, o.burstInFlight);
        burstChecks += o.burstInFlight * 4 - done.errors;
      }
    })();
    await lone(Math.min(50, o.warmup));
    const loaded = await lone(o.samples);
    stop = true;
    await burst;
    // The last spans leave the executor within its export delay (200 ms): wait for every sample's store span.
    const allTraced = () => [...idle, ...loaded].every((s) => receiver.byTrace.get(s.traceId)?.some((span) => span.name === 'decisions.store'));
    const deadline = Date.now() + 10_000;
    while (!allTraced() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));

    const result: HopsResult = { hops_legend: HOPS, hops_idle: table(idle, receiver.byTrace), hops_under_burst: { ...table(loaded, receiver.byTrace), burst_checks: burstChecks } };
    const line = (t: HopsTable) => Object.entries(t.hops).map(([k, v]) => `${k} ${v.p50}`).join(', ');
    log(`hops, idle (p50 ms): ${line(result.hops_idle)}`);
    log(`hops, under a burst of ${o.burstInFlight} in flight (p50 ms): ${line(result.hops_under_burst)}`);
    return result;
  } finally {
    await client.close();
    await burstClient.close();
    await executor.stop();
    receiver.server.close();
  }
}
