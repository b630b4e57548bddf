/**
 * `hermes-ts/replay`: the replay engine as a library (docs/library.md). Pure: no Node built-ins,
 * no network, no `process` — it runs in a browser or an edge worker (the module graph is checked
 * by test/library/replay-entry-purity.test.ts). `hermes replay preview` prints what
 * {@link buildRequest} returns: `--json` the body, `--explain` {@link explainTable} of the decisions.
 */
import { UsageError } from './core/errors.js';
import type { JsonObject } from './core/json.js';
import type { Message } from './core/message.js';
import type { WireApi } from './core/origin.js';
import { WIRE_APIS } from './core/origin.js';
import type { ReasoningOptions } from './core/reasoning-options.js';
import type { Route } from './core/route.js';
import type { ToolDefinition } from './core/tool-definition.js';
import { resolveProvider } from './providers/provider-registry.js';
import { NOTHING_LEARNED, type RouteProfile } from './replay/replay-route-profile.js';
import type { Carrier, CarrierDecision, RouteOverride } from './replay/replay-types.js';
import { CARRIERS } from './replay/replay-types.js';
import type { TransportRequest } from './transports/shared/transport.js';
import { type PrepareEnvironment, prepareRequest } from './transports/transport-prepare.js';
import { routeProfileFor } from './transports/transport-route-profile.js';

