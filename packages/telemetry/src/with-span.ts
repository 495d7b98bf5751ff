import { SpanStatusCode, context, type Context, type Span } from '@opentelemetry/api';
import { safeAttributes } from './safe-attributes';
import { getTracer } from './tracer';

export interface WithSpanOptions {
  /** Scrubbed with safeAttributes before they reach the span. */
  attributes?: Record<string, unknown>;
  /** Parent context, e.g. from extractTraceContext(job.data.trace); defaults to the active context. */
  parent?: Context;
}

/**
 * Run fn inside a new active span: a child of `parent` (or of the active context). A throw is recorded on
 * the span, which gets ERROR status, and rethrown; the span always ends.
 */
export async function withSpan<T>(
  name: string,
  options: WithSpanOptions,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const parent = options.parent ?? context.active();
  // The SDK would start the span at Date.now() (whole milliseconds), and a span given its start
  // also ends at Date.now(): both to the microsecond let spans of processes be laid end to end.
  const startTime = epochNow();
  return getTracer().startActiveSpan(name, { attributes: safeAttributes(options.attributes), startTime }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      const exception = error instanceof Error ? error : new Error(String(error));
      span.recordException(exception);
      span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message });
      throw error;
    } finally {
      span.end(epochNow());
    }
  });
}

/** Milliseconds since the epoch, to the microsecond (the clock OpenTelemetry's own spans use). */
function epochNow(): number {
  return performance.timeOrigin + performance.now();
}
