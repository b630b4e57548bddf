import { nativeCarriersSent, unreadCarrierDecisions } from '../../replay/replay-native-drops.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { AssistantMessage, Message, ToolMessage, UserMessage } from '../../core/message.js';
import type { ReasoningOptions } from '../../core/reasoning-options.js';
import type { Route } from '../../core/route.js';
import {
  geminiSignatureVerdict,
  messageLevelSignature,
  resolveGeminiRoute,
  toolCallSignature,
  usableSignature,
  type GeminiRouteFacts,
} from '../../replay/gemini-replay-policy.js';
import { geminiCallArguments, sameGeminiArguments, syncToolCallSidecars } from '../../replay/replay-tool-call-sync.js';
import type { CarrierDecision } from '../../replay/replay-types.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { requestProfile } from '../transport-route-profile.js';
import { GEMINI_BUDGET_EFFORT, GEMINI_LEVEL_EFFORT } from '../../providers/provider-effort.js';
import {
  GEMINI_AI_STUDIO_BASE_URL,
  GEMINI_SKIP_SIGNATURE_SENTINEL,
  type GeminiContent,
  type GeminiPart,
  type GeminiRequestBody,
  type GeminiThinkingConfig,
} from './gemini-wire.js';
import { joinBaseUrl } from '../shared/transport-url.js';

/**
 * Pure lowering of canonical history to a Gemini `generateContent` body (SPEC §11, WIRE.md §4).
 * Never mutates the history: every part is built fresh or deep-copied.
 */

// ---------------------------------------------------------------------------------------------
// Endpoint
// ---------------------------------------------------------------------------------------------

/** Vertex defaults the transport reads from the environment (the encoder stays pure). */
export interface GeminiEndpointDefaults {
  vertexProject?: string | undefined;
  vertexLocation?: string | undefined;
}

/**
 * The request URL. AI Studio: `{base}/models/{model}:generateContent`; Vertex (base URL of the
 * shape `…/v1/projects/P/locations/L`): `{base}/publishers/google/models/{model}:…`. Streaming
 * adds `:streamGenerateContent?alt=sse` (without `alt=sse` Google streams a JSON array instead).
 */
export function geminiRequestUrl(
  route: Route,
  stream: boolean,
  defaults: GeminiEndpointDefaults = {},
  facts: GeminiRouteFacts = resolveGeminiRoute(route),
): string {
  const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  if (facts.issuerKind === 'vertex') {
    return joinBaseUrl(vertexBaseUrl(route, defaults), `/publishers/google/models/${facts.model}:${method}`);
  }
  return joinBaseUrl(route.baseUrl ?? GEMINI_AI_STUDIO_BASE_URL, `/models/${facts.model}:${method}`);
}

