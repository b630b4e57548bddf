import type { TurnObserver } from '../runtime/runtime-observer.js';
import { tracingSettings } from './telemetry-settings.js';

/**
 * OpenTelemetry traces of `hermes gateway` and `hermes chat` (SPEC §26.10, docs/operations.md
 * "Tracing"): a SERVER span per gateway request, an `invoke_agent` span per agent turn, a CLIENT
 * span per provider request with the GenAI semantic conventions (`gen_ai.*`) and Hermes's replay
 * attributes (`hermes.*`), and an `execute_tool` span per tool call. Configured by the standard
 * `OTEL_*` variables only (`telemetry-settings.ts`); with none set, {@link startTracing} returns
 * null without loading any OpenTelemetry package, and callers skip every tracing step.
 */

/** What a gateway request's span reports when it ends. */
export interface ServerSpanOutcome {
  status: number;
  /** The session the request named or was answered with (`gen_ai.conversation.id`). */
  session?: string | undefined;
}

/** A running tracer. */
export interface Tracing {
  /** Spans for agent turns, provider requests and tool calls, as a runtime observer. */
  readonly observer: TurnObserver;
  /**
   * Runs `body` in a SERVER span named `METHOD DOOR` (a W3C `traceparent` the request carries is its
   * parent). The span ends when `body` is done, or later when `answered` resolves (the response
   * written to its end: a streamed answer's provider requests happen after `body` returned); then
   * `outcome` is read.
   */
  serverSpan<T>(
    request: { method: string; door: string; header: (name: string) => string | null },
    body: () => Promise<T>,
    outcome: () => ServerSpanOutcome,
    answered?: Promise<void>,
  ): Promise<T>;
  /** Exports the spans still buffered (at most a few seconds) and stops. */
  shutdown(): Promise<void>;
}

/** Who is tracing (the resource's `service.name` unless `OTEL_SERVICE_NAME` says otherwise). */
export interface TracingService {
  name: string;
  version: string;
  /** Hears problems in one line each: an ignored variable, exports failing (at most once a minute). */
  warn: (line: string) => void;
}

/** Starts tracing when the environment asks for it; null (nothing loaded) otherwise. */
export async function startTracing(
  environment: Readonly<Record<string, string | undefined>>,
  service: TracingService,
): Promise<Tracing | null> {
  const settings = tracingSettings(environment, service.warn);
  if (settings === null) return null;
  const { startOpenTelemetry } = await import('./telemetry-otel.js');
  return startOpenTelemetry(settings, service, environment);
}
