import { StreamError } from '../../core/errors.js';
import type { EventStream } from '../../core/event-stream.js';
import type { StreamEvent } from '../../core/stream-event.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import {
  isSuccess,
  jsonRequestHeaders,
  networkError,
  openProviderRequest,
  originStampFor,
  readAnswerText,
  readBodyText,
  redactSecret,
  requestIdFromHeaders,
} from '../shared/transport-http.js';
import { parseRetryAfterMs } from '../shared/transport-retry.js';
import type { Sleep } from '../shared/transport-retry.js';
import { sendTransportRequest, type TransportAnswer } from '../shared/transport-send.js';
import { requestProfile } from '../transport-route-profile.js';
import { decodeResponsesResponse, ResponsesStreamDecoder } from './responses-decode.js';
import type { ResponsesCaptureContext } from './responses-decode.js';
import { prepareResponses } from './responses-encode.js';
import { responsesErrorFields } from '../../replay/responses-rejections.js';
import { responsesApiError } from './responses-errors.js';
import { isJsonObject } from '../../core/json.js';
import { serializeRequestBodyChunks } from '../shared/request-body.js';

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
  /** A `fetch` for requests that bring none of their own (default: the pooled client, TransportRequest.fetch). */
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
      return sendTransportRequest(request, options, {
        prepare: () => prepared ?? prepareResponses(request),
        open: (ready) => open(request, ready, options),
        readError: (error, afterEvents) =>
          networkError(error, {
            signal: request.signal,
            retryable: !afterEvents,
            what: 'the Responses stream broke',
          }),
      });
    },
  };
}

/** The default Responses transport (the pooled HTTP client, real timers, `process.env`). */
export const responsesTransport: Transport = createResponsesTransport();

async function open(
  request: TransportRequest,
  prepared: PreparedRequest,
  options: ResponsesTransportOptions,
): Promise<TransportAnswer> {
  const provider = request.route.provider.trim().toLowerCase();
  const keyVariable = RESPONSES_API_KEY_VARIABLES[provider];
  const environment = options.environment ?? process.env;
  const apiKey = request.apiKey ?? (keyVariable === undefined ? undefined : environment[keyVariable]);
  const streaming = prepared.body['stream'] === true;
  const { signal } = request;
  const answer = await openProviderRequest(
    request,
    {
      url: prepared.url,
      headers: jsonRequestHeaders({ apiKey, stream: streaming }),
      body: serializeRequestBodyChunks(prepared),
    },
    { unreachable: `POST ${prepared.url} failed`, fetch: options.fetch },
  );
  if (!isSuccess(answer)) {
    const body = redactSecret(await readBodyText(answer), apiKey);
    throw responsesApiError(answer.status, body, {
      requestId: requestIdFromHeaders(answer.headers),
      retryAfterMs: parseRetryAfterMs(answer.headers),
      provider,
    });
  }
  const context = responsesCaptureContext(request);
  if (streaming) {
    return { kind: 'bytes', body: answer.body, decoder: new ResponsesStreamDecoder(context) };
  }
  let text: string;
  try {
    text = await readAnswerText(answer);
  } catch (error) {
    throw networkError(error, { signal, retryable: true, what: 'reading the response failed' });
  }
  return { kind: 'events', events: wholeAnswerEvents(text, context) };
}

/** The events of a non-streaming answer: the live events it implies, then its terminal event. */
function wholeAnswerEvents(text: string, context: ResponsesCaptureContext): StreamEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StreamError('The Responses body was not JSON.', { cause: error });
  }
  if (isJsonObject(parsed) && isJsonObject(parsed['error']) && parsed['output'] === undefined) {
    // An error envelope answered with 200 (proxies do this): a failure, never an empty answer.
    const body = JSON.stringify(parsed);
    const { message, code } = responsesErrorFields(body);
    throw new StreamError(
      `The Responses API answered 200 with an error${code ? ` (${code})` : ''}: ${message ?? body}`,
      { body },
    );
  }
  const terminal = decodeResponsesResponse(parsed, context);
  const events: StreamEvent[] = [{ type: 'start' }];
  if (terminal.type === 'finish') {
    events.push(...liveEventsOf(terminal.message));
    if (terminal.usage !== null) events.push({ type: 'usage', usage: terminal.usage });
  }
  events.push(terminal);
  return events;
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
