import { RESPONSES_EFFORT } from '../../providers/provider-effort.js';
import { nativeCarriersSent } from '../../replay/replay-native-drops.js';
import type { JsonObject } from '../../core/json.js';
import type { AssistantMessage, Message, UserMessage } from '../../core/message.js';
import type { ReasoningOptions } from '../../core/reasoning-options.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import { planResponsesReplay } from '../../replay/responses-replay-policy.js';
import type { ResponsesMessagePlan } from '../../replay/responses-replay-policy.js';
import { MessageWireCache } from '../shared/request-message-cache.js';
import { ToolWireCache } from '../shared/request-tool-cache.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { requestLearned, requestProfile } from '../transport-route-profile.js';
import { DEFAULT_COMPACT_THRESHOLD, ENCRYPTED_REASONING_INCLUDE } from './responses-wire.js';
import type {
  ResponsesAssistantMessageInputItem,
  ResponsesFunctionTool,
  ResponsesInputItem,
  ResponsesReasoningParameter,
  ResponsesRequestBody,
} from './responses-wire.js';
import { joinBaseUrl } from '../shared/transport-url.js';

/**
 * Pure request lowering for the Responses API: canonical history → exact request body
 * (SPEC §12, WIRE.md §5.1 and §5.4). Stateless: `store: false` with every reasoning item
 * carried back as `encrypted_content`; eligible routes add native compaction (SPEC §24.7).
 */

// ---------------------------------------------------------------------------------------------
// Body
// ---------------------------------------------------------------------------------------------

/** `reasoning: {effort, summary}` with the effort table's word (src/providers/provider-effort.ts, WIRE.md §5.1). */
function reasoningParameter(reasoning: ReasoningOptions): ResponsesReasoningParameter | undefined {
  if (!reasoning.enabled) return undefined;
  if (reasoning.effort === undefined) return { summary: 'auto' };
  return { effort: String(RESPONSES_EFFORT.values[reasoning.effort]), summary: 'auto' };
}

function toolsParameter(tools: readonly ToolDefinition[]): ResponsesFunctionTool[] {
  return responsesTools.wire(tools);
}

const responsesTools = new ToolWireCache<ResponsesFunctionTool>((tool) => ({
  type: 'function',
  name: tool.name,
  description: tool.description,
  parameters: structuredClone(tool.parameters),
}));

function userContent(message: UserMessage): string | JsonObject[] {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) =>
    part.type === 'text' && typeof part.text === 'string'
      ? { type: 'input_text', text: part.text }
      : structuredClone(part as JsonObject),
  );
}

function assistantText(message: AssistantMessage): string {
  return message.api_content ?? message.content ?? '';
}

function messageItem(text: string, plan: ResponsesMessagePlan | undefined): ResponsesAssistantMessageInputItem {
  const item: ResponsesAssistantMessageInputItem = {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'output_text', text }],
  };
  if (plan?.messageItemId !== undefined) item.id = plan.messageItemId;
  if (plan?.messageItemPhase !== undefined) item.phase = plan.messageItemPhase;
  return item;
}

/**
 * One assistant turn as input items: compaction checkpoints, then each reasoning item right
 * before the item it preceded (its function call, else the message), the message, the calls.
 * A turn whose only output was reasoning gets an empty assistant message after it, because
 * OpenAI rejects "Item 'rs_…' of type 'reasoning' was provided without its required following
 * item." (fixture openai-responses/pydantic-thinking-with-modified-history).
 */
