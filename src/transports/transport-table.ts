import { UsageError } from '../core/errors.js';
import type { WireApi } from '../core/origin.js';
import { anthropicMessagesTransport } from './anthropic-messages/anthropic-messages-transport.js';
import { bedrockConverseTransport } from './bedrock-converse/bedrock-converse-transport.js';
import { chatCompletionsTransport } from './chat-completions/chat-completions-transport.js';
import { geminiTransport } from './gemini/gemini-transport.js';
import { responsesTransport } from './responses/responses-transport.js';
import type { Transport } from './shared/transport.js';

/**
 * Every transport, loaded at once, for library users who want a transport synchronously
 * (docs/library.md). The CLI and the runtime use `loadTransport` (transport-registry.ts), which
 * loads only the wire family a route uses.
 */
const TRANSPORTS: Partial<Record<WireApi, Transport>> = {
  chat_completions: chatCompletionsTransport,
  anthropic_messages: anthropicMessagesTransport,
  bedrock_converse: bedrockConverseTransport,
  gemini: geminiTransport,
  codex_responses: responsesTransport,
};

/** The transport for a wire API; a {@link UsageError} names the APIs available when it is missing. */
export function getTransport(api: WireApi): Transport {
  const transport = TRANSPORTS[api];
  if (!transport) {
    throw new UsageError(
      `the ${api} wire API is not available in this build (available: ${Object.keys(TRANSPORTS).join(', ')})`,
    );
  }
  return transport;
}
