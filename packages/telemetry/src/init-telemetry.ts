import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { getTracer } from './tracer';
import { tracesExportConfigured } from './traces-export-configured';

export interface TelemetryOptions {
  /**
   * This process's own name (`guardagent-executor`, ...). `OTEL_SERVICE_NAME`, or `service.name` in
   * `OTEL_RESOURCE_ATTRIBUTES`, overrides it, as operators expect of every OpenTelemetry SDK.
   */
  serviceName: string;
  /** Exported synchronously (SimpleSpanProcessor): meant for tests (InMemorySpanExporter) and debugging. */
  exporter?: SpanExporter;
}

export interface TelemetryHandle {
  /** False when nothing exports spans (no SDK started: spans cost nothing). */
  recording: boolean;
  tracer: Tracer;
  /** The service name the spans carry. */
  serviceName: string;
  /** True when spans go to an exporter chosen by the OTEL_* variables (OTLP endpoint or OTEL_TRACES_EXPORTER). */
  otlp: boolean;
  forceFlush(): Promise<void>;
  /** Flushes, stops export and unregisters the globals, so initTelemetry may run again. */
  shutdown(): Promise<void>;
}

let current: TelemetryHandle | undefined;

/**
 * The SDK's packages, loaded only when spans are exported. Loading them took ~0.45 s and ~50 MB of
 * RSS in every process (each service, the CLI, every test child), most of which export nothing.
 * `require` keeps initTelemetry synchronous; each of these packages ships CommonJS.
 */
function loadSdk(): { OTLPTraceExporter: typeof OtlpHttp.OTLPTraceExporter } & typeof Resources & { NodeSDK: typeof SdkNode.NodeSDK } & Pick<typeof SdkTraceBase, 'BatchSpanProcessor' | 'SimpleSpanProcessor'> {
  const require = createRequire(import.meta.url);
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const resources = require('@opentelemetry/resources') as typeof Resources;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const { BatchSpanProcessor, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  return { ...resources, OTLPTraceExporter, NodeSDK, BatchSpanProcessor, SimpleSpanProcessor };
}

/** `service.name` as the operator set it through the standard variables, if at all. */
function serviceNameFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const direct = env.OTEL_SERVICE_NAME?.trim();
  if (direct) return direct;
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const [key, ...rest] = pair.split('=');
    if (key?.trim() === 'service.name' && rest.length > 0) {
      const value = decodeURIComponent(rest.join('=').trim());
      if (value) return value;
    }
  }
  return undefined;
}

/**
 * Start OpenTelemetry's NodeSDK when there is somewhere to send spans: the standard variables name an
 * exporter (`OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT`, or `OTEL_TRACES_EXPORTER` other than `none`), or
 * an exporter is passed in. The SDK then honours the standard variables itself: service name and
 * resource attributes, sampler (`OTEL_TRACES_SAMPLER`/`_ARG`), exporter protocol, endpoint, headers
 * and timeouts, batch sizes, span limits. `OTEL_SDK_DISABLED=true` turns it all off.
 *
 * With nothing to export no SDK is started: spans are then free no-ops (an SDK with nothing to send
 * to cost ~6% of an executor's CPU). Trace ids still travel: every job carries its W3C carrier,
 * and a span started under an extracted context keeps its trace id.
 *
 * Only traces are exported. GuardAgent's metrics are Prometheus text on `/metrics`; OTel metrics
 * and logs are set up only when `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER` ask for them. The
 * process resource detector is left out on purpose: it records the command line, which may carry
 * secrets. Safe to call twice: later calls return the first handle unchanged.
 */
export function initTelemetry(options: TelemetryOptions): TelemetryHandle {
  if (current) return current;
  const env = process.env;
  const fromEnv = tracesExportConfigured(env);
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const serviceName = serviceNameFromEnv(env) ?? options.serviceName;

  let sdk: SdkNode.NodeSDK | null = null;
  if (!disabled && (fromEnv || options.exporter)) {
    const { OTLPTraceExporter, NodeSDK, BatchSpanProcessor, SimpleSpanProcessor, defaultResource, envDetector, osDetector, resourceFromAttributes } = loadSdk();
    // Without explicit span processors the SDK builds the exporters OTEL_TRACES_EXPORTER names
    // (default otlp, protocol from OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL). A test exporter needs
    // processors of our own, and then the env exporter has to be added by hand.
    let spanProcessors: SpanProcessor[] | undefined;
    if (options.exporter) {
      spanProcessors = [new SimpleSpanProcessor(options.exporter)];
      if (fromEnv) spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
    }
    sdk = new NodeSDK({
      // The SDK's serviceName wins over the environment, so pass ours only when the operator set none.
      serviceName: serviceNameFromEnv(env) ? undefined : options.serviceName,
      // Detectors that answer synchronously only (the host detector's host.id is async, and spans
      // wait for pending resource attributes before export); host.name is added directly.
      resource: defaultResource().merge(resourceFromAttributes({ 'host.name': hostname() })),
      resourceDetectors: [envDetector, osDetector],
      spanProcessors,
      instrumentations: [],
      ...(env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
      ...(env.OTEL_LOGS_EXPORTER ? {} : { logRecordProcessors: [] }),
    });
    // Registers the AsyncLocalStorage context manager, the propagators (W3C trace-context and
    // baggage unless OTEL_PROPAGATORS says otherwise) and the tracer provider.
    sdk.start();
  }

  const handle: TelemetryHandle = {
    tracer: getTracer(),
    serviceName,
    otlp: sdk !== null && fromEnv,
    recording: sdk !== null,
    forceFlush: async () => {
      const provider = trace.getTracerProvider() as { forceFlush?: () => Promise<void> };
      // The global provider is a proxy; its delegate is the SDK's provider when one is registered.
      const delegate = (provider as { getDelegate?: () => { forceFlush?: () => Promise<void> } }).getDelegate?.() ?? provider;
      if (sdk) await delegate.forceFlush?.();
    },
    shutdown: async () => {
      if (current !== handle) return;
      current = undefined;
      try {
        await sdk?.shutdown();
      } finally {
        trace.disable();
        propagation.disable();
        context.disable();
      }
    },
  };
  current = handle;
  return handle;
}

/** The handle of the running telemetry, if initTelemetry was called. */
export function telemetryHandle(): TelemetryHandle | undefined {
  return current;
}
