import { ANTHROPIC_BUDGET_EFFORT, GPT_OSS_EFFORT, QWEN_BEDROCK_EFFORT } from '../../providers/provider-effort.js';
import type { JsonObject } from '../../core/json.js';
import type { Message } from '../../core/message.js';
import type { ReasoningEffort, ReasoningOptions } from '../../core/reasoning-options.js';
import type { BedrockModelPolicy } from '../../replay/bedrock-converse-policy.js';
import type { BedrockReplayTarget } from '../../replay/bedrock-converse-replay.js';
import { replayBedrockAssistantTurn } from '../../replay/bedrock-converse-replay.js';
import type { CarrierDecision } from '../../replay/replay-types.js';
import { hostnameOf } from '../../replay/replay-host.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { requestProfile } from '../transport-route-profile.js';
import type { BedrockConverseRequestBody, BedrockMessage, BedrockToolSpec } from './bedrock-converse-wire.js';
import { bedrockRuntimeBaseUrl } from './bedrock-converse-wire.js';
import { joinBaseUrl } from '../shared/transport-url.js';

/**
 * Pure request lowering for Bedrock Converse (SPEC §10, WIRE.md §3.1, §3.4): canonical history →
 * the exact Converse REST JSON body, with the per-model replay policy applied to every assistant
 * turn. The body's key order matches the SDK serialiser, so `replay preview --api
 * bedrock_converse` shows the bytes that go on the wire.
 */

/** Options that would otherwise need I/O (the transport reads them from the environment). */
export interface BedrockPrepareOptions {
  /** Region used when the route has no base URL (default `us-east-1`). */
  defaultRegion?: string;
}

/** Smallest `budget_tokens` Claude accepts (WIRE.md §2.1: N ≥ 1024). */
export const BEDROCK_MINIMUM_THINKING_BUDGET = 1024;

/** Builds the exact Converse request for `request` (streaming path when `request.stream !== false`). */
export function prepareBedrockConverse(
  request: TransportRequest,
  options: BedrockPrepareOptions = {},
): PreparedRequest {
  const { route } = request;
  const profile = requestProfile(request);
  const policy = profile.bedrock;
  const target: BedrockReplayTarget = {
    model: route.model,
    host: hostnameOf(route.baseUrl),
    reasoningEnabled: request.reasoning.enabled,
  };
  const decisions: CarrierDecision[] = [];
  const messages: BedrockMessage[] = [];
  const system: { text: string }[] = [];

  const append = (role: BedrockMessage['role'], content: JsonObject[]) => {
    if (content.length === 0) return;
    const previous = messages[messages.length - 1];
    // Converse requires alternating roles: consecutive tool results and user text share one turn.
    if (previous !== undefined && previous.role === role) previous.content.push(...content);
    else messages.push({ role, content });
  };

  request.history.forEach((message, index) => {
    if (message.role === 'system') {
      if (message.content !== '') system.push({ text: message.content });
    } else if (message.role === 'assistant') {
      const turn = replayBedrockAssistantTurn(message, index, target, policy);
      decisions.push(...turn.decisions);
      append('assistant', turn.content);
    } else {
      append('user', userContent(message));
    }
  });

  const body: BedrockConverseRequestBody = { messages };
  if (system.length > 0) body.system = system;
  if (request.maxTokens !== undefined) body.inferenceConfig = { maxTokens: request.maxTokens };
  if (request.tools.length > 0) body.toolConfig = { tools: request.tools.map(toolSpec) };
  const additional = reasoningRequestFields(policy, request.reasoning, request.maxTokens);
  if (additional !== undefined) body.additionalModelRequestFields = additional;

  const baseUrl = route.baseUrl ?? bedrockRuntimeBaseUrl(options.defaultRegion ?? 'us-east-1');
  const operation = request.stream === false ? 'converse' : 'converse-stream';
  return {
    url: joinBaseUrl(baseUrl, `/model/${encodeURIComponent(route.model)}/${operation}`),
    body: body as unknown as JsonObject,
    decisions,
    // Converse has none of the chat-completions carriers (SPEC §1); reasoning travels in blocks.
    carriersSent: [],
    routeKey: profile.routeKey,
  };
}

function userContent(message: Exclude<Message, { role: 'system' | 'assistant' }>): JsonObject[] {
  if (message.role === 'tool') {
    return [
      { toolResult: { toolUseId: message.tool_call_id, content: [{ text: message.content }], status: 'success' } },
    ];
  }
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ text: message.content }];
  return message.content.map((part) =>
    part.type === 'text' && typeof part.text === 'string' ? { text: part.text } : part,
  );
}

function toolSpec(tool: TransportRequest['tools'][number]): BedrockToolSpec {
  const spec: BedrockToolSpec['toolSpec'] = { name: tool.name, inputSchema: { json: tool.parameters } };
  if (tool.description !== '') spec.description = tool.description;
  return { toolSpec: spec };
}

/**
 * `additionalModelRequestFields` for the model's reasoning request style (WIRE.md §3.1). Nothing
 * when reasoning is off, or for models that always reason (DeepSeek R1, Kimi K2 Thinking).
 */
export function reasoningRequestFields(
  policy: BedrockModelPolicy,
  reasoning: ReasoningOptions,
  maxTokens: number | undefined,
): JsonObject | undefined {
  if (!reasoning.enabled) return undefined;
  const request = policy.request;
  if (reasoning.effort === 'none') return undefined;
  if (request.style === 'anthropic-thinking') {
    if (request.mode === 'adaptive') return { thinking: { type: 'adaptive' } };
    const wanted = reasoning.budgetTokens ?? effortBudget(reasoning.effort);
    return { thinking: { type: 'enabled', budget_tokens: thinkingBudget(wanted, maxTokens) } };
  }
  if (request.style === 'reasoning-effort')
    return { reasoning_effort: String(GPT_OSS_EFFORT.values[reasoning.effort ?? 'medium']) };
  if (request.style === 'reasoning-config')
    return { reasoning_config: String(QWEN_BEDROCK_EFFORT.values[reasoning.effort ?? 'high']) };
  return undefined;
}

/** The effort table's Claude budget for a level (src/providers/provider-effort.ts); no level: the floor. */
function effortBudget(effort: ReasoningEffort | undefined): number | undefined {
  return effort === undefined ? undefined : Number(ANTHROPIC_BUDGET_EFFORT.values[effort]);
}

/** Claude wants 1024 ≤ budget_tokens < max_tokens (WIRE.md §2.1). */
function thinkingBudget(requested: number | undefined, maxTokens: number | undefined): number {
  let budget = Math.max(BEDROCK_MINIMUM_THINKING_BUDGET, requested ?? BEDROCK_MINIMUM_THINKING_BUDGET);
  if (maxTokens !== undefined && budget >= maxTokens) budget = Math.max(BEDROCK_MINIMUM_THINKING_BUDGET, maxTokens - 1);
  return budget;
}
