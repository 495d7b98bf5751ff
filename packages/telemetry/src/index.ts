export {
  initTelemetry,
  telemetryHandle,
  type TelemetryOptions,
  type TelemetryHandle,
} from './init-telemetry';
export { injectTraceContext, extractTraceContext, type TraceCarrier } from './propagation';
export { withSpan, type WithSpanOptions } from './with-span';
export { tracesExportConfigured } from './traces-export-configured';
export { getTracer, currentTraceId, DEFAULT_TRACER_NAME } from './tracer';
export { safeAttributes, SECRET_KEY_PATTERN } from './safe-attributes';
export { jsonLogger, silentLogger, type Logger } from './logger';
export { redactUrl } from './redact-url';
