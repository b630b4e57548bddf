/**
 * The Anthropic Messages transport: the only I/O of this wire API. Endpoint and framing per
 * platform (direct / compatible / Foundry / Vertex: JSON + SSE; Bedrock InvokeModel: SigV4 +
 * AWS event stream), retries before the first event, typed errors, abort.
 */
import { AbortError, HermesError, StreamError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import { openTransportStream } from '../shared/transport-redact.js';
import { isJsonObject } from '../../core/json.js';
import type { StreamEvent } from '../../core/stream-event.js';
import { networkError, originStampFor, readBodyText } from '../shared/transport-http.js';
import { runWithRetries, type Sleep } from '../shared/transport-retry.js';
import { readServerSentEventBatches } from '../shared/transport-sse-reader.js';
import { serializeRequestBody } from '../shared/request-body.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import { type AnthropicAuthOptions, anthropicRequestHeaders } from './anthropic-messages-auth.js';
import { AnthropicStreamDecoder, decodeAnthropicResponse } from './anthropic-messages-decode.js';
import {
  type AnthropicPrepareOptions,
  anthropicBetas,
  prepareAnthropicMessages,
  resolveAnthropicEndpoint,
} from './anthropic-messages-encode.js';
import { anthropicApiError, anthropicErrorMessage } from './anthropic-messages-errors.js';
import { BedrockEventStreamSplitter } from './anthropic-messages-eventstream.js';
import { requestFetch } from '../shared/transport-deadlines.js';

/** Factory options: injected I/O for tests plus credentials. */
export interface AnthropicTransportOptions extends AnthropicAuthOptions {
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

const DEFAULT_MAX_ATTEMPTS = 3;

/** Creates the transport; every option defaults to the real thing. */
export function createAnthropicMessagesTransport(options: AnthropicTransportOptions = {}): AnthropicMessagesTransport {
  const environment = (): Record<string, string | undefined> => options.environment ?? process.env;
  const prepareWith = (request: TransportRequest, prepareOptions: AnthropicPrepareOptions): PreparedRequest =>
    prepareAnthropicMessages(request, {
      nousInferenceBaseUrl: environment()['NOUS_INFERENCE_BASE_URL'],
      ...prepareOptions,
    });

  async function run(stream: EventStream, request: TransportRequest, prepared: PreparedRequest): Promise<void> {
    const fetchImplementation = requestFetch(request, options.fetch);
    const { route, signal } = request;
    const streaming = request.stream ?? true;
    const endpoint = resolveAnthropicEndpoint(request, {
      nousInferenceBaseUrl: environment()['NOUS_INFERENCE_BASE_URL'],
    });
    const bodyText = serializeRequestBody(prepared);
    const provider = route.provider;

    const response = await runWithRetries(
      {
        maxAttempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        signal,
        ...(options.sleep ? { sleep: options.sleep } : {}),
        ...(options.random ? { random: options.random } : {}),
        onRetry: (notice) => stream.push({ type: 'retry', ...notice }),
      },
      async () => {
        const headers = await anthropicRequestHeaders(
          {
            platform: endpoint.platform,
            url: prepared.url,
            body: bodyText,
            stream: streaming,
            betas: anthropicBetas(request),
            apiKey: request.apiKey,
          },
          options,
        );
        let answer: Response;
        try {
          answer = await fetchImplementation(prepared.url, {
            method: 'POST',
            headers,
            body: bodyText,
            signal: signal ?? null,
          });
        } catch (error) {
          throw networkError(error, {
            signal,
            retryable: true,
            what: `could not reach ${provider} at ${prepared.url}`,
          });
        }
        if (!answer.ok) {
          const text = await readBodyText(answer);
          throw anthropicApiError({
            status: answer.status,
            body: text,
            headers: answer.headers,
            provider,
            apiKey: request.apiKey,
          });
        }
        return answer;
      },
    );

    const origin = originStampFor(route);
    const push = (events: StreamEvent[]) => {
      for (const event of events) stream.push(event);
    };
    try {
      if (!streaming) {
        const text = await response.text();
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
        stream.push({ type: 'start' });
        if (decoded.message.reasoning) stream.push({ type: 'reasoning-delta', text: decoded.message.reasoning });
        if (decoded.message.content) stream.push({ type: 'text-delta', text: decoded.message.content });
        if (decoded.usage) stream.push({ type: 'usage', usage: decoded.usage });
        stream.end({ type: 'finish', ...decoded });
        return;
      }
      if (!response.body) throw new StreamError(`${provider} answered an empty stream`, { retryable: true });
      const decoder = new AnthropicStreamDecoder(origin);
      if (endpoint.platform === 'bedrock') {
        await readBedrockStream(response.body, decoder, push);
      } else {
        read: for await (const batch of readServerSentEventBatches(response.body)) {
          for (const event of batch) {
            push(decoder.feedText(event.data));
            if (decoder.done) break read;
          }
        }
      }
      push(decoder.end());
    } catch (error) {
      stream.fail(networkError(error, { signal, retryable: false, what: `the ${provider} stream failed` }));
    }
  }

  return {
    api: 'anthropic_messages',
    prepare: (request) => prepareWith(request, {}),
    prepareWith,
    send(request, prepared) {
      const stream = openTransportStream(request);
      let ready: PreparedRequest;
      try {
        ready = prepared ?? prepareWith(request, {});
      } catch (error) {
        stream.fail(error);
        return stream;
      }
      run(stream, request, ready).catch((error: unknown) => {
        if (request.signal?.aborted && !(error instanceof AbortError)) stream.fail(new AbortError('request aborted'));
        else
          stream.fail(
            error instanceof HermesError
              ? error
              : networkError(error, { signal: request.signal, retryable: false, what: 'request failed' }),
          );
      });
      return stream;
    },
  };
}

async function readBedrockStream(
  body: ReadableStream<Uint8Array>,
  decoder: AnthropicStreamDecoder,
  push: (events: StreamEvent[]) => void,
): Promise<void> {
  const splitter = new BedrockEventStreamSplitter();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const item of splitter.push(value)) {
        if (item.kind === 'exception') {
          push([
            {
              type: 'error',
              error: new StreamError(`Bedrock ${item.exceptionType}: ${item.message}`, { body: item.body }),
            },
          ]);
          return;
        }
        push(decoder.feedText(item.json));
        if (decoder.done) return;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The transport with real I/O, for the registry. */
export const anthropicMessagesTransport: AnthropicMessagesTransport = createAnthropicMessagesTransport();
