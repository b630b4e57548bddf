import type { AssistantMessage, Message } from '../core/message.js';
import type { Route } from '../core/route.js';
import type { FinishReason, Usage } from '../core/usage.js';
import type { CarrierDecision } from '../replay/replay-route-profile.js';

/**
 * What the runtime tells an observer about each provider request it sent (SPEC §26.10): the
 * gateway's Prometheus metrics and the OpenTelemetry spans of `hermes gateway` and `hermes chat`
 * are built from these reports. One report per attempt, after its outcome is known (a retried
 * request is two reports); never a key, and content only as references an observer may ignore.
 */
export interface ProviderRequestReport {
  /** The route the request went to (provider, model, base URL, wire API). */
  route: Route;
  /** `provider|host|model` (SPEC §3.3). */
  routeKey: string;
  /** The session the request belongs to (`(stateless)` for a front-door turn without one). */
  sessionId: string;
  /** 1 for the first request of a step, 2 for its recovery retry. */
  attempt: number;
  stream: boolean;
  /** When the request was sent (epoch ms) and how long until its outcome. */
  startedAt: number;
  durationMs: number;
  /** HTTP status of the answer: 200 for a completed answer, the provider's status, or 0 when none came. */
  status: number;
  /** The error's class name when the request failed (`BadRequestError`, `TimeoutError`, …). */
  errorType: string | null;
  usage: Usage | null;
  finishReason: FinishReason | null;
  /** The replay decisions of the request (what the request log line shows, SPEC §23.3). */
  decisions: readonly CarrierDecision[];
  /** Reasoning carriers the request sent (SPEC §24.10: native ones included). */
  carriersSent: readonly string[];
  /** What this failed request taught before its retry (SPEC §13.3), or null. */
  recovery: { row: string; learned: string; fields: readonly string[] } | null;
  /** The history the request was built from and the answer: for content capture only (opt-in). */
  history: readonly Message[];
  message: AssistantMessage | null;
}

/**
 * Told what turns do: every provider request (a report after its outcome), and, optionally, runs
 * each agent turn and each tool call inside a scope of its own (a span). `providerRequest` must
 * not throw (a throw is swallowed) and must not block.
 */
export interface TurnObserver {
  providerRequest(report: ProviderRequestReport): void;
  /** Runs one agent turn (`runAgentTurn`: `hermes chat`, the gateway's chat route). */
  agentTurn?<T>(turn: { sessionId: string; route: Route }, body: () => Promise<T>): Promise<T>;
  /** Runs one tool call of an agent turn. */
  toolCall?<T>(call: { id: string; name: string; sessionId: string }, body: () => Promise<T>): Promise<T>;
}

/** Delivers a report; an observer failure never reaches the turn. */
export function reportProviderRequest(observer: TurnObserver | undefined, report: () => ProviderRequestReport): void {
  if (observer === undefined) return;
  try {
    observer.providerRequest(report());
  } catch {
    // Telemetry is never a reason for a turn to fail.
  }
}

/**
 * One observer telling several (the gateway's metrics and its tracing); undefined when none.
 * Turns and tool calls run in the scope of the first observer that has one.
 */
export function combinedObserver(observers: readonly (TurnObserver | undefined)[]): TurnObserver | undefined {
  const present = observers.filter((observer): observer is TurnObserver => observer !== undefined);
  if (present.length <= 1) return present[0];
  const scoped = present.find((observer) => observer.agentTurn !== undefined);
  const tools = present.find((observer) => observer.toolCall !== undefined);
  const combined: TurnObserver = {
    providerRequest(report) {
      for (const observer of present) {
        try {
          observer.providerRequest(report);
        } catch {
          // One observer's failure keeps the others told.
        }
      }
    },
  };
  if (scoped?.agentTurn) combined.agentTurn = scoped.agentTurn.bind(scoped);
  if (tools?.toolCall) combined.toolCall = tools.toolCall.bind(tools);
  return combined;
}
