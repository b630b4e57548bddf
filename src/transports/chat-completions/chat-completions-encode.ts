import { UsageError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { Route } from '../../core/route.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import { resolveProvider } from '../../providers/provider-registry.js';
import type { ChatReplayOptions, ChatReplayResult } from '../../replay/replay-chat-messages.js';
import { buildChatCompletionsMessages } from '../../replay/replay-chat-messages.js';
import { keepThinkingFlags, mergeRequestFlags } from '../../replay/replay-keep-thinking.js';
import { routeKeyString } from '../../replay/replay-route-key.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';

/**
 * Pure request lowering for every OpenAI-compatible route: the ONE code path used by the
 * transport and by `hermes replay preview --api chat_completions`, so what the preview prints is
 * byte for byte what is sent.
 *
 * Body key order is fixed: `model, messages, stream, stream_options, tools, <provider reasoning
 * flags merged with keep-thinking flags>, max_tokens`.
 */

/** The base URL actually used: the route's, else the provider default; a trailing `/` is dropped. */
export function effectiveBaseUrl(route: Route): string {
  const provider = resolveProvider(route.provider, route.baseUrl);
  const baseUrl = route.baseUrl !== undefined && route.baseUrl.trim() !== '' ? route.baseUrl.trim() : provider.baseUrl;
  if (baseUrl === undefined) {
    throw new UsageError(`provider "${route.provider}" has no default endpoint; pass --base-url`);
  }
  return baseUrl.replace(/\/+$/, '');
}

/** `{type: "function", function: {name, description, parameters}}` (OpenAI function-tool shape). */
export function chatCompletionsTools(tools: readonly ToolDefinition[]): JsonObject[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * Builds the exact chat-completions request without I/O. Replay decisions use the effective
 * base URL (the provider default when the route has none), so a Copilot record lifts on the
 * default `api.githubcopilot.com` too, and `routeKey` names the host actually contacted.
 */
export function prepareChatCompletions(request: TransportRequest): PreparedRequest {
  const { route } = request;
  const provider = resolveProvider(route.provider, route.baseUrl);
  const baseUrl = effectiveBaseUrl(route);
  const effectiveRoute: Route = { ...route, api: 'chat_completions', baseUrl };
  const replayOptions: ChatReplayOptions = {};
  if (request.rejectedCarriers) replayOptions.rejected = request.rejectedCarriers;
  if (request.echoOptIn !== undefined) replayOptions.echoOptIn = request.echoOptIn;
  if (request.routeOverrides) replayOptions.overrides = request.routeOverrides;
  if (provider.nativeReasoningDetailsType !== undefined) {
    replayOptions.profileNativeReasoningDetailsType = provider.nativeReasoningDetailsType;
  }
  const replay: ChatReplayResult = buildChatCompletionsMessages(request.history, effectiveRoute, replayOptions);
  const stream = request.stream ?? true;
  const body: JsonObject = { model: route.model, messages: replay.messages, stream };
  if (stream) body['stream_options'] = { include_usage: true };
  if (request.tools.length > 0) body['tools'] = chatCompletionsTools(request.tools);
  const flags = mergeRequestFlags(
    provider.reasoningRequest(route.model, request.reasoning),
    keepThinkingFlags(effectiveRoute, request.reasoning.enabled, request.routeOverrides),
  );
  for (const key of Object.keys(flags)) {
    if (!(key in body)) body[key] = flags[key];
  }
  if (request.maxTokens !== undefined) body['max_tokens'] = request.maxTokens;
  return {
    url: `${baseUrl}/chat/completions`,
    body,
    // Read through, so decisions are materialised only when someone explains or logs them.
    get decisions() {
      return replay.decisions;
    },
    decisionsFrom: (messageIndex) => replay.decisionsFrom(messageIndex),
    carriersSent: replay.carriersSent,
    routeKey: routeKeyString(replay.routeKey),
  };
}