function assistantItems(message: AssistantMessage, plan: ResponsesMessagePlan | undefined): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const compaction of plan?.compactionItems ?? []) {
    items.push(compaction as ResponsesInputItem);
  }
  const calls = message.tool_calls ?? [];
  const callIds = calls.map((call) => call.call_id ?? call.id);
  const reasoning = plan?.reasoningItems ?? [];
  const beforeCall = new Map<string, JsonObject[]>();
  const leading: JsonObject[] = [];
  for (const planned of reasoning) {
    const target = planned.precedesCallId;
    if (target !== undefined && callIds.includes(target)) {
      beforeCall.set(target, [...(beforeCall.get(target) ?? []), planned.item]);
    } else leading.push(planned.item);
  }
  const text = assistantText(message);
  const hasMessage = text !== '' || (calls.length === 0 && reasoning.length > 0);
  items.push(...(leading as ResponsesInputItem[]));
  if (hasMessage) items.push(messageItem(text, plan));
  calls.forEach((call, index) => {
    const callId = callIds[index] ?? call.id;
    items.push(...((beforeCall.get(callId) ?? []) as ResponsesInputItem[]));
    items.push({
      type: 'function_call',
      call_id: callId,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  });
  return items;
}

/** How many system messages open the history: they travel as `instructions`, not input items. */
function leadingSystemCount(history: readonly Message[]): number {
  let count = 0;
  while (history[count]?.role === 'system') count += 1;
  return count;
}

/**
 * Input items of system, user and tool messages, reused across requests: each depends on its
 * stored message only (never on the route, the learned state or the plan), so the stored message
 * names it and its serialized text is reused (shared/request-body.ts). Assistant items depend on
 * the whole-history plan (checkpoint, duplicate ids, kill switch) and are built per request.
 */
const plainItemCache = new MessageWireCache<undefined>();
const PLAIN_ITEM_KEY = 'responses-input-item';

function plainItem(message: Message, build: () => ResponsesInputItem): ResponsesInputItem {
  const cached = plainItemCache.get(message, PLAIN_ITEM_KEY);
  if (cached !== undefined) return cached.wire as ResponsesInputItem;
  const item = build();
  plainItemCache.set(message, PLAIN_ITEM_KEY, item as JsonObject, undefined);
  return item;
}

/**
 * The input items. With a replayed compaction checkpoint (SPEC §24.7) the input starts at the
 * message carrying it: the checkpoint stands for everything before it.
 */
function inputItems(
  history: readonly Message[],
  plans: Map<number, ResponsesMessagePlan>,
  checkpointIndex: number | undefined,
): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  const skip = Math.max(leadingSystemCount(history), checkpointIndex ?? 0);
  history.forEach((message, index) => {
    if (index < skip) return;
    switch (message.role) {
      case 'system':
        items.push(plainItem(message, () => ({ role: 'system', content: message.content })));
        break;
      case 'user':
        items.push(plainItem(message, () => ({ role: 'user', content: userContent(message) })));
        break;
      case 'tool':
        items.push(
          plainItem(message, () => ({
            type: 'function_call_output',
            call_id: message.tool_call_id,
            output: message.content,
          })),
        );
        break;
      case 'assistant':
        items.push(...assistantItems(message, plans.get(index)));
        break;
    }
  });
  return items;
}

/**
 * Builds the exact Responses request for `request` (SPEC §12). Pure: the history is read, never
 * written. Returns the per-item decisions; `carriersSent` is empty (no chat-completions carriers).
 */
export function prepareResponses(request: TransportRequest): PreparedRequest {
  const { route } = request;
  const profile = requestProfile(request);
  const baseUrl = profile.baseUrl;
  // SPEC §24.7: an eligible route compacts natively unless a 4xx turned it off (null).
  const nativeCompaction = profile.responses.nativeCompaction && request.compactThreshold !== null;
  const plan = planResponsesReplay(request.history, {
    issuerKind: profile.responses.issuerKind,
    routeHost: profile.origin.host,
    replayEncryptedReasoning: requestLearned(request).replayEncryptedReasoning,
    nativeCompaction,
  });
  const body: ResponsesRequestBody = {
    model: route.model,
    input: inputItems(request.history, plan.messages, plan.checkpointIndex),
    store: false,
    stream: request.stream ?? true,
  };
  // The system prompt's native place is `instructions` (the Codex backend requires it there);
  // a system message later in the history stays an input item where it was.
  const system = request.history.slice(0, leadingSystemCount(request.history)) as { content: string }[];
  if (system.length) body.instructions = system.map((message) => message.content).join('\n\n');
  if (request.tools.length > 0) body.tools = toolsParameter(request.tools);
  const reasoning = reasoningParameter(request.reasoning);
  if (reasoning !== undefined) {
    body.reasoning = reasoning;
    // Only with reasoning on: non-reasoning models refuse the include.
    body.include = [ENCRYPTED_REASONING_INCLUDE];
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (nativeCompaction) {
    const threshold = request.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD;
    body.context_management = [{ type: 'compaction', compact_threshold: threshold }];
  }
  return {
    url: joinBaseUrl(baseUrl ?? '', '/responses'),
    body: orderedBody(body),
    decisions: plan.decisions,
    carriersSent: [],
    nativeCarriersSent: nativeCarriersSent(plan.decisions),
    routeKey: profile.routeKey,
  };
}

/** Stable key order so recorded bodies diff cleanly. */
function orderedBody(body: ResponsesRequestBody): JsonObject {
  const order = [
    'model',
    'instructions',
    'input',
    'tools',
    'reasoning',
    'include',
    'store',
    'stream',
    'max_output_tokens',
    'context_management',
  ];
  const ordered: JsonObject = {};
  for (const key of order) if (body[key] !== undefined) ordered[key] = body[key];
  return ordered;
}
