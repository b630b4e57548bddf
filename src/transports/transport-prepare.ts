import { prepareAnthropicMessages } from './anthropic-messages/anthropic-messages-encode.js';
import { prepareBedrockConverse } from './bedrock-converse/bedrock-converse-encode.js';
import { bedrockRegionOf } from '../replay/replay-host.js';
import { prepareChatCompletions } from './chat-completions/chat-completions-encode.js';
import { prepareGemini } from './gemini/gemini-encode.js';
import { prepareResponses } from './responses/responses-encode.js';
import type { PreparedRequest, TransportRequest } from './shared/transport.js';

/**
 * The request a transport would send, built without I/O and without loading any transport's
 * network code (so `hermes-ts/replay` stays free of Node built-ins; docs/library.md). Each wire
 * API's branch calls the same encoder with the same environment-derived defaults as that
 * transport's own `prepare`; test/transports/transport-prepare.test.ts holds the two equal.
 */

/** Environment variables the encoders read for defaults (a plain record: `process.env` in Node). */
export type PrepareEnvironment = Readonly<Record<string, string | undefined>>;

/** Region: from a `bedrock-runtime.<region>.amazonaws.com` base URL, else AWS_REGION / AWS_DEFAULT_REGION, else us-east-1. */
export function bedrockRegionFor(baseUrl: string | undefined, environment: PrepareEnvironment): string {
  return bedrockRegionOf(baseUrl) ?? environment['AWS_REGION'] ?? environment['AWS_DEFAULT_REGION'] ?? 'us-east-1';
}

/** Builds the exact request `getTransport(request.route.api).prepare(request)` builds (transport-table.ts). */
export function prepareRequest(request: TransportRequest, environment: PrepareEnvironment = {}): PreparedRequest {
  switch (request.route.api) {
    case 'chat_completions':
      return prepareChatCompletions(request);
    case 'anthropic_messages':
      return prepareAnthropicMessages(request, { nousInferenceBaseUrl: environment['NOUS_INFERENCE_BASE_URL'] });
    case 'bedrock_converse':
      return prepareBedrockConverse(request, {
        defaultRegion: bedrockRegionFor(request.route.baseUrl, environment),
      });
    case 'gemini':
      return prepareGemini(request, {
        vertexProject: environment['GOOGLE_CLOUD_PROJECT'],
        vertexLocation: environment['GOOGLE_CLOUD_LOCATION'],
      });
    case 'codex_responses':
      return prepareResponses(request);
  }
}
