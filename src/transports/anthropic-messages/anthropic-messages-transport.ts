/**
 * The Anthropic Messages transport: the only I/O of this wire API. Endpoint and framing per
 * platform (direct / compatible / Foundry / Vertex: JSON + SSE; Bedrock InvokeModel: SigV4 +
 * AWS event stream), retries before the first event, typed errors, abort.
 */
import { StreamError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { OriginStamp } from '../../core/origin.js';
import type { StreamEvent } from '../../core/stream-event.js';
import {
  isSuccess,
  networkError,
  openProviderRequest,
  originStampFor,
  readAnswerText,
  readBodyText,
} from '../shared/transport-http.js';
import type { Sleep } from '../shared/transport-retry.js';
import { sendTransportRequest, type TransportAnswer } from '../shared/transport-send.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import { type AnthropicAuthOptions, anthropicRequestHeaders } from './anthropic-messages-auth.js';
import { AnthropicStreamDecoder, decodeAnthropicResponse } from './anthropic-messages-decode.js';
import {
  type AnthropicPrepareOptions,
  anthropicBetas,
  anthropicBodyBetas,
  prepareAnthropicMessages,
  resolveAnthropicEndpoint,
} from './anthropic-messages-encode.js';
import { anthropicApiError, anthropicErrorMessage } from './anthropic-messages-errors.js';
import { BedrockEventStreamFramer } from './anthropic-messages-eventstream.js';
import { serializeRequestBody } from '../shared/request-body.js';

/** Factory options: injected I/O for tests plus credentials. */
export interface AnthropicTransportOptions extends AnthropicAuthOptions {
  /** A `fetch` for requests that bring none of their own (default: the pooled client, TransportRequest.fetch). */
  fetch?: typeof fetch;
  sleep?: Sleep;
  /** Random source for backoff jitter (tests pass `() => 0`). */
  random?: () => number;
}

/** The Anthropic transport, with the SPEC §9.4 prepare variant the runtime's retry path uses. */
export interface AnthropicMessagesTransport extends Transport {
  /** {@link prepareAnthropicMessages} with this transport's environment (e.g. `stripAllThinking` for one retry). */
  prepareWith(request: TransportRequest, options: AnthropicPrepareOptions): PreparedRequest;
}

/** Creates the transport; every option defaults to the real thing. */
export function createAnthropicMessagesTransport(options: AnthropicTransportOptions = {}): AnthropicMessagesTransport {
  const environment = (): Record<string, string | undefined> => options.environment ?? process.env;
  const prepareWith = (request: TransportRequest, prepareOptions: AnthropicPrepareOptions): PreparedRequest =>
    prepareAnthropicMessages(request, {
      nousInferenceBaseUrl: environment()['NOUS_INFERENCE_BASE_URL'],
      ...prepareOptions,
    });

  async function open(request: TransportRequest, prepared: PreparedRequest): Promise<TransportAnswer> {
    const { route, signal } = request;
    const streaming = request.stream ?? true;
    const endpoint = resolveAnthropicEndpoint(request, {
      nousInferenceBaseUrl: environment()['NOUS_INFERENCE_BASE_URL'],
    });
    const bodyText = serializeRequestBody(prepared);
    const provider = route.provider;
    const headers = await anthropicRequestHeaders(
      {
        platform: endpoint.platform,
        url: prepared.url,
        body: bodyText,
        stream: streaming,
        betas: [...anthropicBetas(request), ...anthropicBodyBetas(prepared.body)],
        apiKey: request.apiKey,
      },
      options,
    );
    const answer = await openProviderRequest(
      request,
      { url: prepared.url, headers, body: bodyText },
      { unreachable: `could not reach ${provider} at ${prepared.url}`, fetch: options.fetch },
    );
    if (!isSuccess(answer)) {
      const text = await readBodyText(answer);
      throw anthropicApiError({
        status: answer.status,
        body: text,
        headers: answer.headers,
        provider,
        apiKey: request.apiKey,
      });
    }
    const origin = originStampFor(route);
    if (streaming) {
      const decoder = new AnthropicStreamDecoder(origin);
      if (endpoint.platform !== 'bedrock') return { kind: 'bytes', body: answer.body, decoder };
      return { kind: 'bytes', body: answer.body, decoder, frame: (onJson) => new BedrockEventStreamFramer(onJson) };
    }
    let text: string;
    try {
      text = await readAnswerText(answer);
    } catch (error) {
      throw networkError(error, { signal, retryable: true, what: `${provider} dropped the connection mid-response` });
    }
    return { kind: 'events', events: wholeAnswerEvents(text, provider, origin) };
  }

  return {
    api: 'anthropic_messages',
    prepare: (request) => prepareWith(request, {}),
    prepareWith,
    send(request, prepared) {
      return sendTransportRequest(request, options, {
        prepare: () => prepared ?? prepareWith(request, {}),
        open: (ready) => open(request, ready),
        readError: (error, afterEvents) =>
          networkError(error, {
            signal: request.signal,
            retryable: !afterEvents,
            what: `the ${request.route.provider} stream failed`,
          }),
      });
    },
  };
}

/** The events of a non-streaming answer, so both modes look alike to the caller. */
function wholeAnswerEvents(text: string, provider: string, origin: OriginStamp): StreamEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StreamError(`${provider} answered a body that is not JSON`, { body: text.slice(0, 500) });
  }
  if (!isJsonObject(parsed)) throw new StreamError(`${provider} answered a body that is not a JSON object`);
  if (parsed['type'] === 'error') {
    // An error envelope answered with 200 (proxies do this): a failure, never an empty answer.
    throw new StreamError(`${provider} answered 200 with an error: ${anthropicErrorMessage(text) ?? text}`, {
      body: text,
    });
  }
  const decoded = decodeAnthropicResponse(parsed, origin);
  const events: StreamEvent[] = [{ type: 'start' }];
  if (decoded.message.reasoning) events.push({ type: 'reasoning-delta', text: decoded.message.reasoning });
  if (decoded.message.content) events.push({ type: 'text-delta', text: decoded.message.content });
  if (decoded.usage) events.push({ type: 'usage', usage: decoded.usage });
  events.push({ type: 'finish', ...decoded });
  return events;
}

/** The transport with real I/O, for the registry. */
export const anthropicMessagesTransport: AnthropicMessagesTransport = createAnthropicMessagesTransport();
