import { HermesError, StreamError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import { openTransportStream } from '../shared/transport-redact.js';
import type { StreamEvent } from '../../core/stream-event.js';
import { serializeRequestBody } from '../shared/request-body.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import {
  jsonRequestHeaders,
  networkError,
  originStampFor,
  readBodyText,
  redactSecret,
  requestIdFromHeaders,
} from '../shared/transport-http.js';
import { parseRetryAfterMs, runWithRetries } from '../shared/transport-retry.js';
import type { Sleep } from '../shared/transport-retry.js';
import { readServerSentEventBatches } from '../shared/transport-sse-reader.js';
import { requestProfile } from '../transport-route-profile.js';
import { decodeResponsesResponse, ResponsesStreamDecoder } from './responses-decode.js';
import type { ResponsesCaptureContext } from './responses-decode.js';
import { prepareResponses } from './responses-encode.js';
import { responsesErrorFields } from '../../replay/responses-rejections.js';
import { responsesApiError } from './responses-errors.js';
import { isJsonObject } from '../../core/json.js';
import { requestFetch } from '../shared/transport-deadlines.js';

/**
 * The Responses transport: the only I/O of `transports/responses/`. It posts the body
 * `prepareResponses` built, retries failures that happen before the first event (429, 5xx,
 * connection errors; `retry-after` honoured), and feeds SSE events to the pure decoder.
 */

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

/** Injected dependencies (tests pass a fake `fetch` / instant `sleep`). */
export interface ResponsesTransportOptions {
  fetch?: typeof fetch;
  sleep?: Sleep;
  /** Jitter source for backoff; tests pass `() => 0`. */
  random?: () => number;
  /** Environment for API-key fallback (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
}

/** API-key environment variables by lower-cased provider id, used when the request has no key. */
export const RESPONSES_API_KEY_VARIABLES: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  xai: 'XAI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  deepseek: 'DEEPSEEK_API_KEY',
  copilot: 'GITHUB_COPILOT_TOKEN',
  'github-copilot': 'GITHUB_COPILOT_TOKEN',
};

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------

/** The capture context of a route: origin stamp and issuer kind (SPEC §12, §23.2). */
export function responsesCaptureContext(request: TransportRequest): ResponsesCaptureContext {
  const { route } = request;
  return {
    origin: { ...originStampFor(route), api: 'codex_responses' },
    issuerKind: requestProfile(request).responses.issuerKind,
  };
}

/** Builds a Responses transport with injected dependencies. */
export function createResponsesTransport(options: ResponsesTransportOptions = {}): Transport {
  return {
    api: 'codex_responses',
    prepare: prepareResponses,
    send(request: TransportRequest, prepared?: PreparedRequest): EventStream {
      const stream = openTransportStream(request);
      let ready: PreparedRequest;
      try {
        ready = prepared ?? prepareResponses(request);
      } catch (error) {
        stream.fail(error);
        return stream;
      }
      void run(request, ready, stream, options).catch((error: unknown) => stream.fail(error));
      return stream;
    },
  };
}

/** The default Responses transport (global `fetch`, real timers, `process.env`). */
export const responsesTransport: Transport = createResponsesTransport();

