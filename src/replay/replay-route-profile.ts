import type { JsonObject } from '../core/json.js';
import type { OriginStamp } from '../core/origin.js';
import type { Route } from '../core/route.js';
import { type AnthropicRouteFacts, resolveAnthropicRoute } from './anthropic-endpoint-route.js';
import { type BedrockModelPolicy, resolveBedrockModelPolicy } from './bedrock-converse-policy.js';
import { type GeminiRouteFacts, resolveGeminiRoute } from './gemini-replay-policy.js';
import { resolveCarrierRoute } from './replay-carrier-routes.js';
import { type RouteReads, routeReads } from './replay-carrier-shaping.js';
import { hostnameMatches, hostnameOf } from './replay-host.js';
import { keepThinkingFlags } from './replay-keep-thinking.js';
import { mustEchoFamily } from './replay-must-echo.js';
import { routeKeyOf, routeKeyString } from './replay-route-key.js';
import { requiredCarrierFor, type RequiredCarrier, type StandInKind } from './replay-stand-ins.js';
import { staleThinkingReachesWire } from './replay-token-estimate.js';
import type { Carrier, CarrierDecision, RouteKey, RouteOverride } from './replay-types.js';
import { type ResponsesIssuerKind, nativeCompactionEligible, responsesIssuerKind } from './responses-replay-policy.js';

export type { AnthropicRouteFacts } from './anthropic-endpoint-route.js';
export type { BedrockModelPolicy } from './bedrock-converse-policy.js';
export type { GeminiRouteFacts } from './gemini-replay-policy.js';
export type { RequiredCarrier, StandInKind } from './replay-stand-ins.js';
export type { Carrier, CarrierDecision, RouteKey, RouteOverride };
export { CARRIERS } from './replay-types.js';

/**
 * The one place a route is resolved (STYLE rule 2 (docs/architecture.md)): {@link resolveRouteProfile} turns a route
 * plus the user's route rows into everything a request needs to know about it. Encoders, the
 * runtime's recovery and compaction pricing read the profile; none of them looks at a model id
 * or a host again.
 */

/** Facts of the chat-completions route tables (SPEC §4–§8), for the provider, host and model. */
export interface ChatRouteFacts {
  /** The row of the carrier table that matched: a built-in row name, `override`, `local-fallback` or `fallback` (SPEC §5, §23.4). */
  row: string;
  /** Carriers the row reads, in SPEC order, before learned verdicts are subtracted (SPEC §5 plus its post-step, §23.7). */
  carriers: readonly Carrier[];
  /** Which fields of the private carrier record the route reads (SPEC §7.4). */
  recordReads: RouteReads;
  /** The model consumes per-call Gemini `extra_content` signatures (SPEC §7.6). */
  consumesThoughtSignature: boolean;
  /** The provider profile's `native_reasoning_details_type` (SPEC §5 post-step, §7.6, §24.11). */
  nativeReasoningDetailsType: string | undefined;
  /** Keep-thinking body flags sent when reasoning is on for the turn (SPEC §8, §23.4). */
  keepThinking: JsonObject;
  /** The carrier tool-call steps of the current turn require, with its stand-in (SPEC §26.2); null: none. */
  requiredCarrier: RequiredCarrier | null;
}

/** Facts of the Responses API for the route (SPEC §12). */
export interface ResponsesRouteFacts {
  /** Who mints and verifies this route's `encrypted_content` (SPEC §12). */
  issuerKind: ResponsesIssuerKind;
  /** Native server-side compaction is available: `gpt-5.6` on `api.openai.com` or the Codex backend (SPEC §24.7). */
  nativeCompaction: boolean;
}

/**
 * Everything a request needs to know about its route, resolved once by
 * {@link resolveRouteProfile}. Data only: no functions, so it can be logged, compared and reused
 * for every request of a turn. Facts for every wire API are resolved; the encoder of the route's
 * own API reads its own block.
 */
