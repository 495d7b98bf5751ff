// The deterministic detectors alone (PII, prompt injection), pure functions: their own entry point
// (`@guardagent/rails/detectors`) so that the MCP proxy bundles them without the rails engine, its
// worker pool or its Redis stores.
export { detectPii, redactPii, redactFindings, piiPlaceholder, PII_KINDS, type PiiFinding } from './pii/detect-pii';
export { detectInjection, type InjectionResult } from './injection/detect-injection';
export { warmDetectors } from './offload/turn-budget';
