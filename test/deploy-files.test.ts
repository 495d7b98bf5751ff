import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { QueueKeys } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { CONFIG_ENV_NAMES, loadConfig } from '@guardagent/config';
import { createRuntime, type Runtime } from '@guardagent/pipeline';
import { STAGES } from '@guardagent/queue';
import { testRedisUrl, uniquePrefix } from '@guardagent/testing';
import { silentLogger } from '@guardagent/telemetry';

// There is no container engine here: these tests check that what the deploy files name exists
// and agrees with the code (commands, files, queue key names, Redis settings).
const ROOT = resolve(import.meta.dirname, '..');
const SERVICES = ['gateway', ...STAGES];
// Plain `node`: the services and the gateway do not load isolated-vm (their sandbox workers do, and
// get --no-node-snapshot from create-guard-runner.ts); packages/pipeline/test/no-addon-in-host.test.ts.
const NODE_ENTRY = ['node'];
const exists = (path: string) => existsSync(join(ROOT, path));

// biome-ignore lint/suspicious/noExplicitAny: the deploy files' YAML is read field by field
type Json = Record<string, any>;

function yamlFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** Every repo file a command line names (arguments that look like paths into the repo). */
function repoPaths(args: readonly string[]): string[] {
  return args.filter((a) => /^(services|packages|infra|examples)\/[\w./-]+$/.test(a));
}

function expectServiceCommand(command: unknown, service: string) {
  expect(Array.isArray(command), `${service}: command is an array`).toBe(true);
  const args = command as string[];
  expect(args.slice(0, 1), `${service}: entry`).toEqual(NODE_ENTRY);
  // The built entry (npm run build; the test setup has just built it), next to its source.
  expect(args[1]).toBe(`services/${service}/dist/main.js`);
  expect(exists(args[1]), `${args[1]} exists`).toBe(true);
  expect(exists(`services/${service}/src/main.ts`)).toBe(true);
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Json;

  it('runs every service from the image with its own entry file, and health checks', () => {
    for (const service of SERVICES) {
      const spec = compose.services[service];
      expect(spec, `service ${service}`).toBeDefined();
      expect(spec.build).toBe('.');
      expectServiceCommand(spec.command, service);
      expect(spec.environment.REDIS_URL).toBe('redis://redis:6379');
      const test = spec.healthcheck?.test as string[];
      expect(test?.[0]).toBe('CMD');
      for (const path of repoPaths(test)) expect(exists(path), path).toBe(true);
      expect(test).toEqual(
        service === 'gateway'
          ? ['CMD', 'node', 'infra/healthcheck.mjs', 'http', 'http://127.0.0.1:8080/healthz']
          : ['CMD', 'node', 'infra/healthcheck.mjs', 'stage', service],
      );
      expect(spec.depends_on.redis.condition).toBe('service_healthy');
    }
    expect(compose.services.executor.deploy.replicas).toBe(3);
    expect(exists('Dockerfile')).toBe(true);
  });

  it('runs Redis with AOF and noeviction, and Jaeger with OTLP', () => {
    const redis = compose.services.redis;
    const args = (redis.command as string[]).join(' ');
    expect(args).toContain('--appendonly yes');
    expect(args).toContain('--maxmemory-policy noeviction');
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(compose.services.jaeger.environment.COLLECTOR_OTLP_ENABLED).toBe('true');
    expect(compose.services.gateway.environment.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));

  it('is multi-stage, runs as a non-root user, and its default command exists', () => {
    const froms = lines.filter((l) => /^FROM\s/.test(l));
    expect(froms.length).toBeGreaterThanOrEqual(3);
    const lastFrom = lines.lastIndexOf(froms[froms.length - 1]);
    const user = lines.slice(lastFrom).find((l) => /^USER\s/.test(l));
    expect(user?.split(/\s+/)[1]).toBe('node');
    const cmd = JSON.parse(lines.find((l) => /^CMD\s/.test(l))!.replace(/^CMD\s+/, '')) as string[];
    expect(cmd.slice(0, 1)).toEqual(NODE_ENTRY);
    expect(cmd[1]).toBe('services/gateway/dist/main.js');
    expect(exists(cmd[1]), cmd[1]).toBe(true);
    // The runtime stage runs built code with production dependencies only.
    expect(text).toMatch(/npm prune --omit=dev/);
    expect(text).not.toMatch(/--import tsx/);
  });

  it('copies only files that exist', () => {
    const sources = lines
      .filter((l) => /^COPY\s/.test(l) && !l.includes('--from='))
      .flatMap((l) => l.replace(/^COPY\s+/, '').split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) if (source !== '.') expect(exists(source), source).toBe(true);
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8');
    expect(ignore).toMatch(/^\*\*\/node_modules$/m);
  });
});

