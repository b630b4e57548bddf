import { UsageError } from '../../core/errors.js';
import { defineLazyProperty } from '../../core/lazy-property.js';
import type { JsonObject } from '../../core/json.js';
import type { Message } from '../../core/message.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import { resolveProvider } from '../../providers/provider-registry.js';
import { mergeRequestFlags } from '../../replay/replay-keep-thinking.js';
import { chatReplayContext, type ChatReplayContext } from '../../replay/replay-chat-context.js';
import { DecisionLog, type SizeSource } from '../../replay/replay-chat-decisions.js';
import {
  convertMessage,
  finishChatHistory,
  requestRequirement,
  type LoweredChatHistory,
} from '../../replay/replay-chat-messages.js';
import type { RouteLearned, RouteProfile } from '../../replay/replay-route-profile.js';
import type { RequiredCarrier } from '../../replay/replay-stand-ins.js';
import { CARRIERS, type Carrier, type CarrierDecision } from '../../replay/replay-types.js';
import { MessageWireCache } from '../shared/request-message-cache.js';
import { ToolWireCache } from '../shared/request-tool-cache.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { requestLearned, requestProfile } from '../transport-route-profile.js';
import { joinBaseUrl } from '../shared/transport-url.js';

/**
 * Pure request lowering for every OpenAI-compatible route: the ONE code path used by the
 * transport and by `hermes replay preview --api chat_completions`, so what the preview prints is
 * byte for byte what is sent.
 *
 * Body key order is fixed: `model, messages, stream, stream_options, tools, <provider reasoning
 * flags merged with keep-thinking flags>, max_tokens`.
 */

/** `{type: "function", function: {name, description, parameters}}` (OpenAI function-tool shape). */
export function chatCompletionsTools(tools: readonly ToolDefinition[]): JsonObject[] {
  return chatTools.wire(tools);
}

const chatTools = new ToolWireCache<JsonObject>((tool) => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: tool.parameters },
}));

/**
 * Builds the exact chat-completions request without I/O. Replay decisions use the effective
 * base URL (the provider default when the route has none), so a Copilot record lifts on the
 * default `api.githubcopilot.com` too, and `routeKey` names the host actually contacted.
 */
export function prepareChatCompletions(request: TransportRequest): PreparedRequest {
  const { route } = request;
  const provider = resolveProvider(route.provider, route.baseUrl);
  const profile = requestProfile(request);
  const baseUrl = profile.baseUrl;
  if (baseUrl === undefined) {
    throw new UsageError(`provider "${route.provider}" has no default endpoint; pass --base-url`);
  }
  const learned = requestLearned(request);
  const replay: ChatWireReplay = buildCachedChatReplay(
    request.history,
    profile,
    learned,
    requestRequirement(profile, learned.standIn, request.reasoning.enabled && request.reasoning.effort !== 'none'),
  );
  const stream = request.stream ?? true;
  const body: JsonObject = { model: route.model, messages: replay.messages, stream };
  if (stream) body['stream_options'] = { include_usage: true };
  if (request.tools.length > 0) body['tools'] = chatCompletionsTools(request.tools);
  const flags = mergeRequestFlags(
    provider.reasoningRequest(route.model, request.reasoning),
    // Effort `none` turns thinking off, so there is no thinking to keep (SPEC §8).
    request.reasoning.enabled && request.reasoning.effort !== 'none' ? profile.chat.keepThinking : {},
  );
  for (const key of Object.keys(flags)) {
    if (!(key in body)) body[key] = flags[key];
  }
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  const prepared = {
    url: joinBaseUrl(baseUrl, '/chat/completions'),
    body,
    decisionsFrom: (messageIndex: number) => replay.decisionsFrom(messageIndex),
    carriersSent: replay.carriersSent,
    routeKey: profile.routeKey,
  };
  // Read through, so decisions are materialised only when someone explains or logs them.
  return defineLazyProperty(prepared, 'decisions', () => replay.decisions);
}

// ---------------------------------------------------------------------------------------------
// Messages, reused across requests
// ---------------------------------------------------------------------------------------------

/** The wire messages of a request and what explains them (the fields of `ChatReplayResult` the request reads). */
export type ChatWireReplay = LoweredChatHistory;

/**
 * Decisions without their message index, in flat arrays: those of the messages one request
 * lowered (not the ones it reused), kept by the cache entries of those messages.
 */
class RecordedDecisions {
  readonly fields: string[] = [];
  readonly actions: CarrierDecision['action'][] = [];
  readonly reasons: string[] = [];
  readonly sizes: SizeSource[] = [];
}

/** The decisions one message recorded when it was lowered: positions `start` to `end` of `recorded`. */
interface DecisionRange {
  recorded: RecordedDecisions;
  start: number;
  end: number;
}

/** A decision log that also records each decision it is given, so a lowered message can replay them later. */
class RecordingDecisionLog extends DecisionLog {
  readonly recorded = new RecordedDecisions();

  override add(
    messageIndex: number,
    field: string,
    action: CarrierDecision['action'],
    reason: string,
    size: SizeSource,
  ): void {
    super.add(messageIndex, field, action, reason, size);
    this.recorded.fields.push(field);
    this.recorded.actions.push(action);
    this.recorded.reasons.push(reason);
    this.recorded.sizes.push(size);
  }