function vertexBaseUrl(route: Route, defaults: GeminiEndpointDefaults): string {
  if (route.baseUrl) return route.baseUrl;
  const location = defaults.vertexLocation ?? 'global';
  const project = defaults.vertexProject ?? 'PROJECT_ID_UNSET';
  // The `global` location has no regional host prefix.
  const host = location === 'global' ? 'aiplatform.googleapis.com' : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${project}/locations/${location}`;
}

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

/** Builds the exact request (URL, body, replay decisions, route key) for one turn. */
export function prepareGemini(request: TransportRequest, defaults: GeminiEndpointDefaults = {}): PreparedRequest {
  const profile = requestProfile(request);
  const facts = profile.gemini;
  const decisions: CarrierDecision[] = [];
  const body: GeminiRequestBody = { contents: encodeContents(request.history, facts, decisions) };
  const system = request.history.filter((message) => message.role === 'system').map((message) => message.content);
  if (system.length > 0) body.systemInstruction = { parts: system.map((text) => ({ text })) };
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          // `parametersJsonSchema` takes full JSON Schema; `parameters` rejects `additionalProperties`.
          parametersJsonSchema: structuredClone(tool.parameters),
        })),
      },
    ];
  }
  const thinkingConfig = encodeThinkingConfig(request.reasoning, facts);
  if (thinkingConfig || request.maxTokens !== undefined) {
    body.generationConfig = {};
    if (thinkingConfig) body.generationConfig.thinkingConfig = thinkingConfig;
    if (request.maxTokens !== undefined) body.generationConfig.maxOutputTokens = request.maxTokens;
  }
  return {
    url: geminiRequestUrl(request.route, request.stream ?? true, defaults, facts),
    body: body as unknown as JsonObject,
    decisions,
    carriersSent: [],
    nativeCarriersSent: nativeCarriersSent(decisions),
    routeKey: profile.routeKey,
  };
}

/**
 * WIRE.md §4.1: `thinkingLevel` for Gemini 3, `thinkingBudget` (-1 = dynamic, 0 = off) for 2.5;
 * the level or budget of an effort comes from the effort table (src/providers/provider-effort.ts).
 */
function encodeThinkingConfig(reasoning: ReasoningOptions, facts: GeminiRouteFacts): GeminiThinkingConfig | undefined {
  if (!reasoning.enabled) return undefined;
  if (facts.thinkingStyle === 'level') {
    if (reasoning.effort) {
      const thinkingLevel = GEMINI_LEVEL_EFFORT.values[reasoning.effort] as NonNullable<
        GeminiThinkingConfig['thinkingLevel']
      >;
      return { includeThoughts: true, thinkingLevel };
    }
    if (reasoning.budgetTokens !== undefined) return { includeThoughts: true, thinkingBudget: reasoning.budgetTokens };
    return { includeThoughts: true };
  }
  const budget =
    reasoning.budgetTokens ?? (reasoning.effort ? Number(GEMINI_BUDGET_EFFORT.values[reasoning.effort]) : -1);
  // A zero budget turns thinking off: there are no thoughts to include.
  return { includeThoughts: budget !== 0, thinkingBudget: budget };
}

// ---------------------------------------------------------------------------------------------
// History
// ---------------------------------------------------------------------------------------------

function encodeContents(
  history: readonly Message[],
  facts: GeminiRouteFacts,
  decisions: CarrierDecision[],
): GeminiContent[] {
  const contents: GeminiContent[] = [];
  // Gemini 3 validates every signature of the current turn: each step since the last user text turn (WIRE.md §4.4).
  let lastUserText = -1;
  history.forEach((message, index) => {
    if (message.role === 'user') lastUserText = index;
  });
  const callNames = new Map<string, string>();
  const sentCallIds = new Set<string>();
  history.forEach((message, index) => {
    if (message.role === 'user') {
      const parts = encodeUserParts(message);
      if (parts.length > 0) contents.push({ role: 'user', parts });
    } else if (message.role === 'tool') {
      const part = encodeToolResult(message, callNames, sentCallIds);
      const previous = contents[contents.length - 1];
      // Parallel results answer one model step: they share one user content, as Gemini returns them.
      if (previous && previous.role === 'user' && previous.parts.every((each) => each.functionResponse)) {
        previous.parts.push(part);
      } else contents.push({ role: 'user', parts: [part] });
    } else if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
      const parts = encodeModelParts(message, index, index > lastUserText, facts, decisions);
      for (const part of parts) if (part.functionCall?.id) sentCallIds.add(part.functionCall.id);
      if (parts.length > 0) contents.push({ role: 'model', parts });
    }
  });
  return contents;
}

function encodeUserParts(message: UserMessage): GeminiPart[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ text: message.content }];
  const parts: GeminiPart[] = [];
  for (const part of message.content) {
    if (part['type'] === 'text' && typeof part['text'] === 'string') parts.push({ text: part['text'] });
    // A part without `type` is a provider-native Gemini part (inlineData, fileData, ...) kept verbatim.
    else if (part['type'] === undefined) parts.push(structuredClone(part) as GeminiPart);
  }
  return parts;
}

function encodeToolResult(message: ToolMessage, callNames: Map<string, string>, sentCallIds: Set<string>): GeminiPart {
  const name = callNames.get(message.tool_call_id) ?? message.tool_name ?? 'tool';
  const functionResponse: GeminiPart['functionResponse'] = { name, response: { result: message.content } };
  // Answer with the id only when the call went out with one (Gemini ≥ 3, or an id the model issued).
  if (sentCallIds.has(message.tool_call_id)) functionResponse.id = message.tool_call_id;
  return { functionResponse };
}

/**
 * One assistant turn → model parts. Same issuer and family: the stored parts verbatim (thought
 * parts included, every signature on the part it came on). Otherwise, or when the stored parts
 * no longer match the message (edited history), parts are rebuilt from the canonical fields, and
 * signatures travel only when the verdict allows. A current-turn step whose first function call
 * has no signature gets the documented sentinel.
 */
function encodeModelParts(
  original: AssistantMessage,
  messageIndex: number,
  currentTurn: boolean,
  facts: GeminiRouteFacts,
  decisions: CarrierDecision[],
): GeminiPart[] {
  // The stored parts lose every call the message no longer has, so they still describe it and
  // travel verbatim with their signatures instead of being rebuilt.
  const synced = syncToolCallSidecars(original, messageIndex);
  const message = synced.message;
  decisions.push(...synced.decisions);
  const verdict = geminiSignatureVerdict(message, facts);
  const stored = storedParts(message);
  const wireText = message.api_content ?? message.content ?? '';
  let parts: GeminiPart[];
  if (verdict.travel && stored && storedPartsMatch(stored, message, wireText)) {
    parts = structuredClone(stored);
    const thoughtBytes = parts.filter((part) => part.thought).reduce((sum, part) => sum + utf8Bytes(part.text), 0);
    if (thoughtBytes > 0) {
      decisions.push({ messageIndex, field: 'thought', action: 'kept', reason: verdict.reason, bytes: thoughtBytes });
    }
  } else {
    parts = rebuildParts(message, wireText, verdict.travel);
    if (stored?.some((part) => part.thought)) {
      const reason = verdict.travel ? 'stored parts differ from message' : verdict.reason;
      decisions.push({ messageIndex, field: 'thought', action: 'dropped', reason });
    }
  }
  decisions.push(...unreadCarrierDecisions(original, messageIndex, 'gemini'));
  if (!verdict.travel) recordDroppedSignatures(message, messageIndex, verdict.reason, decisions);
  else {
    for (const part of parts) {
      if (part.thoughtSignature) {
        const bytes = utf8Bytes(part.thoughtSignature);
        decisions.push({ messageIndex, field: 'thought_signature', action: 'kept', reason: verdict.reason, bytes });
      }
    }
  }
  attachCallIds(parts, message, facts);
  if (currentTurn) {
    const firstCall = parts.find((part) => part.functionCall);
    if (firstCall && !firstCall.thoughtSignature) {
      firstCall.thoughtSignature = GEMINI_SKIP_SIGNATURE_SENTINEL;
      decisions.push({
        messageIndex,
        field: 'thought_signature',
        action: 'padded',
        reason: 'current-turn call without a usable signature: skip sentinel',
      });
    }
  }
  return parts;
}

function storedParts(message: AssistantMessage): GeminiPart[] | undefined {
  const value = message.gemini_content_parts;
  return Array.isArray(value) && value.every(isJsonObject) ? (value as GeminiPart[]) : undefined;
}

/** The stored parts still describe the message: same visible text, same calls in the same order. */
function storedPartsMatch(stored: GeminiPart[], message: AssistantMessage, wireText: string): boolean {
  const text = stored
    .filter((part) => typeof part.text === 'string' && !part.thought)
    .map((part) => part.text)
    .join('');
  if (text !== wireText) return false;
  const calls = stored.filter((part) => part.functionCall);
  const toolCalls = message.tool_calls ?? [];
  if (calls.length !== toolCalls.length) return false;
  return calls.every((part, index) => {
    const toolCall = toolCalls[index];
    if (!toolCall || part.functionCall?.name !== toolCall.function.name) return false;
    return sameGeminiArguments(part.functionCall.args, toolCall.function.arguments);
  });
}

function rebuildParts(message: AssistantMessage, wireText: string, withSignatures: boolean): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const textSignature = withSignatures ? messageLevelSignature(message) : undefined;
  if (wireText !== '') parts.push({ text: wireText });
  for (const call of message.tool_calls ?? []) {
    const part: GeminiPart = {
      functionCall: { name: call.function.name, args: geminiCallArguments(call.function.arguments) },
    };
    const signature = withSignatures ? toolCallSignature(call.extra_content) : undefined;
    if (signature) part.thoughtSignature = signature;
    parts.push(part);
  }
  if (textSignature) {
    // SPEC §11: the text signature goes on the LAST text part; a turn without text keeps it on an empty one.
    const lastText = [...parts].reverse().find((part) => typeof part.text === 'string');
    if (lastText) lastText.thoughtSignature = textSignature;
    else parts.push({ text: '', thoughtSignature: textSignature });
  }
  return parts;
}

function attachCallIds(parts: GeminiPart[], message: AssistantMessage, facts: GeminiRouteFacts): void {
  const toolCalls = message.tool_calls ?? [];
  let index = 0;
  for (const part of parts) {
    if (!part.functionCall) continue;
    const toolCall = toolCalls[index++];
    // Gemini ≥ 3 matches results to calls by id (SPEC §11); an id the model issued itself is kept as is.
    if (toolCall && facts.sendsFunctionCallIds) part.functionCall.id = toolCall.id;
  }
}

function recordDroppedSignatures(
  message: AssistantMessage,
  messageIndex: number,
  reason: string,
  decisions: CarrierDecision[],
): void {
  const signatures = [
    ...(message.tool_calls ?? []).map((call) => toolCallSignature(call.extra_content)),
    messageLevelSignature(message),
    ...(storedParts(message) ?? []).map((part) => usableSignature(part.thoughtSignature)),
  ].filter((signature): signature is string => signature !== undefined);
  for (const signature of new Set(signatures)) {
    decisions.push({
      messageIndex,
      field: 'thought_signature',
      action: 'dropped',
      reason,
      bytes: utf8Bytes(signature),
    });
  }
}

function utf8Bytes(text: string | undefined): number {
  return text === undefined ? 0 : new TextEncoder().encode(text).length;
}
