import type { EventStream } from '../../core/event-stream.js';
import type { JsonObject } from '../../core/json.js';
import type { Message } from '../../core/message.js';
import type { ReasoningOptions } from '../../core/reasoning-options.js';
import type { Route } from '../../core/route.js';
import type { Timeouts } from '../../core/timeouts.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import type { PrefixDigest } from '../../replay/anthropic-block-binding.js';
import type { RouteLearned, RouteProfile } from '../../replay/replay-route-profile.js';
import type { Carrier, CarrierDecision } from '../../replay/replay-types.js';

/** Everything a transport needs to build and send one request. */
export interface TransportRequest {
  route: Route;
  /**
   * Everything the route tables say about `route` (`routeProfileFor`, SPEC §3–§12, §23.4),
   * resolved once by the caller for every request of a turn. Absent: the transport resolves the
   * built-in profile of `route` (no user route rows, no echo opt-in).
   */
  profile?: RouteProfile;
  /** What the session learned about the route: verdicts, rejected signatures, kill switches (SPEC §9.4, §12, §13). Absent: nothing. */
  learned?: RouteLearned;
  /** Canonical stored history, never mutated by the transport. */
  history: readonly Message[];
  tools: readonly ToolDefinition[];
  reasoning: ReasoningOptions;
  /** Stream the response (default true). */
  stream?: boolean;
  apiKey?: string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * A `fetch` every HTTP request of this one goes through instead of the default client (tests,
   * library users that bring their own networking). Default: the process-wide keep-alive pool
   * (`shared/transport-http-client.ts`), which reads answers as Node streams and costs a third of
   * what `fetch` and its web streams do. Either way, redirects are never followed and the time
   * limits, bounded reads and redaction apply alike.
   */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Origin mapping, like curl's `--connect-to`: a request addressed to a key origin connects to
   * its value (path, query, headers and body unchanged), so host-based replay rules see the real
   * host while the bytes go to, say, a loopback emulator. The CLI fills it from
   * `HERMES_CONNECT_TO` and for in-process emulators (`cli-connect-to.ts`). Applies to the
   * default client and to `fetch` alike.
   */
  connectTo?: ReadonlyMap<string, string> | undefined;
  /** Time limits of each HTTP request (default `DEFAULT_TIMEOUTS`); hitting one is a retryable `TimeoutError`. */
  timeouts?: Timeouts | undefined;
  /** Attempts for retryable failures before any event was emitted (default 3). */
  maxAttempts?: number;
  /**
   * Native compaction threshold N of `context_management` on a route eligible for it (SPEC
   * §24.7), computed by the runtime from the compaction settings (src/runtime/runtime-native-compaction.ts).
   * Absent: the no-local-trigger default (200,000); null: native compaction turned off for the
   * route by a 4xx. Ignored on routes that are not eligible.
   */
  compactThreshold?: number | null | undefined;
  /**
   * Ask an Anthropic route for an on-demand compaction summary of the whole request (SPEC §26.4,
   * `compaction: {"type": "summarize"}`), with `instructions` replacing the API's own prompt.
   * Ignored where on-demand compaction is not on.
   */
  compaction?: { instructions?: string } | undefined;
  /** Max output tokens, when the caller wants to set it. */
  maxTokens?: number;
}

/** The exact request a transport will send, computed without I/O (used by `replay preview` and logs). */
export interface PreparedRequest {
  url: string;
  /** The JSON body, exactly as it goes on the wire. */
  body: JsonObject;
  /** Per-message carrier decisions (SPEC §23.3). */
  decisions: CarrierDecision[];
  /**
   * Decisions of messages at or after `messageIndex` only. Optional: transports that size
   * decisions lazily offer it so logging a long session's tail does not size the whole history.
   */
  decisionsFrom?(messageIndex: number): CarrierDecision[];
  /** Carriers present on assistant messages of this body (input to the SPEC §13.2 classifier). */
  carriersSent: Carrier[];
  /** Native carriers sent (signed thinking, redacted data, thought signatures, encrypted items), for the log (SPEC §24.10). */
  nativeCarriersSent?: readonly string[];
  /** The route key string `provider|host|model` (SPEC §3.3). */
  routeKey: string;
  /**
   * For each body message, the history index of each content block (Anthropic Messages), so a
   * provider's `input_transformations` path `messages.i.content.j` names a stored message.
   */
  wireSources?: readonly (readonly number[])[];
  /**
   * The thinking-binding digest after the whole body (SPEC §26.4), on a route that checks it: the
   * answer's blocks are bound by continuing from here. Absent, the body is digested again.
   */
  bindingPrefix?: PrefixDigest | undefined;
  /**
   * Anthropic: the wire positions `[message, block]` of signed blocks sent under another `system`
   * prompt than they were produced under, on a route not yet known to bind them to it (SPEC §26.4).
   */
  systemChangedBlocks?: readonly (readonly [number, number])[] | undefined;
}

/** A wire API implementation. `prepare` is pure; `send` is the only I/O. */
export interface Transport {
  readonly api: Route['api'];
  prepare(request: TransportRequest): PreparedRequest;
  /** Sends `prepared` (or prepares first) and returns the event stream. Never throws: failures end the stream with `error`. */
  send(request: TransportRequest, prepared?: PreparedRequest): EventStream;
}
