import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  currentTraceId,
  extractTraceContext,
  getTracer,
  initTelemetry,
  injectTraceContext,
  withSpan,
  type TelemetryHandle,
} from '../src/index';

const exporter = new InMemorySpanExporter();
let handle: TelemetryHandle;

beforeAll(() => {
  handle = initTelemetry({ serviceName: 'telemetry-test', exporter });
});
afterAll(async () => {
  await handle.shutdown();
});
beforeEach(() => exporter.reset());

function finished(name: string) {
  const span = exporter.getFinishedSpans().find((s) => s.name === name);
  if (!span) throw new Error(`no finished span named ${name}`);
  return span;
}

describe('initTelemetry', () => {
  it('returns the same handle when called twice, and keeps the first exporter', async () => {
    const other = new InMemorySpanExporter();
    const again = initTelemetry({ serviceName: 'other-name', exporter: other });
    expect(again).toBe(handle);
    await withSpan('after-second-init', {}, async () => undefined);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['after-second-init']);
    expect(other.getFinishedSpans()).toHaveLength(0);
  });

  it('tags spans with the service name and does not export OTLP without an endpoint', async () => {
    expect(handle.otlp).toBe(false);
    await withSpan('resource-check', {}, async () => undefined);
    expect(finished('resource-check').resource.attributes['service.name']).toBe('telemetry-test');
  });
});

describe('span times', () => {
  it('a span starts and ends to the microsecond on the epoch clock (spans of two processes can be laid end to end)', async () => {
    const epoch = () => performance.timeOrigin + performance.now();
    const spans: Array<{ before: number; inside: number; after: number }> = [];
    for (let i = 0; i < 20; i++) {
      const before = epoch();
      let inside = 0;
      await withSpan(`timed-${i}`, {}, async () => {
        inside = epoch();
      });
      spans.push({ before, inside, after: epoch() });
    }
    // Started at Date.now() (whole ms), most of these would start before `before`.
    const ms = ([seconds, nanos]: [number, number]) => seconds * 1000 + nanos / 1e6;
    spans.forEach(({ before, inside, after }, i) => {
      const span = finished(`timed-${i}`);
      expect(ms(span.startTime)).toBeGreaterThanOrEqual(before - 0.001);
      expect(ms(span.startTime)).toBeLessThanOrEqual(inside + 0.001);
      expect(ms(span.endTime)).toBeGreaterThanOrEqual(inside - 0.001);
      expect(ms(span.endTime)).toBeLessThanOrEqual(after + 0.001);
    });
  });
});

describe('propagation across a queue hop', () => {
  it('a span extracted from an injected carrier is a child in the same trace', async () => {
    const tracer = getTracer('producer');
    const parent = tracer.startSpan('enqueue');
    const carrier = injectTraceContext(trace.setSpan(context.active(), parent));
    parent.end();
    expect(carrier.traceparent).toBe(`00-${parent.spanContext().traceId}-${parent.spanContext().spanId}-01`);

    // "Another stage": only the plain JSON carrier crosses, as it would inside BullMQ job data.
    const jobData = JSON.parse(JSON.stringify({ trace: carrier }));
    let seenTraceId: string | undefined;
    await withSpan('worker-stage', { parent: extractTraceContext(jobData.trace) }, async () => {
      seenTraceId = currentTraceId();
    });

    const child = finished('worker-stage');
    expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(seenTraceId).toBe(parent.spanContext().traceId);
  });

  it('without a parent, withSpan nests under the active span', async () => {
    await withSpan('outer', {}, async () => {
      await withSpan('inner', {}, async () => undefined);
    });
    const outer = finished('outer');
    const inner = finished('inner');
    expect(inner.spanContext().traceId).toBe(outer.spanContext().traceId);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(outer.parentSpanContext).toBeUndefined();
  });

  it('a missing or malformed carrier starts a new trace instead of failing', async () => {
    for (const carrier of [undefined, 'junk', { traceparent: 'not-a-traceparent' }, { traceparent: 42 }]) {
      const ctx = extractTraceContext(carrier);
      expect(trace.getSpanContext(ctx)).toBeUndefined();
    }
    await withSpan('fresh', { parent: extractTraceContext({ traceparent: 'nope' }) }, async () => undefined);
    expect(finished('fresh').parentSpanContext).toBeUndefined();
  });
});

describe('withSpan', () => {
  it('returns the result and ends the span with unset status', async () => {
    const result = await withSpan('ok', { attributes: { 'guard.policy': 'p1' } }, async (span) => {
      expect(span.isRecording()).toBe(true);
      return 41 + 1;
    });
    expect(result).toBe(42);
    const span = finished('ok');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes['guard.policy']).toBe('p1');
  });

  it('records a thrown error, sets ERROR status, ends the span and rethrows', async () => {
    const boom = new Error('sandbox exploded');
    await expect(
      withSpan('failing', {}, async () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    const span = finished('failing');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'sandbox exploded' });
    const event = span.events.find((e) => e.name === 'exception');
    expect(event?.attributes?.['exception.message']).toBe('sandbox exploded');
    expect(span.ended).toBe(true);
  });

  it('scrubs secret attributes before they reach the span', async () => {
    await withSpan(
      'scrubbed',
      { attributes: { tenant: 't1', apiKey: 'sk-123', llm: { model: 'm', authorization: 'Bearer x' } } },
      async () => undefined,
    );
    const attributes = finished('scrubbed').attributes;
    expect(attributes).toEqual({ tenant: 't1', 'llm.model': 'm' });
    expect(JSON.stringify(attributes)).not.toContain('sk-123');
  });

  it('currentTraceId is undefined outside any span and a 32-hex id inside', async () => {
    expect(currentTraceId()).toBeUndefined();
    const id = await withSpan('id-check', {}, async () => currentTraceId());
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).toBe(finished('id-check').spanContext().traceId);
  });
});
