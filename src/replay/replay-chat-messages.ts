import type { JsonObject, JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { AssistantMessage, Message, ToolCall } from '../core/message.js';
import type { Route } from '../core/route.js';
import type { ShapeOutcome } from './replay-carrier-shaping.js';
import { NATIVE_ASSISTANT_RECORD_TYPE, shapeRecordFields } from './replay-carrier-shaping.js';
import { chatReplayContext, type ChatReplayContext } from './replay-chat-context.js';
import { DecisionLog, explainDrop, recordAssistantDecisions } from './replay-chat-decisions.js';
import { type NativeCarrierOutcome, scopeNativeCarriers } from './replay-native-carriers.js';
import type { OriginVerdict, ScopedEntry } from './replay-origin-scope.js';
import { originVerdict, scopeReasoningDetails } from './replay-origin-scope.js';
import { replayableText, policyCarriers, recordsOnly } from './replay-policy.js';
import { type RejectedEntry, withoutRejectedEntries } from './replay-relay-signature.js';
import { resolveRouteProfile, type RouteLearned, type RouteProfile } from './replay-route-profile.js';
import { applyStandIns, effectiveRequirement, type RequiredCarrier } from './replay-stand-ins.js';
import type { Carrier, CarrierDecision, RouteKey, RouteOverride } from './replay-types.js';
import { CARRIERS } from './replay-types.js';
import { defineLazyProperty } from '../core/lazy-property.js';
import { withFields } from '../core/with-fields.js';

/**
 * The chat-completions wire copy of a history (SPEC §6, §7.4–§7.6, §23.2–§23.3): one pure pass
 * that never mutates the history, shallow-copies each message and shares every unchanged nested
 * value (opaque blobs are never cloned). Each message gets an allow-listed wire object:
 * - system / user: `role, content, name`;
 * - tool: `role, content, tool_call_id, name`;
 * - assistant: `role, content, name, tool_calls, refusal` + the carriers the route reads +
 *   lifted private-record fields.
 * So metadata (`timestamp`, `tool_name`, `origin`, `codex_*`, native block sidecars, every `_`
 * key, unknown keys) never reaches a provider: strict schemas answer 400/422 on one extra key
 * (Mistral "Extra inputs are not permitted", Groq "property '…' is unsupported", WIRE.md §6).
 */

/** Options of {@link buildChatCompletionsMessages}. */
export interface ChatReplayOptions {
  /** Learned verdicts for this route key (SPEC §13). */
  rejected?: readonly Carrier[];
  /** `model.reasoning_echo` opt-in padding (SPEC §4). */
  echoOptIn?: boolean;
  /** User route rows (SPEC §23.4). */
  overrides?: readonly RouteOverride[];
  /** Provider profile `native_reasoning_details_type` (SPEC §5 post-step, §7.6). */
  profileNativeReasoningDetailsType?: string;
}

/** The wire messages plus everything that explains them. */
export interface ChatReplayResult {
  /** Wire messages, in history order. */
  messages: JsonObject[];
  /** One decision per carrier kept, padded, lifted or dropped (SPEC §23.3). */
  decisions: CarrierDecision[];
  /** The decisions of messages at or after `messageIndex` only (cheap for a long history's tail). */
  decisionsFrom(messageIndex: number): CarrierDecision[];
  /** Carriers the route gets after verdicts (SPEC §6.1). */
  carriers: Carrier[];
  /** Padding is active (SPEC §6.1). */
  pad: boolean;
  routeKey: RouteKey;
  /** Carriers present on at least one wire assistant message (input to SPEC §13.2). */
  carriersSent: Carrier[];
}

/**
 * Builds the chat-completions `messages` for `history` on `route`, resolving the route's profile
 * from `options` (the built-in tables plus the given rows). Requests use {@link buildChatReplay}
 * with the profile they carry.
 */
export function buildChatCompletionsMessages(
  history: readonly Message[],
  route: Route,
  options: ChatReplayOptions = {},
): ChatReplayResult {
  const profile = resolveRouteProfile({ ...route, api: 'chat_completions' }, options.overrides, {
    echoOptIn: options.echoOptIn,
    nativeReasoningDetailsType: options.profileNativeReasoningDetailsType,
  });
  return buildChatReplay(history, profile, { rejectedCarriers: options.rejected ?? [] });
}

/**
 * The chat-completions `messages` for `history` on the route of `profile`, with the learned
 * verdicts applied. Pure and idempotent: the same input gives an equal result, and the history
 * is never written to.
 */
export function buildChatReplay(
  history: readonly Message[],
  profile: RouteProfile,
  learned: Pick<RouteLearned, 'rejectedCarriers'> &
    Partial<Pick<RouteLearned, 'rejectedThinkingFingerprints' | 'standIn'>>,
  options: { reasoningEnabled?: boolean } = {},
): ChatReplayResult {
  const context = chatReplayContext(profile, learned);
  const decisions = new DecisionLog();
  return lowerChatHistory(
    history,
    decisions,
    (message, index) => convertMessage(message, index, context, decisions),
    { carriers: context.carriers, pad: context.decision.pad, routeKey: profile.key },
    requestRequirement(profile, learned.standIn, options.reasoningEnabled ?? true),
  );
}

/**
 * The carrier requirement of one request (SPEC §26.2): the route's, adjusted by what was learned;
 * a relay enforces Anthropic's signed-thinking rule only while thinking is on.
 */
export function requestRequirement(
  profile: RouteProfile,
  learned: RouteLearned['standIn'],
  reasoningEnabled: boolean,
): RequiredCarrier | null {
  const required = effectiveRequirement(profile.chat.requiredCarrier, learned);
  if (required?.carrier === 'reasoning_details' && !reasoningEnabled && learned === undefined) return null;
  return required;
}

/** The wire messages of a history and what explains them, without the route facts. */
export type LoweredChatHistory = Pick<ChatReplayResult, 'messages' | 'decisions' | 'decisionsFrom' | 'carriersSent'>;

/**
 * Lowers `history` message by message with `lower` (which appends each message's decisions to
 * `decisions`) and adds `facts`: the one loop behind {@link buildChatReplay} and the encoder's
 * cached lowering. Decisions are materialised (and sized) on first read; see DecisionLog.
 */
export function lowerChatHistory<Facts extends object>(
  history: readonly Message[],
  decisions: DecisionLog,
  lower: (message: Message, index: number) => JsonObject,
  facts: Facts,
  required: RequiredCarrier | null = null,
): LoweredChatHistory & Facts {
  const messages: JsonObject[] = new Array<JsonObject>(history.length);
  const sent = new Set<Carrier>();
  for (let index = 0; index < history.length; index++) {
    const message = history[index] as Message;
    const wire = lower(message, index);
    if (message.role === 'assistant') {
      for (const carrier of CARRIERS) if (wire[carrier] !== undefined) sent.add(carrier);
    }
    messages[index] = wire;
  }
  return finishChatHistory(history, messages, sent, decisions, facts, required);
}

/**
 * The lowered history once each message has its wire object in `messages` (and its decisions in
 * `decisions`): the stand-ins of SPEC §26.2 applied to `messages` (which the result owns from
 * then on), `facts` added, decisions materialised (and sized) on first read. `sent` holds the
 * carriers present on at least one assistant wire object before stand-ins.
 */
export function finishChatHistory<Facts extends object>(
  history: readonly Message[],
  messages: JsonObject[],
  sent: ReadonlySet<Carrier>,
  decisions: DecisionLog,
  facts: Facts,
  required: RequiredCarrier | null,
): LoweredChatHistory & Facts {
  // SPEC §26.2: a step of the current turn that lacks a carrier the route requires gets its stand-in.
  applyStandIns(history, messages, required, decisions);
  const lowered = withFields(facts, {
    messages,
    decisionsFrom: (messageIndex: number) => decisions.materialize(messageIndex),
    carriersSent: CARRIERS.filter((carrier) => sent.has(carrier)),
  });
  // Facts never name these keys (LoweredChatHistory's own), so the merge keeps every fact.
  return defineLazyProperty(lowered, 'decisions', () => decisions.materialize()) as unknown as LoweredChatHistory &
    Facts;
}

/** Converts one canonical message to its wire object, appending its decisions. */
export function convertMessage(
  message: Message,
  index: number,
  context: ChatReplayContext,
  decisions: DecisionLog,
): JsonObject {
  const loose = message as unknown as JsonObject;
  const content = typeof loose['api_content'] === 'string' ? loose['api_content'] : (loose['content'] ?? null);
  if (message.role === 'assistant') return convertAssistant(message, loose, content, index, context, decisions);
  const wire: JsonObject = { role: message.role, content };
  if (message.role === 'tool') wire['tool_call_id'] = message.tool_call_id;
  if (typeof loose['name'] === 'string') wire['name'] = loose['name'];
  return wire;
}

function convertAssistant(
  message: AssistantMessage,
  loose: JsonObject,
  content: JsonValue,
  index: number,
  context: ChatReplayContext,
  decisions: DecisionLog,
): JsonObject {
  const verdict = originVerdict(message.origin, context.issuer);
  // SPEC §6.3 as values, then §23.2 scoping, §7.5 record shaping and §7.6/§24.11 native-carrier
  // filtering on the reasoning_details list; the wire object is then built once, in a fixed key order, without
  // `delete` (deleting keys drops V8 objects into slow dictionary mode, which JSON.stringify
  // and the transport then pay for on every request).
  const text = replayableText(message);
  const policy = policyCarriers(message, context.decision.pad, context.carriers, text);
  let details: readonly JsonValue[] | undefined = Array.isArray(message.reasoning_details)
    ? message.reasoning_details
    : undefined;
  if (details && policy.detailsRecordsOnly) details = recordsOnly(details);
  let scoped: readonly ScopedEntry[] = NO_SCOPED_ENTRIES;
  if (details && details.length > 0 && !verdict.sameIssuerAndModel) {
    const result = scopeReasoningDetails(details, verdict);
    scoped = result.scoped;
    details = result.details;
  }
  const profileType = context.profileNativeReasoningDetailsType;
  let shaped: ShapeOutcome = NOT_SHAPED;
  if (needsShaping(loose, details)) {
    const result = shapeRecordFields(loose, details, context.reads, {
      allowOpaque: verdict.sameIssuer,
      keepRecordType: profileType,
    });
    shaped = result;
    details = result.details;
  }
  let native: readonly NativeCarrierOutcome[] = NO_NATIVE_OUTCOMES;
  if (details !== undefined) {
    // SPEC §24.11: a namespaced native carrier travels only to its declaring provider's routes.
    const detailsRead = context.carriers.includes('reasoning_details');
    const result = scopeNativeCarriers(details, message.reasoning_details, {
      ownType: profileType,
      detailsRead,
      unreadReason: detailsRead ? '' : explainDrop('reasoning_details', context),
    });
    details = result.details;
    native = result.outcomes;
  }
  let rejected: readonly RejectedEntry[] = NO_REJECTED_ENTRIES;
  if (details && context.rejectedFingerprints.size > 0) {
    // SPEC §24.8: entries a relay rejected as an invalid thinking signature never travel again.
    const result = withoutRejectedEntries(details, context.rejectedFingerprints);
    details = result.details;
    rejected = result.dropped;
  }

  const wire: JsonObject = { role: 'assistant', content };
  if (typeof loose['name'] === 'string') wire['name'] = loose['name'];
  if (message.tool_calls && message.tool_calls.length > 0) {
    wire['tool_calls'] = message.tool_calls.map((call, callIndex) =>
      convertToolCall(call, callIndex, index, verdict, context, decisions),
    );
  }
  if (loose['refusal'] !== undefined) wire['refusal'] = loose['refusal'];
  if (policy.reasoningContent !== undefined) wire['reasoning_content'] = policy.reasoningContent;
  if (policy.reasoning !== undefined) wire['reasoning'] = policy.reasoning;
  if (details !== undefined && details.length > 0) wire['reasoning_details'] = details as JsonValue[];
  for (const field of shaped.lifted) wire[field] = shaped.values[field];
  recordAssistantDecisions({
    message,
    wire,
    index,
    context,
    verdict,
    scoped,
    shaped,
    decisions,
    text,
    rejected,
    native,
  });
  return wire;
}

const NO_REJECTED_ENTRIES: readonly RejectedEntry[] = Object.freeze([]);
const NO_SCOPED_ENTRIES: readonly ScopedEntry[] = Object.freeze([]);
const NO_NATIVE_OUTCOMES: readonly NativeCarrierOutcome[] = Object.freeze([]);
const NOT_SHAPED: ShapeOutcome = { record: undefined, values: {}, lifted: [] };

/** Shaping (SPEC §7.5) has work only when the message holds a record or a live record field. */
function needsShaping(message: JsonObject, details: readonly JsonValue[] | undefined): boolean {
  if (message['extra_content'] !== undefined || message['reasoning_opaque'] !== undefined) return true;
  if (message['reasoning_text'] !== undefined) return true;
  if (details === undefined) return false;
  for (const entry of details) {
    if (isJsonObject(entry) && entry['type'] === NATIVE_ASSISTANT_RECORD_TYPE) return true;
  }
  return false;
}

function usableSignature(extraContent: JsonObject): boolean {
  const google = extraContent['google'];
  const nested = isJsonObject(google) ? google['thought_signature'] : undefined;
  const signature = nested ?? extraContent['thought_signature'];
  return typeof signature === 'string' && signature.trim() !== '';
}

/**
 * A wire tool call: `id, type, function{name, arguments}` plus, where the route reads them, the
 * Copilot per-call `function.thought_signature` and the Gemini `extra_content`. Responses ids
 * (`call_id`, `response_item_id`) never travel: Rust/serde servers answer "unknown field
 * `extra_content`, expected one of `id`, `type`, `function`" (WIRE.md §6).
 */
function convertToolCall(
  call: ToolCall,
  callIndex: number,
  index: number,
  verdict: OriginVerdict,
  context: ChatReplayContext,
  decisions: DecisionLog,
): JsonObject {
  const source = call.function;
  let fn: JsonObject = source as unknown as JsonObject;
  let extraKeys = false;
  for (const key in source) if (key !== 'name' && key !== 'arguments' && key !== 'thought_signature') extraKeys = true;
  const signature = source.thought_signature;
  const keepSignature = signature !== undefined && context.reads.copilot && verdict.sameIssuer;
  if (signature !== undefined) {
    decisions.add(
      index,
      `tool_calls[${callIndex}].function.thought_signature`,
      keepSignature ? 'kept' : 'dropped',
      keepSignature ? 'route reads it' : context.reads.copilot ? 'foreign origin' : 'not read by route',
      signature,
    );
  }
  if (extraKeys || (signature !== undefined && !keepSignature)) {
    fn = { name: source.name, arguments: source.arguments };
    if (keepSignature) fn['thought_signature'] = signature;
  }
  const wire: JsonObject = { id: call.id, type: 'function', function: fn };
  const extraContent = call.extra_content;
  if (extraContent !== undefined) {
    const usable = isJsonObject(extraContent) && usableSignature(extraContent);
    const keep = context.consumesThoughtSignature && usable && verdict.sameIssuer;
    if (keep) wire['extra_content'] = extraContent;
    const reason = keep
      ? 'route reads it'
      : !context.consumesThoughtSignature
        ? 'not read by route'
        : !usable
          ? 'no usable signature'
          : 'foreign origin';
    decisions.add(index, `tool_calls[${callIndex}].extra_content`, keep ? 'kept' : 'dropped', reason, undefined);
  }
  return wire;
}
