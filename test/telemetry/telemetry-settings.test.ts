import { describe, expect, it } from 'vitest';
import { tracingSettings } from '../../src/telemetry/telemetry-settings.js';

/** Tracing is configured by the standard OTEL_* variables only, and off unless asked for (SPEC §26.10). */

function read(environment: Record<string, string>) {
  const warnings: string[] = [];
  return { settings: tracingSettings(environment, (line) => warnings.push(line)), warnings };
}

describe('tracing settings', () => {
  it('are off with no variable, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true', () => {
    expect(read({}).settings).toBeNull();
    expect(read({ OTEL_SERVICE_NAME: 'gw' }).settings).toBeNull();
    expect(read({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).settings).toBeNull();
    expect(read({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).settings).toBeNull();
  });

  it('turn OTLP on with an endpoint, http/protobuf unless the protocol says http/json', () => {
    expect(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).settings).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
      captureContent: false,
    });
    expect(
      read({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })
        .settings,
    ).toMatchObject({ exporters: ['otlp'], protocol: 'http/json' });
    // The signal's own protocol wins over the general one.
    expect(
      read({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }).settings?.protocol,
    ).toBe('http/json');
  });

  it('take console and otlp from OTEL_TRACES_EXPORTER, and say in one line what they ignore', () => {
    expect(read({ OTEL_TRACES_EXPORTER: 'console' }).settings?.exporters).toEqual(['console']);
    const mixed = read({ OTEL_TRACES_EXPORTER: 'otlp, zipkin ,console' });
    expect(mixed.settings?.exporters).toEqual(['otlp', 'console']);
    expect(mixed.warnings).toEqual([
      'OTEL_TRACES_EXPORTER "zipkin" is not supported (otlp, console, none): it is ignored',
    ]);
    const grpc = read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(grpc.settings).toBeNull();
    expect(grpc.warnings[0]).toMatch(/^OTLP protocol "grpc" is not supported/);
  });

  it('capture message content only when asked', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(
      read({ ...endpoint, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }).settings?.captureContent,
    ).toBe(true);
    expect(
      read({ ...endpoint, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' }).settings?.captureContent,
    ).toBe(false);
  });
});
