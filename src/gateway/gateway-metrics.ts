import { createRequire } from 'node:module';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CarrierDecision } from '../runtime/runtime-client-turn.js';
import type { TurnObserver, ProviderRequestReport } from '../runtime/runtime-observer.js';
import { describeHandleFailure, type HandleFailure } from './gateway-handle-seal.js';

/**
 * The gateway's Prometheus metrics (SPEC §26.10, docs/operations.md "Metrics"), kept with
 * `prom-client` in a registry of their own per gateway app. Every label is bounded: doors are
 * route patterns, providers and models are those the gateway was configured with (a model name a
 * client chose that no configured route names is `other`), statuses are HTTP codes, and decision
 * actions, recovery rows and handle failures are closed sets. No session id, key or content is a
 * label.
 */

/** Seconds buckets of the latency histograms: a fast proxy hop up to a long reasoning answer. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The process families of `prom-client`'s `collectDefaultMetrics`, each from the module that
 * function runs, all but `gc`: its PerformanceObserver is called on every collection and made
 * allocation-heavy code (a gateway turn) about 25 % slower in bench/operations' measurements.
 */
const PROCESS_METRICS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  'processResources',
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
] as const;

type ProcessMetric = (registry: Registry, config: { prefix: string; eventLoopMonitoringPrecision: number }) => void;

/** Registers the process families (CPU, memory, event-loop lag, handles, heap, version) in `registry`. */
function collectProcessMetrics(registry: Registry): void {
  const load = createRequire(import.meta.url);
  for (const name of PROCESS_METRICS) {
    const metric = load(`prom-client/lib/metrics/${name}`) as ProcessMetric;
    metric(registry, { prefix: 'hermes_', eventLoopMonitoringPrecision: 10 });
  }
}

/** How long a session counts as live after its last request. */
export const LIVE_SESSION_MS = 5 * 60_000;
/** Sessions tracked as live at most (the oldest are forgotten first). */
const MAX_LIVE_SESSIONS = 100_000;

const HANDLE_FAILURES: readonly HandleFailure[] = ['empty', 'not-a-handle', 'malformed', 'unknown-key', 'tampered'];

/** What the metrics read at scrape time from the gateway. */
export interface GatewayMetricsSources {
  /** Model ids of the configured routes (the gateway's own and `gateway.models`). */
  configuredModels: ReadonlySet<string>;
  /** Sessions whose history the gateway holds in memory now. */
  warmSessions?: (() => number) | undefined;
}

/** The registry and the updates the gateway makes to it. */
export class GatewayMetrics implements TurnObserver {
  readonly registry = new Registry();
  private readonly requests: Counter<'door' | 'method' | 'status'>;
  private readonly requestSeconds: Histogram<'door'>;
  private readonly inFlight: Gauge;
  private readonly upstream: Counter<'provider' | 'model' | 'status'>;
  private readonly upstreamSeconds: Histogram<'provider' | 'model'>;
  private readonly tokens: Counter<'provider' | 'model' | 'type'>;
  private readonly decisions: Counter<'action'>;
  private readonly recoveries: Counter<'provider' | 'row'>;
  private readonly learned: Counter<'provider' | 'kind'>;
  private readonly handlesDropped: Counter<'reason'>;
  private readonly live = new Map<string, number>();

