import {
  context,
  createContextKey,
  diag,
  DiagLogLevel,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { knownSecrets } from '../core/redact.js';
import type { ProviderRequestReport, TurnObserver } from '../runtime/runtime-observer.js';
import {
  contentAttributes,
  decisionCounts,
  genAiProviderName,
  providerRequestAttributes,
  routeAttributes,
  type Attributes,
} from './telemetry-genai.js';
import type { TracingSettings } from './telemetry-settings.js';
import type { ServerSpanOutcome, Tracing, TracingService } from './telemetry-tracing.js';

/**
 * The OpenTelemetry SDK behind {@link Tracing}, loaded only when tracing is configured
 * (`telemetry-tracing.ts`). Spans are batched and exported in the background
 * (`OTEL_BSP_*` tune the batches); a span names no key, and message content only under
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`.
 */

/** Longest wait for the last spans when the process stops. */
const SHUTDOWN_MS = 3_000;
/** Export failures are said at most this often. */
const WARN_EVERY_MS = 60_000;

/** What the spans under a gateway request or an agent turn add up to, reported when it ends. */
class ScopeTotals {
  requests = 0;
  inputTokens = 0;
  outputTokens = 0;
  reasoningTokens = 0;
  verdicts = 0;
  recoveries = 0;
  firstRoute: ProviderRequestReport['route'] | null = null;
  answeredModel: string | null = null;
  readonly carriersSent = new Set<string>();
  readonly actions = new Map<string, number>();

  constructor(readonly parent: ScopeTotals | undefined) {}

  add(report: ProviderRequestReport): void {
    this.requests += 1;
    this.firstRoute ??= report.route;
    if (report.status === 200) this.answeredModel = report.route.model;
    this.inputTokens += report.usage?.inputTokens ?? 0;
    this.outputTokens += report.usage?.outputTokens ?? 0;
    this.reasoningTokens += report.usage?.reasoningTokens ?? 0;
    for (const carrier of report.carriersSent) this.carriersSent.add(carrier);
    for (const [action, count] of decisionCounts(report))
      this.actions.set(action, (this.actions.get(action) ?? 0) + count);
    if (report.recovery) {
      this.recoveries += 1;
      if (report.recovery.learned === 'verdict') this.verdicts += report.recovery.fields.length;
    }
    this.parent?.add(report);
  }

  attributes(): Attributes {
    if (this.firstRoute === null) return {};
    const attributes: Attributes = {
      'gen_ai.provider.name': genAiProviderName(this.firstRoute.provider),
      'gen_ai.request.model': this.firstRoute.model,
      'gen_ai.usage.input_tokens': this.inputTokens,
      'gen_ai.usage.output_tokens': this.outputTokens,
      'hermes.provider_requests': this.requests,
      'hermes.replay.carriers_sent': [...this.carriersSent],
      'hermes.recoveries': this.recoveries,
      'hermes.verdicts_learned': this.verdicts,
    };
    if (this.reasoningTokens > 0) attributes['gen_ai.usage.reasoning.output_tokens'] = this.reasoningTokens;
    if (this.answeredModel !== null) attributes['gen_ai.response.model'] = this.answeredModel;
    for (const [action, count] of this.actions) attributes[`hermes.replay.${action}`] = count;
    return attributes;
  }
}

const TOTALS = createContextKey('hermes scope totals');

const HEADER_GETTER: TextMapGetter<(name: string) => string | null> = {
  keys: () => [],
  get: (header, key) => header(key) ?? undefined,
};

/** Starts the SDK: exporters, batch processors, the async context manager; returns the tracer's {@link Tracing}. */
export function startOpenTelemetry(
  settings: TracingSettings,
  service: TracingService,
  environment: Readonly<Record<string, string | undefined>>,
): Tracing {
  let lastWarning = 0;
  diag.setLogger(
    {
      error: (message) => warnSometimes(message),
      warn: (message) => warnSometimes(message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  function warnSometimes(message: string): void {
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    lastWarning = now;
    service.warn(`tracing: ${message.split('\n')[0] ?? message}`);
  }
  const exporters: SpanExporter[] = settings.exporters.map((name) =>
    name === 'console'
      ? new ConsoleSpanExporter()
      : settings.protocol === 'http/json'
        ? new OtlpJsonExporter()
        : new OtlpProtobufExporter(),
  );
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': service.name, 'service.version': service.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: exporters.map((exporter) => new BatchSpanProcessor(exporter)),
  });
  provider.register();
  const tracer = provider.getTracer('hermes', service.version);
  const secrets = knownSecrets(undefined, environment);

  /**
   * Runs `body` in `span` (with totals of its own); ends the span with `finish` and the totals when
   * `body` is done, or once `answered` resolves after that.
   */
  const inScope = async <T>(
    span: Span,
    parent: Context,
    body: () => Promise<T>,
    finish: (totals: ScopeTotals, failed: unknown) => void,
    answered?: Promise<void>,
  ): Promise<T> => {
    const totals = new ScopeTotals(parent.getValue(TOTALS) as ScopeTotals | undefined);
    const scope = trace.setSpan(parent, span).setValue(TOTALS, totals);
    const end = (failed: unknown) => {
      finish(totals, failed);
      span.end();
    };
    try {
      const result = await context.with(scope, body);
      if (answered) void answered.then(() => end(null));
      else end(null);
      return result;
    } catch (error) {
      end(error);
      throw error;
    }
  };
  const failedSpan = (span: Span, error: unknown) => {
    // The error's class only: its message may quote a provider's text about the request.
    const type = error instanceof Error ? error.name : 'Error';
    span.setAttribute('error.type', type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: type });
  };

  const observer: TurnObserver = {
    providerRequest(report) {
      const active = context.active();
      const attributes = providerRequestAttributes(report);
      if (settings.captureContent) Object.assign(attributes, contentAttributes(report, secrets));
      const span = tracer.startSpan(
        `chat ${report.route.model}`,
        { kind: SpanKind.CLIENT, startTime: report.startedAt, attributes },
        active,
      );
      if (report.errorType !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: report.errorType });
      span.end(report.startedAt + report.durationMs);
      (active.getValue(TOTALS) as ScopeTotals | undefined)?.add(report);
    },
    agentTurn(turn, body) {
      const parent = context.active();
      const attributes: Attributes = {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'hermes',
        'gen_ai.conversation.id': turn.sessionId,
        ...routeAttributes(turn.route),
      };
      const span = tracer.startSpan('invoke_agent hermes', { kind: SpanKind.INTERNAL, attributes }, parent);
      return inScope(span, parent, body, (totals, failed) => {
        span.setAttributes(totals.attributes());
        if (failed) failedSpan(span, failed);
      });
    },
    toolCall(call, body) {
      const parent = context.active();
      const attributes: Attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': call.id,
        'gen_ai.tool.type': 'function',
        'gen_ai.conversation.id': call.sessionId,
      };
      const span = tracer.startSpan(`execute_tool ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
      return inScope(span, parent, body, (_totals, failed) => {
        if (failed) failedSpan(span, failed);
      });
    },
  };

  return {
    observer,
    serverSpan(request, body, outcome, answered) {
      const parent = propagation.extract(ROOT_CONTEXT, request.header, HEADER_GETTER);
      const attributes: Attributes = { 'http.request.method': request.method, 'http.route': request.door };
      const span = tracer.startSpan(`${request.method} ${request.door}`, { kind: SpanKind.SERVER, attributes }, parent);
      return inScope(
        span,
        parent,
        body,
        (totals, failed) => {
          const { status, session }: ServerSpanOutcome = outcome();
          span.setAttribute('http.response.status_code', status);
          if (session !== undefined) span.setAttribute('gen_ai.conversation.id', session);
          const summed = totals.attributes();
          if (Object.keys(summed).length > 0) span.setAttributes({ 'gen_ai.operation.name': 'chat', ...summed });
          if (failed) failedSpan(span, failed);
          else if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
        },
        answered,
      );
    },
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_MS);
        timer.unref();
      });
      await Promise.race([provider.shutdown().catch(() => undefined), limit]);
      clearTimeout(timer);
    },
  };
}