describe('infra/k8s', () => {
  const files = yamlFiles('infra/k8s');
  const docs = files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(ROOT, file), 'utf8')).map((d) => {
      expect(d.errors, file).toEqual([]);
      return { file, doc: d.toJSON() as Json };
    }),
  );
  const deployments = docs.filter((d) => d.doc?.kind === 'Deployment');
  const byName = (name: string) => deployments.find((d) => d.doc.metadata.name === name)?.doc;

  it('has a Deployment per service whose command and probe files exist', () => {
    for (const service of SERVICES) {
      const deployment = byName(service);
      expect(deployment, `Deployment ${service}`).toBeDefined();
      const container = deployment!.spec.template.spec.containers[0];
      expectServiceCommand(container.command, service);
      expect(deployment!.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      const probe = container.livenessProbe;
      expect(probe, `${service} liveness probe`).toBeDefined();
      for (const path of repoPaths(probe.exec?.command ?? [])) expect(exists(path), path).toBe(true);
      const refs = container.envFrom.map((e: Json) => e.configMapRef?.name ?? e.secretRef?.name);
      expect(refs).toEqual(['guardagent-config', 'guardagent']);
    }
  });

  it('lists only existing files in the kustomization', () => {
    const kustomization = docs.find((d) => d.doc?.kind === 'Kustomization')!.doc;
    for (const resource of kustomization.resources as string[]) expect(exists(join('infra/k8s', resource)), resource).toBe(true);
  });

  it('autoscales the executor on the Redis list BullMQ keeps its waiting jobs in', () => {
    const config = docs.find((d) => d.doc?.kind === 'ConfigMap' && d.doc.metadata.name === 'guardagent-config')!.doc;
    const prefix = config.data.GUARDAGENT_PREFIX as string;
    const scaled = docs.find((d) => d.doc?.kind === 'ScaledObject')!.doc;
    expect(byName(scaled.spec.scaleTargetRef.name)).toBeDefined();
    expect(scaled.spec.scaleTargetRef.name).toBe('executor');
    const trigger = scaled.spec.triggers[0];
    expect(trigger.type).toBe('redis');
    expect(trigger.metadata.listName).toBe(new QueueKeys(prefix).toKey('executor', 'wait'));
    const hpa = docs.find((d) => d.doc?.kind === 'HorizontalPodAutoscaler')!.doc;
    expect(hpa.spec.scaleTargetRef.name).toBe('executor');
  });

  it('scrapes /metrics with the metrics key from a Secret, never by annotation (which sends no key)', () => {
    for (const { file, doc } of docs) {
      const annotations = doc?.spec?.template?.metadata?.annotations ?? {};
      expect(annotations['prometheus.io/scrape'], `${file}: /metrics answers 401 without a key`).toBeUndefined();
    }
    const gateway = byName('gateway')!.spec.template;
    const container = gateway.spec.containers[0];
    const env = (container.env as Json[]).find((e) => e.name === 'GUARDAGENT_METRICS_KEY');
    expect(CONFIG_ENV_NAMES.metricsKey).toBe('GUARDAGENT_METRICS_KEY');
    const secretRef = env?.valueFrom?.secretKeyRef;
    expect(secretRef).toMatchObject({ name: 'guardagent-metrics', key: 'token' });
    // The example Secret holds that key, apart from the admin key.
    const secret = docs.find((d) => d.doc?.kind === 'Secret' && d.doc.metadata.name === secretRef.name)!.doc;
    expect(secret.stringData).toHaveProperty(secretRef.key);
    // The PodMonitor selects the gateway pods and sends that Secret's key as its bearer token.
    const monitor = docs.find((d) => d.doc?.kind === 'PodMonitor')!.doc;
    for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(gateway.metadata.labels[label]).toBe(value);
    const endpoint = monitor.spec.podMetricsEndpoints[0];
    expect((container.ports as Json[]).map((p) => p.name)).toContain(endpoint.port);
    expect(endpoint.path).toBe('/metrics');
    expect(endpoint.authorization).toEqual({ type: 'Bearer', credentials: { name: secretRef.name, key: secretRef.key } });
    // The plain Prometheus job: the same pods and port, the key from the mounted Secret.
    const job = (parse(readFileSync(join(ROOT, 'infra/prometheus-scrape.yaml'), 'utf8')) as Json).scrape_configs[0];
    expect(job.metrics_path).toBe('/metrics');
    expect(job.authorization.credentials_file).toMatch(new RegExp(`/${secretRef.name}/${secretRef.key}$`));
    const kept = Object.fromEntries((job.relabel_configs as Json[]).filter((r) => r.action === 'keep').map((r) => [r.source_labels[0], r.regex]));
    expect(kept.__meta_kubernetes_pod_label_app_kubernetes_io_component).toBe(gateway.metadata.labels['app.kubernetes.io/component']);
    expect(kept.__meta_kubernetes_pod_container_port_name).toBe(endpoint.port);
  });

  it('runs Redis with AOF and noeviction', () => {
    const redis = docs.find((d) => d.doc?.kind === 'StatefulSet' && d.doc.metadata.name === 'redis')!.doc;
    const args = (redis.spec.template.spec.containers[0].args as string[]).join(' ');
    expect(args).toContain('--appendonly yes');
    expect(args).toContain('--maxmemory-policy noeviction');
  });
});

