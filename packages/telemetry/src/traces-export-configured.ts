/**
 * Whether the standard OTEL_* variables ask for spans to be exported: `OTEL_TRACES_EXPORTER` names
 * an exporter other than `none`, or an OTLP endpoint is set. Unlike a bare NodeSDK, which exports to
 * localhost:4318 by default, GuardAgent starts no SDK when neither is set: spans then cost nothing.
 */
export function tracesExportConfigured(env: NodeJS.ProcessEnv): boolean {
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'null');
  if (exporters.length > 0) return !exporters.every((name) => name === 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}
