import { UsageError } from '../core/errors.js';
import type { WireApi } from '../core/origin.js';
import type { Transport } from './shared/transport.js';

/**
 * Transports by wire API, each loaded with `import()` on first use: a command loads only the
 * transport of the route it runs (and that transport's SDK: the AWS SDK for Bedrock, the
 * Anthropic SigV4 signer), never the others. A wire API missing here is not built yet.
 */
const LOADERS: Partial<Record<WireApi, () => Promise<Transport>>> = {
  chat_completions: async () =>
    (await import('./chat-completions/chat-completions-transport.js')).chatCompletionsTransport,
  anthropic_messages: async () =>
    (await import('./anthropic-messages/anthropic-messages-transport.js')).anthropicMessagesTransport,
  bedrock_converse: async () =>
    (await import('./bedrock-converse/bedrock-converse-transport.js')).bedrockConverseTransport,
  gemini: async () => (await import('./gemini/gemini-transport.js')).geminiTransport,
  codex_responses: async () => (await import('./responses/responses-transport.js')).responsesTransport,
};

/** The transport for a wire API; a {@link UsageError} names the APIs available when it is missing. */
export async function loadTransport(api: WireApi): Promise<Transport> {
  const load = LOADERS[api];
  if (!load) {
    throw new UsageError(
      `the ${api} wire API is not available in this build (available: ${Object.keys(LOADERS).join(', ')})`,
    );
  }
  return load();
}