export interface RouteProfile {
  /** The route as given (wire API, provider id, exact model id, base URL or none). */
  route: Route;
  /**
   * The base URL the route really contacts: the route's own (trimmed, without a trailing `/`),
   * else the provider's default for its wire API, else undefined (SPEC §3.1).
   */
  baseUrl: string | undefined;
  /** The verdict route key of {@link baseUrl}'s host (SPEC §3.3). */
  key: RouteKey;
  /** The key's string form `provider|host|model` (SPEC §3.3): logs, config, the verdict table. */
  routeKey: string;
  /** The stamp of messages captured on this route: wire API, provider, host of the route's own base URL, model (SPEC §23.2). */
  origin: OriginStamp;
  /** The must-echo family (SPEC §4), `override` for a user row declaring it (SPEC §23.4), or null. */
  mustEchoFamily: string | null;
  /** `model.reasoning_echo` opt-in padding is on (SPEC §4). */
  echoOptIn: boolean;
  /** Tool turns lacking replayable text are padded, before verdicts are applied (SPEC §6.1 steps 1–3). */
  pad: boolean;
  /** Old assistant reasoning reaches the wire on this route, so compaction charges it (SPEC §14). */
  chargeStaleThinking: boolean;
  /** The chat-completions route tables (SPEC §5–§8). */
  chat: ChatRouteFacts;
  /** Anthropic Messages treatment, platform and model policy (SPEC §9). */
  anthropic: AnthropicRouteFacts;
  /** The Bedrock Converse model policy row (SPEC §10). */
  bedrock: BedrockModelPolicy;
  /** Gemini issuer and model facts (SPEC §11). */
  gemini: GeminiRouteFacts;
  /** Responses issuer (SPEC §12). */
  responses: ResponsesRouteFacts;
}

/** Inputs of {@link resolveRouteProfile} besides the route and the user route rows. */
export interface RouteProfileOptions {
  /** `model.reasoning_echo` opt-in (SPEC §4). */
  echoOptIn?: boolean | undefined;
  /** The provider's default base URL for the route's wire API, used when the route has none. */
  defaultBaseUrl?: string | undefined;
  /** The provider profile's `native_reasoning_details_type` (SPEC §5 post-step). */
  nativeReasoningDetailsType?: string | undefined;
  /** The value of `NOUS_INFERENCE_BASE_URL`, when set (SPEC §9.2). */
  nousInferenceBaseUrl?: string | undefined;
}

/**
 * What a session has learned about a route, plus one-retry modifiers (SPEC §9.4, §12, §13).
 * Read from the session's `model_config` and the store-wide verdict table by the runtime.
 */
export interface RouteLearned {
  /** Carriers this route key rejected: never sent again (SPEC §13.3, §23.1). */
  rejectedCarriers: readonly Carrier[];
  /** Fingerprints of Anthropic signed blocks the route rejected (SPEC §9.4). */
  rejectedThinkingFingerprints: readonly string[];
  /** Encrypted Responses reasoning is replayed; false after `invalid_encrypted_content` (SPEC §12 kill switch). */
  replayEncryptedReasoning: boolean;
  /** The stand-in a required-carrier rejection taught for this route (SPEC §26.2); absent: the route's own. */
  standIn?: StandInKind | undefined;
  /** The route refused `thinking.block_binding` (SPEC §26.4): it is no longer declared. */
  bindingControlsRefused?: boolean;
  /** A 4xx named Anthropic on-demand compaction on this route (SPEC §26.4): Hermes summarises itself, blocks go as text. */
  compactionOff?: boolean;
  /**
   * The route refused a signed block only because its `system` prompt changed (SPEC §26.4): such
   * blocks are left out before sending.
   */
  systemBound?: boolean;
}

/** A route nothing has been learned about. */
export const NOTHING_LEARNED: RouteLearned = Object.freeze({
  rejectedCarriers: Object.freeze([]) as readonly Carrier[],
  rejectedThinkingFingerprints: Object.freeze([]) as readonly string[],
  replayEncryptedReasoning: true,
});

/** SPEC §3.1: the route's own base URL when it has one, else the default; trimmed, no trailing `/`. */
function effectiveBaseUrl(route: Route, defaultBaseUrl: string | undefined): string | undefined {
  const own = route.baseUrl?.trim();
  const chosen = own !== undefined && own !== '' ? own : defaultBaseUrl?.trim();
  return chosen === undefined || chosen === '' ? undefined : chosen.replace(/\/+$/, '');
}

