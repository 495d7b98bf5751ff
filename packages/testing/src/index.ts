export { testRedisUrl, uniquePrefix } from './redis';
export { startFakeLlmServer, unusedBaseUrl, type FakeLlmServer, type FakeLlmReply, type FakeToolCallsReply, type FakeLlmHandler, type FakeLlmRequest } from './fake-llm-server';
export { waitFor } from './wait-for';
export { testDecision } from './test-decision';
export { startLoopProbe, type LoopBlocks } from './loop-probe';