describe('infra/otel-collector.yaml', () => {
  it('wires every pipeline component it names', () => {
    const config = parse(readFileSync(join(ROOT, 'infra/otel-collector.yaml'), 'utf8')) as Json;
    const traces = config.service.pipelines.traces;
    for (const r of traces.receivers) expect(config.receivers).toHaveProperty(r);
    for (const p of traces.processors) expect(config.processors).toHaveProperty(p);
    for (const e of traces.exporters) expect(config.exporters).toHaveProperty(e);
    expect(config.receivers.otlp.protocols.http.endpoint).toMatch(/:4318$/);
  });
});

describe('infra/healthcheck.mjs', () => {
  let runtime: Runtime;
  const prefix = uniquePrefix('hc');
  beforeAll(async () => {
    runtime = await createRuntime(loadConfig({}, { redisUrl: testRedisUrl(), prefix }), { llm: null, logger: silentLogger });
    await Promise.all(runtime.startWorkers(['executor']).map((w) => w.waitUntilReady()));
  });
  afterAll(async () => {
    await runtime?.close();
  });
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'infra/healthcheck.mjs'), ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: testRedisUrl(), GUARDAGENT_PREFIX: prefix },
      encoding: 'utf8',
      timeout: 15_000,
    });

  it("is healthy when this host's worker of the stage is connected, and not otherwise", () => {
    expect(run('stage', 'executor').status).toBe(0);
    const missing = run('stage', 'planner');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("no 'planner' worker");
    const usage = run('bogus');
    expect(usage.status).toBe(1);
  });
});