  /** Appends the decisions of `range` (recorded by this or an earlier request) at `messageIndex`, without recording them again. */
  replay(messageIndex: number, range: DecisionRange): void {
    const { recorded, start, end } = range;
    for (let position = start; position < end; position++) {
      super.add(
        messageIndex,
        recorded.fields[position] as string,
        recorded.actions[position] as CarrierDecision['action'],
        recorded.reasons[position] as string,
        recorded.sizes[position],
      );
    }
  }
}

const messageCache = new MessageWireCache<DecisionRange>();

/** The last context key, so equal keys of consecutive requests are one string (compared by identity). */
let lastContextKey = '';

/**
 * Everything the per-message lowering (`convertMessage`) reads from its context, as one string.
 * The chat lowering of a message depends on the message and this context only (never on its
 * position or its neighbours), so (stored message, this key) names its wire object.
 */
function chatContextKey(context: ChatReplayContext): string {
  const key = JSON.stringify([
    context.decision,
    context.carriers,
    context.rejected,
    context.issuer,
    context.reads,
    context.consumesThoughtSignature,
    context.profileNativeReasoningDetailsType ?? null,
    [...context.rejectedFingerprints],
  ]);
  if (key !== lastContextKey) lastContextKey = key;
  return lastContextKey;
}

/** What one request lowered, for the next request whose history starts with the same messages. */
interface LoweredPrefix {
  /** The context key it was lowered under. */
  readonly key: string;
  readonly history: readonly Message[];
  /** One wire object per message of `history`, before stand-ins. */
  readonly wires: readonly JsonObject[];
  /** The log's length once message `i` was lowered (its decisions end there). */
  readonly decisionEnds: readonly number[];
  readonly decisions: DecisionLog;
  /** The first message each carrier was sent on. */
  readonly firstSent: ReadonlyMap<Carrier, number>;
}

/** The last lowering of each history, keyed by its first stored message (a session's own object). */
const lastLowered = new WeakMap<Message, LoweredPrefix>();

/**
 * `buildChatReplay` (replay-chat-messages.ts) with each message's wire object and decisions
 * reused from the last request that lowered the same stored message under the same profile and
 * learned state: equal output, and the reused objects keep their serialized text
 * (shared/request-body.ts). A history that starts with the messages the last request of the same
 * history lowered (the same objects, in the same places, under the same context key) takes that
 * prefix's wire objects, decisions and carriers as they were, so a warm turn lowers its new
 * messages only: lowering never depends on a message's neighbours, and stand-ins are applied to
 * the whole result afterwards.
 */
export function buildCachedChatReplay(
  history: readonly Message[],
  profile: RouteProfile,
  learned: Pick<RouteLearned, 'rejectedCarriers'> & Partial<Pick<RouteLearned, 'rejectedThinkingFingerprints'>>,
  required: RequiredCarrier | null = null,
): ChatWireReplay {
  const context = chatReplayContext(profile, learned);
  const key = chatContextKey(context);
  const decisions = new RecordingDecisionLog();
  const first = history[0];
  const previous = first === undefined ? undefined : lastLowered.get(first);
  const reused = previous !== undefined && previous.key === key ? sharedPrefix(previous.history, history) : 0;
  const wires = new Array<JsonObject>(history.length);
  const decisionEnds = new Array<number>(history.length);
  const firstSent = new Map<Carrier, number>();
  if (previous !== undefined && reused > 0) {
    decisions.startWith(previous.decisions, previous.decisionEnds[reused - 1] as number);
    for (let index = 0; index < reused; index++) {
      wires[index] = previous.wires[index] as JsonObject;
      decisionEnds[index] = previous.decisionEnds[index] as number;
    }
    for (const [carrier, index] of previous.firstSent) if (index < reused) firstSent.set(carrier, index);
  }
  for (let index = reused; index < history.length; index++) {
    const message = history[index] as Message;
    const wire = lowerMessage(message, index, key, context, decisions);
    if (message.role === 'assistant') {
      for (const carrier of CARRIERS)
        if (wire[carrier] !== undefined && !firstSent.has(carrier)) firstSent.set(carrier, index);
    }
    wires[index] = wire;
    decisionEnds[index] = decisions.length;
  }
  if (first !== undefined) {
    lastLowered.set(first, { key, history: history.slice(), wires, decisionEnds, decisions, firstSent });
  }
  return finishChatHistory(history, wires.slice(), new Set(firstSent.keys()), decisions, {}, required);
}

/** One message's wire object, from the per-message cache or lowered now (and cached). */
function lowerMessage(
  message: Message,
  index: number,
  key: string,
  context: ChatReplayContext,
  decisions: RecordingDecisionLog,
): JsonObject {
  const cached = messageCache.get(message, key);
  if (cached !== undefined) {
    decisions.replay(index, cached.extra);
    return cached.wire;
  }
  const { recorded } = decisions;
  const start = recorded.fields.length;
  const wire = convertMessage(message, index, context, decisions);
  messageCache.set(message, key, wire, { recorded, start, end: recorded.fields.length });
  return wire;
}

/** How many messages at the start of `next` are the same objects as in `last`. */
function sharedPrefix(last: readonly Message[], next: readonly Message[]): number {
  const most = Math.min(last.length, next.length);
  let index = 0;
  while (index < most && last[index] === next[index]) index++;
  return index;
}