  constructor(private readonly sources: GatewayMetricsSources) {
    collectProcessMetrics(this.registry);
    const registers = [this.registry];
    const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[]) =>
      new Counter<Label>({ name, help, labelNames, registers });
    const histogram = <Label extends string>(name: string, help: string, labelNames: readonly Label[]) =>
      new Histogram<Label>({ name, help, labelNames, buckets: SECONDS_BUCKETS, registers });
    this.requests = counter(
      'hermes_gateway_requests_total',
      'HTTP requests answered, by door (route pattern), method and status.',
      ['door', 'method', 'status'],
    );
    this.requestSeconds = histogram(
      'hermes_gateway_request_duration_seconds',
      'Time until the response started (a streamed answer: its headers), by door.',
      ['door'],
    );
    this.inFlight = new Gauge({
      name: 'hermes_gateway_requests_in_flight',
      help: 'Requests being answered now.',
      registers,
    });
    this.upstream = counter(
      'hermes_upstream_requests_total',
      'Provider requests, by provider, configured model and HTTP status (0: no answer).',
      ['provider', 'model', 'status'],
    );
    this.upstreamSeconds = histogram(
      'hermes_upstream_request_duration_seconds',
      'Provider request time until the answer ended or failed.',
      ['provider', 'model'],
    );
    this.tokens = counter(
      'hermes_upstream_tokens_total',
      'Tokens providers reported, by type (input, output, reasoning, cache_read).',
      ['provider', 'model', 'type'],
    );
    this.decisions = counter(
      'hermes_replay_decisions_total',
      'Replay decisions of the requests sent, by action (kept, padded, lifted, dropped, restored, …).',
      ['action'],
    );
    this.recoveries = counter(
      'hermes_upstream_recoveries_total',
      'Provider 4xx answers a recovery row learned from and retried once, by row.',
      ['provider', 'row'],
    );
    this.learned = counter(
      'hermes_verdicts_learned_total',
      'What recoveries learned about routes (verdict, thinking-fingerprints, effort, …).',
      ['provider', 'kind'],
    );
    this.handlesDropped = counter(
      'hermes_gateway_handles_dropped_total',
      'Reasoning handles a client echoed that did not open, by reason.',
      ['reason'],
    );
    const live = this.live;
    new Gauge({
      name: 'hermes_gateway_live_sessions',
      help: `Sessions with a request in the last ${LIVE_SESSION_MS / 60_000} minutes on this gateway.`,
      registers,
      collect() {
        const since = Date.now() - LIVE_SESSION_MS;
        for (const [id, at] of live) if (at < since) live.delete(id);
        this.set(live.size);
      },
    });
    const warm = sources.warmSessions;
    if (warm) {
      new Gauge({
        name: 'hermes_gateway_warm_sessions',
        help: 'Sessions whose history this gateway holds in memory.',
        registers,
        collect() {
          this.set(warm());
        },
      });
    }
  }

  /** A request started (the in-flight gauge). */
  requestStarted(): void {
    this.inFlight.inc();
  }

  /** A request was answered: `door` is its route pattern, `session` the session it named. */
  requestEnded(door: string, method: string, status: number, seconds: number, session: string | undefined): void {
    this.inFlight.dec();
    this.requests.inc({ door, method, status: String(status) });
    this.requestSeconds.observe({ door }, seconds);
    if (session !== undefined) this.sessionSeen(session);
  }

  /** {@link TurnObserver}: upstream requests, tokens, decisions, recoveries. */
  providerRequest(report: ProviderRequestReport): void {
    const provider = report.route.provider;
    const model = this.sources.configuredModels.has(report.route.model) ? report.route.model : 'other';
    this.upstream.inc({ provider, model, status: String(report.status) });
    this.upstreamSeconds.observe({ provider, model }, report.durationMs / 1000);
    const usage = report.usage;
    if (usage) {
      this.tokens.inc({ provider, model, type: 'input' }, usage.inputTokens);
      this.tokens.inc({ provider, model, type: 'output' }, usage.outputTokens);
      if (usage.reasoningTokens) this.tokens.inc({ provider, model, type: 'reasoning' }, usage.reasoningTokens);
      if (usage.cacheReadTokens) this.tokens.inc({ provider, model, type: 'cache_read' }, usage.cacheReadTokens);
    }
    const counts = new Map<string, number>();
    for (const decision of report.decisions) counts.set(decision.action, (counts.get(decision.action) ?? 0) + 1);
    for (const [action, count] of counts) this.decisions.inc({ action }, count);
    if (report.recovery) {
      this.recoveries.inc({ provider, row: report.recovery.row });
      this.learned.inc({ provider, kind: report.recovery.learned });
    }
  }

  /** The decisions about the handles a front-door request came with: those dropped, by reason. */
  handles(decisions: readonly CarrierDecision[]): void {
    for (const decision of decisions) {
      if (decision.action !== 'dropped' || !decision.field.startsWith('handle ')) continue;
      this.handlesDropped.inc({ reason: handleDropReason(decision.reason) });
    }
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  private sessionSeen(session: string): void {
    this.live.delete(session);
    this.live.set(session, Date.now());
    if (this.live.size > MAX_LIVE_SESSIONS) {
      const oldest = this.live.keys().next();
      if (!oldest.done) this.live.delete(oldest.value);
    }
  }
}

/** A bounded reason for a dropped handle: the seal's failure kind, else `mismatch` (moved to another turn, a second handle). */
export function handleDropReason(reason: string): string {
  for (const failure of HANDLE_FAILURES) if (reason.startsWith(describeHandleFailure(failure))) return failure;
  return 'mismatch';
}
