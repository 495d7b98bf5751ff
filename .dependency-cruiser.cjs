// The import graph's rules (`npm run check:imports`, in CI): the layers of the tree, bottom up,
// and the processes that must not load what they do not use. See docs/architecture.md, "Layers".
//
//   foundation      errors, schemas, config, telemetry       nothing of ours above them
//   infrastructure  queue (Redis), local-redis, sandbox,     foundation only
//                   llm, quotas, api-keys
//   domain          rails, toolbox, memory, registry,        foundation, infrastructure, domain
//                   pipeline, replay, benchmarks
//   sdk             client, ai-sdk, agents-openai,           anything below the apps
//                   mcp-proxy
//   apps            services/*, cli, console                 anything
const FOUNDATION = '^packages/(errors|schemas|config|telemetry)/src/';
const INFRASTRUCTURE = '^packages/(queue|local-redis|sandbox|llm|quotas|api-keys)/src/';
const DOMAIN = '^packages/(rails|toolbox|memory|registry|pipeline|replay|benchmarks)/src/';
const SDK = '^packages/(client|ai-sdk|agents-openai|mcp-proxy)/src/';
const APPS = '^(services/[^/]+|packages/(cli|console))/src/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'modules import each other in a cycle', from: {}, to: { circular: true } },
    {
      name: 'foundation-at-the-bottom',
      severity: 'error',
      comment: 'errors, schemas, config and telemetry import nothing of ours above them',
      from: { path: FOUNDATION },
      to: { path: [INFRASTRUCTURE, DOMAIN, SDK, APPS] },
    },
    {
      name: 'infrastructure-below-domain',
      severity: 'error',
      comment: 'the Redis layer, the sandbox, the LLM client, the quotas and the API keys import no domain package, SDK or app',
      from: { path: INFRASTRUCTURE },
      to: { path: [DOMAIN, SDK, APPS] },
    },
    {
      name: 'nothing-imports-an-app',
      severity: 'error',
      comment: 'no package imports a service, the CLI or the console: what two apps share lives in a package',
      from: { path: [FOUNDATION, INFRASTRUCTURE, DOMAIN, SDK] },
      to: { path: APPS },
    },
    {
      name: 'sdk-without-redis',
      severity: 'error',
      comment: 'the agent SDK and its adapters (HTTP) reach no Redis client, BullMQ or native addon; the in-cluster transport is the client/queue entry',
      from: { path: '^packages/(client/src/index|ai-sdk/src/index|agents-openai/src/index)\\.ts$' },
      to: { path: 'node_modules/(ioredis|bullmq|isolated-vm)/', reachable: true },
    },
    {
      name: 'sandbox-worker-without-redis',
      severity: 'error',
      comment: 'a sandbox worker process runs guard code and the toolbox: it reaches no Redis client or queue',
      from: { path: '^packages/pipeline/src/sandbox/sandbox-child-main\\.ts$' },
      to: { path: ['node_modules/(ioredis|bullmq)/', '^packages/queue/src/'], reachable: true },
    },
    {
      name: 'gateway-without-workers',
      severity: 'error',
      comment: 'the gateway reads and writes jobs and decisions: it loads no sandbox, toolbox or worker runtime',
      from: { path: '^services/gateway/src/' },
      to: { path: ['^packages/(sandbox|toolbox)/src/', 'node_modules/isolated-vm/', '^packages/pipeline/src/runtime\\.ts$'], reachable: true },
    },
  ],
  options: {
    includeOnly: '^(packages|services)/[^/]+/src/|node_modules/(ioredis|bullmq|isolated-vm)/',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.all.json' },
    enhancedResolveOptions: {
      // Workspace packages resolve to their TypeScript sources, as typecheck and tests read them.
      conditionNames: ['@guardagent/source', 'import', 'require', 'node', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