/**
 * Resolves a route's profile: the route key, must-echo family, carrier row, record reads,
 * keep-thinking flags, Anthropic treatment and platform, Bedrock policy, Gemini facts and
 * Responses issuer. Pure; `overrides` are the user route rows of `config.yaml` (SPEC §23.4).
 */
export function resolveRouteProfile(
  route: Route,
  overrides: readonly RouteOverride[] = [],
  options: RouteProfileOptions = {},
): RouteProfile {
  const baseUrl = effectiveBaseUrl(route, options.defaultBaseUrl);
  const key = routeKeyOf(route.provider, baseUrl, route.model);
  const family = mustEchoFamily(route.provider, route.model, baseUrl, { overrides });
  const echoOptIn = options.echoOptIn === true;
  const pad = echoOptIn || family !== null;
  const chat = chatFacts(route, baseUrl, overrides, options.nativeReasoningDetailsType);
  const anthropic = resolveAnthropicRoute({
    baseUrl: route.baseUrl,
    model: route.model,
    provider: route.provider,
    nousInferenceBaseUrl: options.nousInferenceBaseUrl,
  });
  return {
    route,
    baseUrl,
    key,
    routeKey: routeKeyString(key),
    origin: {
      api: route.api,
      provider: route.provider.trim().toLowerCase(),
      host: hostnameOf(route.baseUrl),
      model: route.model,
    },
    mustEchoFamily: family,
    echoOptIn,
    pad,
    chargeStaleThinking: chargesStaleThinking(route, pad, chat.carriers, anthropic),
    chat,
    anthropic,
    bedrock: resolveBedrockModelPolicy(route.model),
    gemini: resolveGeminiRoute(route),
    responses: responsesFacts(route, baseUrl),
  };
}

function responsesFacts(route: Route, baseUrl: string | undefined): ResponsesRouteFacts {
  const issuerKind = responsesIssuerKind(route.provider, baseUrl);
  return { issuerKind, nativeCompaction: nativeCompactionEligible(route.model, baseUrl, issuerKind) };
}

function chatFacts(
  route: Route,
  baseUrl: string | undefined,
  overrides: readonly RouteOverride[],
  nativeReasoningDetailsType: string | undefined,
): ChatRouteFacts {
  const resolution = resolveCarrierRoute(route.provider, baseUrl, {
    overrides,
    profileNativeReasoningDetailsType: nativeReasoningDetailsType,
  });
  const recordReads = routeReads({ model: route.model, baseUrl });
  const provider = route.provider.trim().toLowerCase();
  // SPEC §7.6 [T/I]: Gemini/Gemma models (the same model test as the §7.4 `extra_content`
  // read), and provider `gemini` on the Google endpoint even with an alias model id (the prior
  // art's tests keep it there).
  const consumesThoughtSignature =
    recordReads.extraContent ||
    (provider === 'gemini' && hostnameMatches(hostnameOf(baseUrl), 'generativelanguage.googleapis.com'));
  return {
    row: resolution.row,
    carriers: resolution.carriers,
    recordReads,
    consumesThoughtSignature,
    nativeReasoningDetailsType,
    keepThinking: keepThinkingFlags({ ...route, baseUrl }, true, overrides),
    requiredCarrier: requiredCarrierFor(route.model, { row: resolution.row, recordReads, consumesThoughtSignature }),
  };
}

/**
 * SPEC §14 per wire API. On Anthropic Messages old reasoning is charged where prior thinking
 * really travels (SPEC §9.2 "replays prior thinking": `minimax`, or `native` with a model that
 * preserves it, §9.1); on chat-completions where the route reads `reasoning_content` or
 * `reasoning`; elsewhere where padding puts it back.
 */
function chargesStaleThinking(
  route: Route,
  pad: boolean,
  carriers: readonly Carrier[],
  anthropic: AnthropicRouteFacts,
): boolean {
  if (route.api === 'anthropic_messages') {
    return staleThinkingReachesWire({
      api: route.api,
      pad,
      carriers: null,
      anthropicReplaysPriorThinking: anthropic.signedReplay && anthropic.thinkingScope === 'all',
    });
  }
  if (route.api !== 'chat_completions') return staleThinkingReachesWire({ api: route.api, pad, carriers: null });
  return staleThinkingReachesWire({ api: route.api, pad: pad && carriers.includes('reasoning_content'), carriers });
}
