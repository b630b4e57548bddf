/**
 * Whether and how Hermes traces (SPEC §26.10, docs/operations.md "Tracing"), read from the
 * standard OpenTelemetry variables only. Tracing is off unless asked for: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an
 * `OTEL_TRACES_EXPORTER` other than `none`; `OTEL_SDK_DISABLED=true` turns it off whatever else is
 * set. When off, no OpenTelemetry package is loaded. The SDK itself reads the rest (endpoint,
 * headers, timeout, certificates, sampler, batch and attribute limits, resource attributes).
 */

/** The exporters Hermes can start. */
export type TraceExporterName = 'otlp' | 'console';

/** The OTLP protocols Hermes can send (gRPC is not carried: collectors take both of these on 4318). */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** What the environment asks for. */
export interface TracingSettings {
  exporters: TraceExporterName[];
  protocol: OtlpProtocol;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`: spans carry messages (off by default). */
  captureContent: boolean;
}

/** The settings, or null when tracing is off; `warn` hears each variable that is ignored (one line). */
export function tracingSettings(
  environment: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): TracingSettings | null {
  const value = (name: string) => environment[name]?.trim() || undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const endpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value('OTEL_EXPORTER_OTLP_ENDPOINT');
  const named = value('OTEL_TRACES_EXPORTER');
  const requested = named
    ? named.split(',').map((name) => name.trim().toLowerCase())
    : endpoint === undefined
      ? []
      : ['otlp'];
  const exporters: TraceExporterName[] = [];
  for (const name of requested) {
    if (name === 'none' || name === '') continue;
    if (name === 'otlp' || name === 'console') {
      if (!exporters.includes(name)) exporters.push(name);
      continue;
    }
    warn(`OTEL_TRACES_EXPORTER "${name}" is not supported (otlp, console, none): it is ignored`);
  }
  const protocolName =
    value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  let protocol: OtlpProtocol = 'http/protobuf';
  if (protocolName === 'http/json') protocol = 'http/json';
  else if (protocolName !== 'http/protobuf' && exporters.includes('otlp')) {
    warn(
      `OTLP protocol "${protocolName}" is not supported (http/protobuf, http/json): OTLP traces are off; ` +
        'collectors take http/protobuf on port 4318',
    );
    exporters.splice(exporters.indexOf('otlp'), 1);
  }
  if (exporters.length === 0) return null;
  const capture = value('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true';
  return { exporters, protocol, captureContent: capture };
}
