import { HermesError, StreamError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import { openTransportStream } from '../shared/transport-redact.js';
import type { StreamEvent } from '../../core/stream-event.js';
import { serializeRequestBody } from '../shared/request-body.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import { jsonRequestHeaders, networkError, originStampFor, readBodyText } from '../shared/transport-http.js';
import { abortableSleep, runWithRetries, type BackoffOptions, type Sleep } from '../shared/transport-retry.js';
import { readServerSentEventBatches, type ServerSentEvent } from '../shared/transport-sse-reader.js';
import { requestProfile } from '../transport-route-profile.js';
import {
  createChatCompletionsDecoder,
  decodeChatCompletionsResponse,
  type ChatCompletionsDecoder,
} from './chat-completions-decode.js';
import { prepareChatCompletions } from './chat-completions-encode.js';
import { apiErrorFromResponse } from './chat-completions-errors.js';
import { requestFetch } from '../shared/transport-deadlines.js';

/**
 * The chat-completions transport: the only I/O of this wire API. It sends the prepared body
 * exactly as `prepareChatCompletions` built it (never edits it), retries 429 / 5xx / connection
 * failures that happen before the first event, and decodes SSE or JSON answers into the one
 * stream-event union. Failures end the stream with a typed `error` event; nothing throws.
 */

/** Injection points (tests, and the runtime's must-echo resolver). */
export interface ChatCompletionsTransportOptions {
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

const DEFAULT_MAX_ATTEMPTS = 3;

/** An opened response: a parsed JSON body, or a stream with its decoder and the events read so far. */
type OpenedResponse =
  | { kind: 'json'; json: unknown }
  | {
      kind: 'sse';
      decoder: ChatCompletionsDecoder;
      sse: AsyncGenerator<ServerSentEvent[]>;
      firstEvents: StreamEvent[];
    };

function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
}

/** Creates a chat-completions transport with injected dependencies. */
export function createChatCompletionsTransport(options: ChatCompletionsTransportOptions = {}): Transport {
  const fetchImplementation = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = options.sleep ?? abortableSleep;
  const mustEcho =
    options.isMustEcho ?? ((request: TransportRequest) => requestProfile(request).mustEchoFamily !== null);

  async function open(request: TransportRequest, prepared: PreparedRequest, attempt: number): Promise<OpenedResponse> {
    const provider = request.route.provider;
    const streaming = prepared.body['stream'] === true;
    const init: RequestInit = {
      method: 'POST',
      headers: jsonRequestHeaders({ apiKey: request.apiKey, stream: streaming }),
      body: serializeRequestBody(prepared),
    };
    if (request.signal !== undefined) init.signal = request.signal;
    let response: Response;
    try {
      response = await requestFetch(request, fetchImplementation)(prepared.url, init);
    } catch (error) {
      throw networkError(error, {
        signal: request.signal,
        retryable: true,
        what: `could not reach ${provider} at ${prepared.url}`,
      });
    }
    if (!response.ok) {
      const bodyText = await readBodyText(response);
      throw apiErrorFromResponse({
        status: response.status,
        headers: response.headers,
        bodyText,
        provider,
        apiKey: request.apiKey,
        attempts: attempt,
      });
    }
    if (!isEventStream(response) || response.body === null) {
      let bodyText: string;
      try {
        bodyText = await response.text();
      } catch (error) {
        throw networkError(error, {
          signal: request.signal,
          retryable: true,
          what: `${provider} dropped the connection mid-response`,
        });
      }
      try {
        return { kind: 'json', json: JSON.parse(bodyText) };
      } catch {
        // Typically a web page or proxy answering 200 at a base URL that is not the API root.
        const contentType = response.headers.get('content-type') ?? 'no content-type';
        throw new StreamError(
          `${provider} answered with a body that is not JSON (${contentType}) at ${response.url || 'the base URL'}; ` +
            'check that the base URL is the API root (for OpenAI-compatible servers it usually ends in /v1)',
          { body: bodyText.slice(0, 2000) },
        );
      }
    }
    const decoder = createChatCompletionsDecoder({ mustEcho: mustEcho(request), provider });
    const sse = readServerSentEventBatches(response.body);
    // Read up to the first decoded event inside the retry window: a connection reset before
    // anything reached the caller is retried like a refused connection.
    const firstEvents: StreamEvent[] = [];
    try {
      while (firstEvents.length === 0 && !decoder.ended) {
        const next = await sse.next();
        if (next.done) break;
        for (const event of next.value) {
          if (decoder.ended) break;
          firstEvents.push(...decoder.feedData(event.data));
        }
      }
    } catch (error) {
      throw networkError(error, {
        signal: request.signal,
        retryable: true,
        what: `${provider} dropped the connection before the first chunk`,
      });
    }
    return { kind: 'sse', decoder, sse, firstEvents };
  }

  async function run(stream: EventStream, request: TransportRequest, prepared: PreparedRequest): Promise<void> {
    const opened = await runWithRetries(
      {
        ...options.backoff,
        maxAttempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        signal: request.signal,
        sleep,
        ...(options.random === undefined ? {} : { random: options.random }),
        onRetry: (notice) => stream.push({ type: 'retry', ...notice }),
      },
      (attempt) => open(request, prepared, attempt),
    );
    const origin = originStampFor(request.route);
    const emit = (events: readonly StreamEvent[]) => {
      for (const event of events) {
        if (event.type === 'finish') stream.end({ ...event, message: { ...event.message, origin } });
        else stream.push(event);
      }
    };
    if (opened.kind === 'json') {
      emit(
        decodeChatCompletionsResponse(opened.json, { mustEcho: mustEcho(request), provider: request.route.provider })
          .events,
      );
      return;
    }
    emit(opened.firstEvents);
    try {
      while (!opened.decoder.ended) {
        const next = await opened.sse.next();
        if (next.done) break;
        for (const event of next.value) {
          if (opened.decoder.ended) break;
          emit(opened.decoder.feedData(event.data));
        }
      }
    } catch (error) {
      throw networkError(error, {
        signal: request.signal,
        retryable: false,
        what: `${request.route.provider} dropped the connection mid-stream; the partial answer was discarded`,
      });
    } finally {
      // Stops the socket when the decoder ended early (error chunk) and the server keeps sending.
      await opened.sse.return(undefined).catch(() => undefined);
    }
    emit(opened.decoder.finish());
  }

  return {
    api: 'chat_completions',
    prepare: prepareChatCompletions,
    send(request: TransportRequest, prepared?: PreparedRequest): EventStream {
      const stream = openTransportStream(request);
      let ready: PreparedRequest;
      try {
        ready = prepared ?? prepareChatCompletions(request);
      } catch (error) {
        stream.fail(
          error instanceof HermesError ? error : new HermesError(`could not build the request: ${String(error)}`),
        );
        return stream;
      }
      run(stream, request, ready).catch((error: unknown) => stream.fail(error));
      return stream;
    },
  };
}

/** The default chat-completions transport (native `fetch`, real backoff sleeps). */
export const chatCompletionsTransport: Transport = createChatCompletionsTransport();
