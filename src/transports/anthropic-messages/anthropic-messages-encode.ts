/**
 * Pure request lowering for the Anthropic Messages API (SPEC §9, WIRE.md §2.1, §2.5): canonical
 * history → the exact URL and body for the route's platform (direct, Bedrock InvokeModel, Vertex
 * rawPredict, Microsoft Foundry, Anthropic-compatible hosts). No I/O: `replay preview` and logs
 * call this; the transport adds headers and auth.
 */
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { ReasoningOptions } from '../../core/reasoning-options.js';
import { ANTHROPIC_ADAPTIVE_EFFORT, ANTHROPIC_BUDGET_EFFORT, EFFORT_OFF } from '../../providers/provider-effort.js';
import type { Route } from '../../core/route.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import type { AnthropicPlatform, AnthropicRouteTreatment } from '../../replay/anthropic-endpoint-route.js';
import { type AnthropicReplayResult, buildAnthropicMessages } from '../../replay/anthropic-replay.js';
import { nativeCarriersSent } from '../../replay/replay-native-drops.js';
import { INTERLEAVED_THINKING_BETA, THINKING_BINDING_BETA } from '../../replay/anthropic-thinking-policy.js';
import { bodyUsesCompaction, COMPACTION_BETA } from '../../replay/anthropic-compaction.js';
import type { AnthropicRouteFacts } from '../../replay/replay-route-profile.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { ToolWireCache } from '../shared/request-tool-cache.js';
import { requestLearned, requestProfile } from '../transport-route-profile.js';
import {
  type AnthropicEffort,
  type AnthropicThinkingParam,
  type AnthropicTool,
  BEDROCK_ANTHROPIC_VERSION,
  VERTEX_ANTHROPIC_VERSION,
} from './anthropic-messages-wire.js';
import { splitBaseUrl, withQuery } from '../shared/transport-url.js';

/** Options beyond {@link TransportRequest} (the runtime's retry path and the environment). */
export interface AnthropicPrepareOptions {
  /** SPEC §9.4: nothing was fingerprintable in a rejected request; strip all thinking for this retry only. */
  stripAllThinking?: boolean;
  /** `NOUS_INFERENCE_BASE_URL`, read by the transport (encode stays pure). */
  nousInferenceBaseUrl?: string | undefined;
}

/** Where and how a route is reached. */
export interface AnthropicEndpoint {
  platform: AnthropicPlatform;
  treatment: AnthropicRouteTreatment;
  /** Endpoint class for origin scoping (SPEC §23.2). */
  endpointClass: string;
}

/** Default base URL of the direct API. */
export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const DEFAULT_MAX_TOKENS_THINKING = 16_384;
const DEFAULT_MAX_TOKENS = 8_192;
/** Anthropic's floor for `budget_tokens` (WIRE.md §2.1: "N ≥ 1024 and < max_tokens"). */
export const MINIMUM_THINKING_BUDGET = 1024;
/** The platform, treatment and endpoint class of a request's route (SPEC §9.2), from its profile. */
export function resolveAnthropicEndpoint(
  request: TransportRequest,
  options: AnthropicPrepareOptions = {},
): AnthropicEndpoint {
  const facts = anthropicFacts(request, options);
  return { platform: facts.platform, treatment: facts.treatment, endpointClass: facts.endpointClass };
}

function anthropicFacts(request: TransportRequest, options: AnthropicPrepareOptions): AnthropicRouteFacts {
  return requestProfile(request, { nousInferenceBaseUrl: options.nousInferenceBaseUrl }).anthropic;
}

/** The request URL for a platform (WIRE.md §2.5). */
export function anthropicRequestUrl(route: Route, platform: AnthropicPlatform, stream: boolean): string {
  const { path: base, query } = splitBaseUrl(route.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL);
  return withQuery(`${base}${anthropicEndpoint(route, platform, stream, base)}`, query);
}