export { HermesError, UsageError } from './core/errors.js';
export type { JsonObject, JsonValue } from './core/json.js';
export type {
  AssistantMessage,
  ContentPart,
  Message,
  Role,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from './core/message.js';
export { parseHistory, validateMessage } from './core/message-parse.js';
export { WIRE_APIS, type WireApi } from './core/origin.js';
export {
  REASONING_EFFORTS,
  type ReasoningEffort,
  type ReasoningOptions,
  type ReasoningOverrides,
} from './core/reasoning-options.js';
export type { Route } from './core/route.js';
export type { ToolDefinition } from './core/tool-definition.js';
export { CARRIER_ROUTE_ROWS, type CarrierRouteRow } from './replay/replay-carrier-routes.js';
export { MUST_ECHO_FAMILIES, REASONING_ECHO_PAD, type MustEchoFamily } from './replay/replay-must-echo.js';
export type { RouteProfile } from './replay/replay-route-profile.js';
export { CARRIERS, type Carrier, type CarrierDecision, type RouteOverride } from './replay/replay-types.js';
export type { PrepareEnvironment } from './transports/transport-prepare.js';

/** The route of a request. `api` defaults to the provider's wire API (docs/providers.md). */
export interface RequestRoute {
  /** Provider id (docs/providers.md); an unknown id needs `baseUrl` and behaves as `custom`. */
  provider: string;
  /** Exact model id. */
  model: string;
  /** Default: the provider's base URL. */
  baseUrl?: string | undefined;
  api?: WireApi | undefined;
}

/** Settings that shape how a route is read (the `config.yaml` and environment parts of a route). */
export interface RouteLookupOptions {
  /** User route rows (`routes:` in config.yaml), matched before the built-in table. */
  routes?: readonly RouteOverride[] | undefined;
  /** `model.reasoning_echo` opt-in: pad tool turns on every route that reads `reasoning_content`. */
  reasoningEcho?: boolean | undefined;
  /** Environment defaults the encoders read (`NOUS_INFERENCE_BASE_URL`, `AWS_REGION`, `GOOGLE_CLOUD_PROJECT`, …). Default: none. */
  environment?: PrepareEnvironment | undefined;
}

/** Input of {@link buildRequest}. */
export interface BuildRequestOptions extends RouteLookupOptions {
  /** The canonical history (docs/sessions.md), never modified. */
  messages: readonly Message[];
  route: RequestRoute;
  /** Learned verdicts to apply: carriers this route rejected, never sent. */
  rejected?: readonly Carrier[] | undefined;
  /** Tools offered to the model. Default: none. */
  tools?: readonly ToolDefinition[] | undefined;
  /** Default: reasoning on, no effort. */
  reasoning?: ReasoningOptions | undefined;
  /** Ask for a streamed answer (`stream: true` in bodies that carry it). Default: true, as the runtime sends. */
  stream?: boolean | undefined;
}

/** The request a route would receive: what `hermes replay preview` prints. */
export interface BuiltRequest {
  /** The JSON body exactly as it goes on the wire (`--json`). */
  body: JsonObject;
  /** One entry per carrier or signed field of each message: kept, padded, lifted, covered or dropped, and why (`--explain`). */
  decisions: CarrierDecision[];
  /** The endpoint URL. */
  url: string;
  /** The verdict route key `provider|host|model`. */
  routeKey: string;
  /** Carriers present on assistant messages of the body. */
  carriersSent: Carrier[];
}

/** The full route of a {@link RequestRoute}: the wire API resolved, the base URL trimmed. */
export function resolveRequestRoute(route: RequestRoute): Route {
  const provider = route.provider.trim();
  if (provider === '') throw new UsageError('a route needs a provider id');
  const baseUrl = route.baseUrl?.trim();
  const info = resolveProvider(provider, baseUrl);
  const api = route.api ?? info.api;
  if (!(WIRE_APIS as readonly string[]).includes(api)) {
    throw new UsageError(`unknown wire API "${api}" (expected one of: ${WIRE_APIS.join(', ')})`);
  }
  const resolved: Route = { api, provider, model: route.model };
  if (baseUrl !== undefined && baseUrl !== '') resolved.baseUrl = baseUrl;
  return resolved;
}

/**
 * The route-table lookup: everything the tables say about a route (carrier row, must-echo
 * family, padding, keep-thinking flags, Anthropic / Bedrock / Gemini / Responses facts).
 */
export function lookupRoute(route: RequestRoute, options: RouteLookupOptions = {}): RouteProfile {
  return routeProfileFor(resolveRequestRoute(route), {
    overrides: options.routes,
    echoOptIn: options.reasoningEcho,
    nousInferenceBaseUrl: options.environment?.['NOUS_INFERENCE_BASE_URL'],
  });
}

/** Builds the exact request body `route` would receive for `messages`, with the per-message decisions. */
export function buildRequest(options: BuildRequestOptions): BuiltRequest {
  const rejected = options.rejected ?? [];
  for (const field of rejected) {
    if (!(CARRIERS as readonly string[]).includes(field)) {
      throw new UsageError(`unknown carrier "${String(field)}" (expected: ${CARRIERS.join(', ')})`);
    }
  }
  const route = resolveRequestRoute(options.route);
  const request: TransportRequest = {
    route,
    profile: lookupRoute(route, options),
    learned: { ...NOTHING_LEARNED, rejectedCarriers: CARRIERS.filter((carrier) => rejected.includes(carrier)) },
    history: options.messages,
    tools: options.tools ?? [],
    reasoning: options.reasoning ?? { enabled: true },
  };
  if (options.stream !== undefined) request.stream = options.stream;
  const prepared = prepareRequest(request, options.environment ?? {});
  return {
    body: prepared.body,
    decisions: prepared.decisions,
    url: prepared.url,
    routeKey: prepared.routeKey,
    carriersSent: prepared.carriersSent,
  };
}

function describeDecision(decision: CarrierDecision): string {
  const size = decision.bytes === undefined ? '' : `, ${decision.bytes} B`;
  return `${decision.action} ${decision.field} (${decision.reason}${size})`;
}

/** The `--explain` table: one row per message (index, role, its decisions with reasons). */
export function explainTable(messages: readonly Message[], decisions: readonly CarrierDecision[]): string {
  const byMessage = new Map<number, CarrierDecision[]>();
  for (const decision of decisions) {
    const list = byMessage.get(decision.messageIndex) ?? [];
    list.push(decision);
    byMessage.set(decision.messageIndex, list);
  }
  const indexWidth = Math.max(1, String(Math.max(0, messages.length - 1)).length);
  const lines = [`${'#'.padEnd(indexWidth)}  ${'role'.padEnd(9)}  carriers`];
  messages.forEach((message, index) => {
    const own = byMessage.get(index) ?? [];
    const head = `${String(index).padEnd(indexWidth)}  ${message.role.padEnd(9)}  `;
    if (own.length === 0) {
      lines.push(`${head}-`);
      return;
    }
    own.forEach((decision, position) => {
      lines.push(`${position === 0 ? head : ' '.repeat(head.length)}${describeDecision(decision)}`);
    });
  });
  return lines.join('\n');
}
