import { UsageError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { ToolDefinition } from '../../core/tool-definition.js';
import { resolveProvider } from '../../providers/provider-registry.js';
import type { ChatReplayResult } from '../../replay/replay-chat-messages.js';
import { buildChatReplay } from '../../replay/replay-chat-messages.js';
import { mergeRequestFlags } from '../../replay/replay-keep-thinking.js';
import type { PreparedRequest, TransportRequest } from '../shared/transport.js';
import { requestLearned, requestProfile } from '../transport-route-profile.js';

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
  const profile = requestProfile(request);
  const baseUrl = profile.baseUrl;
  if (baseUrl === undefined) {
    throw new UsageError(`provider "${route.provider}" has no default endpoint; pass --base-url`);
  }
  const replay: ChatReplayResult = buildChatReplay(request.history, profile, requestLearned(request));
  const stream = request.stream ?? true;
  const body: JsonObject = { model: route.model, messages: replay.messages, stream };
  if (stream) body['stream_options'] = { include_usage: true };
  if (request.tools.length > 0) body['tools'] = chatCompletionsTools(request.tools);
  const flags = mergeRequestFlags(
    provider.reasoningRequest(route.model, request.reasoning),
    request.reasoning.enabled ? profile.chat.keepThinking : {},
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
    routeKey: profile.routeKey,
  };
}