/** The endpoint path after a platform's base path `base` (WIRE.md §2.5). */
function anthropicEndpoint(route: Route, platform: AnthropicPlatform, stream: boolean, base: string): string {
  if (platform === 'bedrock') {
    return `/model/${encodeURIComponent(route.model)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
  }
  if (platform === 'vertex') {
    return `/publishers/anthropic/models/${route.model}:${stream ? 'streamRawPredict' : 'rawPredict'}`;
  }
  if (base.endsWith('/v1/messages')) return '';
  return base.endsWith('/v1') ? '/messages' : '/v1/messages';
}

/** The `thinking` / `output_config` parameters and `max_tokens` for a turn (WIRE.md §2.1). */
export function anthropicThinkingParameters(
  facts: Pick<AnthropicRouteFacts, 'adaptiveThinking' | 'interleavedThinkingBeta' | 'adaptiveOrDisabledThinking'>,
  reasoning: ReasoningOptions,
  maxTokens: number | undefined,
): {
  maxTokens: number;
  thinking?: AnthropicThinkingParam;
  /** Sent when thinking is off for a request, for models that think unless told not to (SPEC §24.2). */
  thinkingOff?: AnthropicThinkingParam;
  outputConfig?: { effort: AnthropicEffort };
  betas: string[];
} {
  if (facts.adaptiveOrDisabledThinking) {
    // SPEC §24.2: exactly {"type":"adaptive"} on, {"type":"disabled"} off; no effort, no budget.
    const off = { thinkingOff: { type: 'disabled' as const }, betas: [] };
    return reasoning.enabled && reasoning.effort !== 'none'
      ? { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS_THINKING, thinking: { type: 'adaptive' }, ...off }
      : { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS, ...off };
  }
  if (!reasoning.enabled) return { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS, betas: [] };
  if (facts.adaptiveThinking) {
    // Effort `none`: thinking explicitly off (models that think by default need the switch).
    if (reasoning.effort === 'none') {
      return { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS, thinkingOff: { type: 'disabled' }, betas: [] };
    }
    const result = { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS_THINKING, thinking: { type: 'adaptive' as const } };
    const effort = reasoning.effort === undefined ? undefined : ANTHROPIC_ADAPTIVE_EFFORT.values[reasoning.effort];
    return effort === undefined || effort === EFFORT_OFF
      ? { ...result, betas: [] }
      : { ...result, outputConfig: { effort: effort as AnthropicEffort }, betas: [] };
  }
  if (reasoning.effort === 'none') return { maxTokens: maxTokens ?? DEFAULT_MAX_TOKENS, betas: [] };
  // "budget_tokens: N ≥ 1024 and < max_tokens": a max_tokens at or below the floor is raised so
  // the request stays valid rather than answering 400 (WIRE.md §2.6f).
  let limit = maxTokens ?? DEFAULT_MAX_TOKENS_THINKING;
  if (limit <= MINIMUM_THINKING_BUDGET) limit = MINIMUM_THINKING_BUDGET * 2;
  const wanted = reasoning.budgetTokens ?? Number(ANTHROPIC_BUDGET_EFFORT.values[reasoning.effort ?? 'medium']);
  const budget = Math.max(MINIMUM_THINKING_BUDGET, Math.min(wanted, limit - 1));
  return {
    maxTokens: limit,
    thinking: { type: 'enabled', budget_tokens: budget },
    betas: facts.interleavedThinkingBeta ? [INTERLEAVED_THINKING_BETA] : [],
  };
}

/** Tools in Anthropic shape. */
export function anthropicTools(tools: readonly ToolDefinition[]): AnthropicTool[] {
  return anthropicToolWires.wire(tools);
}

const anthropicToolWires = new ToolWireCache<AnthropicTool>((tool) => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.parameters,
}));

/** The `anthropic-beta` values a request needs (header, or body `anthropic_beta` on Bedrock). */
export function anthropicBetas(request: TransportRequest, options: AnthropicPrepareOptions = {}): string[] {
  return anthropicThinkingParameters(anthropicFacts(request, options), request.reasoning, request.maxTokens).betas;
}

/**
 * The betas a prepared body's own fields need (SPEC §26.4): `thinking.block_binding` needs the
 * binding beta; a compaction request, or a body carrying a compaction block, the compaction beta.
 */
export function anthropicBodyBetas(body: JsonObject): string[] {
  const thinking = body['thinking'];
  const betas = isJsonObject(thinking) && thinking['block_binding'] !== undefined ? [THINKING_BINDING_BETA] : [];
  if (bodyUsesCompaction(body)) betas.push(COMPACTION_BETA);
  return betas;
}

/**
 * Builds the exact request without I/O. The body differs per platform (WIRE.md §2.5): Bedrock
 * has no `model` and no `stream`, carries `anthropic_version: "bedrock-2023-05-31"` and its betas
 * as `anthropic_beta`; Vertex has no `model` and carries `anthropic_version: "vertex-2023-10-16"`.
 */
export function prepareAnthropicMessages(
  request: TransportRequest,
  options: AnthropicPrepareOptions = {},
): PreparedRequest {
  const { route } = request;
  const stream = request.stream ?? true;
  const profile = requestProfile(request, { nousInferenceBaseUrl: options.nousInferenceBaseUrl });
  const endpoint = profile.anthropic;
  const parameters = anthropicThinkingParameters(endpoint, request.reasoning, request.maxTokens);
  const learned = requestLearned(request);
  const tools = request.tools.length > 0 ? (anthropicTools(request.tools) as unknown as JsonObject[]) : undefined;
  // SPEC §26.4: on-demand compaction, unless a 4xx named it on this route.
  const compactionOn = endpoint.onDemandCompaction && learned.compactionOff !== true;
  const build = (thinkingEnabled: boolean): AnthropicReplayResult =>
    buildAnthropicMessages(request.history, {
      treatment: endpoint.treatment,
      model: route.model,
      endpointClass: endpoint.endpointClass,
      thinkingEnabled,
      rejectedFingerprints: learned.rejectedThinkingFingerprints,
      stripAllThinking: options.stripAllThinking,
      prefixCheck: endpoint.prefixChecked ? { tools: tools ?? [] } : undefined,
      systemBinding: endpoint.prefixChecked ? undefined : learned.systemBound ? 'check' : 'note',
      compactionBlocks: compactionOn,
    });
  let conversation = build(request.reasoning.enabled && request.reasoning.effort !== 'none');
  let thinkingOn = parameters.thinking !== undefined;
  if (thinkingOn && endpoint.signedReplay && inFlightTurnLacksThinking(conversation.messages)) {
    // WIRE.md §2.6a: with thinking on, the assistant turn answered by the trailing tool_result
    // must start with a thinking block ("Expected `thinking` or `redacted_thinking`, but found
    // `tool_use`. … To avoid this requirement, disable `thinking`."). Its block is gone when a
    // signature was rejected mid-loop (SPEC §9.4 retry), a strip-all retry ran, or the loop
    // started with thinking off; sending thinking would be a certain 400, so this request
    // goes without it, as Anthropic's error advises.
    conversation = build(false);
    thinkingOn = false;
    conversation.decisions.push({
      messageIndex: lastAssistantIndex(request.history),
      field: 'thinking',
      action: 'dropped',
      reason: 'thinking off for this request: the in-flight tool-call turn has no valid thinking block',
    });
  }

  const body: JsonObject = {};
  if (endpoint.platform === 'bedrock') body['anthropic_version'] = BEDROCK_ANTHROPIC_VERSION;
  else if (endpoint.platform === 'vertex') body['anthropic_version'] = VERTEX_ANTHROPIC_VERSION;
  else body['model'] = route.model;
  body['max_tokens'] = parameters.maxTokens;
  if (conversation.system !== undefined) body['system'] = conversation.system;
  body['messages'] = conversation.messages;
  if (tools) body['tools'] = tools;
  if (thinkingOn && parameters.thinking) body['thinking'] = { ...parameters.thinking };
  else if (parameters.thinkingOff) body['thinking'] = { ...parameters.thinkingOff };
  // SPEC §26.4: the safety net for a stale block Hermes could not know about (history it never
  // digested); only where Anthropic documents it, never once the route refused it.
  if (
    endpoint.bindingControls &&
    !learned.bindingControlsRefused &&
    isJsonObject(body['thinking']) &&
    body['thinking']['type'] === 'adaptive'
  ) {
    body['thinking'] = { ...body['thinking'], block_binding: { prefix_mismatch_behavior: 'drop_block' } };
  }
  if (thinkingOn && parameters.outputConfig) body['output_config'] = { ...parameters.outputConfig };
  if (compactionOn && request.compaction) {
    const instructions = request.compaction.instructions?.trim();
    body['compaction'] = instructions ? { type: 'summarize', instructions } : { type: 'summarize' };
  }
  if (endpoint.platform === 'bedrock') {
    if (thinkingOn && parameters.betas.length > 0) body['anthropic_beta'] = [...parameters.betas];
  } else if (stream) body['stream'] = true;

  return {
    url: anthropicRequestUrl(route, endpoint.platform, stream),
    body,
    decisions: conversation.decisions,
    wireSources: conversation.blockSources,
    bindingPrefix: conversation.prefix,
    systemChangedBlocks: conversation.systemChanged,
    carriersSent: [],
    nativeCarriersSent: nativeCarriersSent(conversation.decisions),
    routeKey: profile.routeKey,
  };
}

/**
 * True when the request ends with a `tool_result` turn whose preceding assistant turn does not
 * start with a `thinking` / `redacted_thinking` block: Anthropic rejects that with thinking on
 * (WIRE.md §2.6a).
 */
export function inFlightTurnLacksThinking(messages: readonly JsonObject[]): boolean {
  const last = messages[messages.length - 1];
  const previous = messages[messages.length - 2];
  if (last?.['role'] !== 'user' || previous?.['role'] !== 'assistant' || !Array.isArray(last['content'])) return false;
  if (!last['content'].some((block) => isJsonObject(block) && block['type'] === 'tool_result')) return false;
  const first = Array.isArray(previous['content']) ? previous['content'][0] : undefined;
  return !(isJsonObject(first) && (first['type'] === 'thinking' || first['type'] === 'redacted_thinking'));
}

function lastAssistantIndex(history: TransportRequest['history']): number {
  for (let index = history.length - 1; index >= 0; index -= 1) if (history[index]?.role === 'assistant') return index;
  return -1;
}