async function run(
  request: TransportRequest,
  prepared: PreparedRequest,
  stream: EventStream,
  options: ResponsesTransportOptions,
): Promise<void> {
  const fetchImplementation = requestFetch(request, options.fetch);
  const provider = request.route.provider.trim().toLowerCase();
  const keyVariable = RESPONSES_API_KEY_VARIABLES[provider];
  const environment = options.environment ?? process.env;
  const apiKey = request.apiKey ?? (keyVariable === undefined ? undefined : environment[keyVariable]);
  const streaming = prepared.body['stream'] === true;
  const { signal } = request;

  const response = await runWithRetries(
    {
      maxAttempts: request.maxAttempts ?? 3,
      signal,
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.random === undefined ? {} : { random: options.random }),
      onRetry: (notice) => stream.push({ type: 'retry', ...notice }),
    },
    async () => {
      let answer: Response;
      try {
        answer = await fetchImplementation(prepared.url, {
          method: 'POST',
          headers: jsonRequestHeaders({ apiKey, stream: streaming }),
          body: serializeRequestBody(prepared),
          ...(signal === undefined ? {} : { signal }),
        });
      } catch (error) {
        throw networkError(error, { signal, retryable: true, what: `POST ${prepared.url} failed` });
      }
      if (!answer.ok) {
        const body = redactSecret(await readBodyText(answer), apiKey);
        throw responsesApiError(answer.status, body, {
          requestId: requestIdFromHeaders(answer.headers),
          retryAfterMs: parseRetryAfterMs(answer.headers),
          provider,
        });
      }
      return answer;
    },
  ).catch((error: unknown) => {
    stream.fail(error);
    return undefined;
  });
  if (response === undefined) return;

  const context = responsesCaptureContext(request);
  if (!streaming) {
    await readWhole(response, context, stream, signal);
    return;
  }
  await readStream(response, context, stream, signal);
}

async function readWhole(
  response: Response,
  context: ResponsesCaptureContext,
  stream: EventStream,
  signal: AbortSignal | undefined,
): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await response.text());
  } catch (error) {
    stream.fail(
      error instanceof SyntaxError
        ? new StreamError('The Responses body was not JSON.', { cause: error })
        : networkError(error, { signal, retryable: false, what: 'reading the response failed' }),
    );
    return;
  }
  if (isJsonObject(parsed) && isJsonObject(parsed['error']) && parsed['output'] === undefined) {
    // An error envelope answered with 200 (proxies do this): a failure, never an empty answer.
    const body = JSON.stringify(parsed);
    const { message, code } = responsesErrorFields(body);
    stream.fail(
      new StreamError(`The Responses API answered 200 with an error${code ? ` (${code})` : ''}: ${message ?? body}`, {
        body,
      }),
    );
    return;
  }
  const terminal = decodeResponsesResponse(parsed, context);
  stream.push({ type: 'start' });
  if (terminal.type === 'finish') {
    for (const event of liveEventsOf(terminal.message)) stream.push(event);
    if (terminal.usage !== null) stream.push({ type: 'usage', usage: terminal.usage });
  }
  stream.end(terminal);
}

/** The live events a non-streaming answer implies, so both modes look alike to the caller. */
function liveEventsOf(message: Extract<StreamEvent, { type: 'finish' }>['message']): StreamEvent[] {
  const events: StreamEvent[] = [];
  if (message.reasoning) events.push({ type: 'reasoning-delta', text: message.reasoning });
  if (message.content) events.push({ type: 'text-delta', text: message.content });
  (message.tool_calls ?? []).forEach((call, index) => {
    events.push({ type: 'tool-call-start', index, id: call.id, name: call.function.name });
    if (call.function.arguments !== '') {
      events.push({ type: 'tool-call-delta', index, argumentsDelta: call.function.arguments });
    }
  });
  return events;
}

async function readStream(
  response: Response,
  context: ResponsesCaptureContext,
  stream: EventStream,
  signal: AbortSignal | undefined,
): Promise<void> {
  const decoder = new ResponsesStreamDecoder(context);
  if (response.body === null) {
    stream.end(decoder.end());
    return;
  }
  try {
    for await (const batch of readServerSentEventBatches(response.body)) {
      for (const event of batch) {
        if (event.data === '[DONE]') continue;
        let payload: unknown;
        try {
          payload = JSON.parse(event.data);
        } catch (error) {
          stream.fail(
            new StreamError('The Responses stream sent a frame that is not JSON.', {
              body: event.data.slice(0, 400),
              cause: error,
            }),
          );
          return;
        }
        for (const streamEvent of decoder.push(payload)) stream.push(streamEvent);
        if (stream.ended) return;
      }
    }
  } catch (error) {
    stream.fail(
      error instanceof HermesError
        ? error
        : networkError(error, { signal, retryable: false, what: 'the Responses stream broke' }),
    );
    return;
  }
  stream.end(decoder.end());
}
