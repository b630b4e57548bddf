import { StreamError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import {
  isEventStreamAnswer,
  isSuccess,
  jsonRequestHeaders,
  networkError,
  openProviderRequest,
  originStampFor,
  readAnswerText,
  readBodyText,
} from '../shared/transport-http.js';
import type { BackoffOptions, Sleep } from '../shared/transport-retry.js';
import { sendTransportRequest, type TransportAnswer } from '../shared/transport-send.js';
import { requestProfile } from '../transport-route-profile.js';
import { createChatCompletionsDecoder, decodeChatCompletionsResponse } from './chat-completions-decode.js';
import { prepareChatCompletions } from './chat-completions-encode.js';
import { apiErrorFromResponse } from './chat-completions-errors.js';
import { serializeRequestBodyChunks } from '../shared/request-body.js';

/**
 * The chat-completions transport: the only I/O of this wire API. It sends the prepared body
 * exactly as `prepareChatCompletions` built it (never edits it), retries 429 / 5xx / connection
 * failures that happen before the first event, and decodes SSE or JSON answers into the one
 * stream-event union. Failures end the stream with a typed `error` event; nothing throws.
 */

/** Injection points (tests, and the runtime's must-echo resolver). */
export interface ChatCompletionsTransportOptions {
  /** A `fetch` for requests that bring none of their own (default: the pooled client, TransportRequest.fetch). */
  fetch?: typeof globalThis.fetch;
  sleep?: Sleep;
  /** Random source for backoff jitter. */
  random?: () => number;
  backoff?: BackoffOptions;
  /**
   * Whether the request's route is in the must-echo tier (SPEC §4), which changes how a
   * tool-call turn without raw `reasoning_content` is stored (SPEC §2.1 rule 2). Default: the
   * replay engine's tier table, honouring the request's user route rows.
   */
  isMustEcho?: (request: TransportRequest) => boolean;
}

/** Creates a chat-completions transport with injected dependencies. */
export function createChatCompletionsTransport(options: ChatCompletionsTransportOptions = {}): Transport {
  const mustEcho =
    options.isMustEcho ?? ((request: TransportRequest) => requestProfile(request).mustEchoFamily !== null);

  async function open(request: TransportRequest, prepared: PreparedRequest, attempt: number): Promise<TransportAnswer> {
    const provider = request.route.provider;
    const streaming = prepared.body['stream'] === true;
    const answer = await openProviderRequest(
      request,
      {
        url: prepared.url,
        headers: jsonRequestHeaders({ apiKey: request.apiKey, stream: streaming }),
        body: serializeRequestBodyChunks(prepared),
      },
      { unreachable: `could not reach ${provider} at ${prepared.url}`, fetch: options.fetch },
    );
    if (!isSuccess(answer)) {
      const bodyText = await readBodyText(answer);
      throw apiErrorFromResponse({
        status: answer.status,
        headers: answer.headers,
        bodyText,
        provider,
        apiKey: request.apiKey,
        attempts: attempt,
      });
    }
    const decoderOptions = { mustEcho: mustEcho(request), provider };
    if (isEventStreamAnswer(answer)) {
      return { kind: 'bytes', body: answer.body, decoder: createChatCompletionsDecoder(decoderOptions) };
    }
    let bodyText: string;
    try {
      bodyText = await readAnswerText(answer);
    } catch (error) {
      throw networkError(error, {
        signal: request.signal,
        retryable: true,
        what: `${provider} dropped the connection mid-response`,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(bodyText);
    } catch {
      // Typically a web page or proxy answering 200 at a base URL that is not the API root.
      const contentType = answer.headers.get('content-type') ?? 'no content-type';
      throw new StreamError(
        `${provider} answered with a body that is not JSON (${contentType}) at ${answer.url || 'the base URL'}; ` +
          'check that the base URL is the API root (for OpenAI-compatible servers it usually ends in /v1)',
        { body: bodyText.slice(0, 2000) },
      );
    }
    return { kind: 'events', events: decodeChatCompletionsResponse(json, decoderOptions).events };
  }

  return {
    api: 'chat_completions',
    prepare: prepareChatCompletions,
    send(request: TransportRequest, prepared?: PreparedRequest): EventStream {
      const origin = originStampFor(request.route);
      return sendTransportRequest(request, options, {
        prepare: () => prepared ?? prepareChatCompletions(request),
        open: (ready, attempt) => open(request, ready, attempt),
        readError: (error, afterEvents) =>
          networkError(error, {
            signal: request.signal,
            retryable: !afterEvents,
            what: afterEvents
              ? `${request.route.provider} dropped the connection mid-stream; the partial answer was discarded`
              : `${request.route.provider} dropped the connection before the first chunk`,
          }),
        mapEvent: (event) => (event.type === 'finish' ? { ...event, message: { ...event.message, origin } } : event),
      });
    },
  };
}

/** The default chat-completions transport (the pooled HTTP client, real backoff sleeps). */
export const chatCompletionsTransport: Transport = createChatCompletionsTransport();
