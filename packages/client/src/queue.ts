// The queue side of the SDK (BullMQ on Redis): for processes that run next to the pipeline — the
// gateway, the CLI's local stack, the MCP proxy, tests and benchmarks. An agent that calls the
// gateway over HTTP imports `@guardagent/client` only.
export { QueueTransport, type QueueTransportOptions } from './queue-transport';
export type { AdmitJobs } from './guard-transport';
export { RedisHeldCalls, type RedisHeldCallsOptions } from './redis-held-calls';
