import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import type {
  BedrockRuntimeClientConfig,
  ConverseStreamOutput,
  ServiceInputTypes,
  ServiceOutputTypes,
} from '@aws-sdk/client-bedrock-runtime';
import type { BuildMiddleware } from '@smithy/types';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import type { EventStream } from '../../core/event-stream.js';
import type { JsonObject } from '../../core/json.js';
import { isJsonObject } from '../../core/json.js';
import type { PreparedRequest, Transport, TransportRequest } from '../shared/transport.js';
import {
  BedrockConverseStreamDecoder,
  decodeBedrockConverseResponse,
  eventsForDecodedTurn,
} from './bedrock-converse-decode.js';
import type { BedrockConverseResponseBody, BedrockStreamEvent } from './bedrock-converse-wire.js';
import { prepareBedrockConverse } from './bedrock-converse-encode.js';
import { bedrockRegionFor } from '../transport-prepare.js';
import { bedrockErrorFrom } from './bedrock-converse-errors.js';
import type { HttpBody } from '../shared/transport-http-client.js';
import { openProviderRequest, readBodyText } from '../shared/transport-http.js';
import { splitBaseUrl } from '../shared/transport-url.js';
import type { Sleep } from '../shared/transport-retry.js';
import { sendTransportRequest, type TransportAnswer } from '../shared/transport-send.js';
import type { StreamDecoder } from '../shared/transport-stream-decoder.js';

/**
 * The Bedrock Converse transport: the only I/O for `bedrock_converse` (SPEC §10). Requests go
 * through `@aws-sdk/client-bedrock-runtime` (SigV4 from the default credential chain, or a
 * Bedrock API key as bearer token), with the route's base URL as endpoint override so tests and
 * `hermes emulate bedrock` can stand in for the service. The JSON body from `prepare()` is
 * mapped to the SDK input one to one; only `redactedContent` changes representation (base64
 * text ↔ bytes), which round-trips exactly, and signatures are strings that pass through as is.
 */

/** Test and embedding knobs. */
export interface BedrockConverseTransportOptions {
  /** Static credentials or a provider; default: the AWS SDK default credential chain. */
  credentials?: BedrockRuntimeClientConfig['credentials'];
  /** An SDK request handler (tests feed recorded event-stream bytes through it); default: {@link httpRequestHandler}. */
  requestHandler?: BedrockRuntimeClientConfig['requestHandler'];
  /** A `fetch` the default request handler uses for requests that bring none (default: the pooled client). */
  fetch?: typeof fetch;
  /** Environment read for the region (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** The wait between attempts (tests pass one that resolves at once). */
  sleep?: Sleep;
}

export { bedrockRegionFor };

/** Creates a Bedrock Converse transport (inject credentials / request handler for tests). */
export function createBedrockConverseTransport(options: BedrockConverseTransportOptions = {}): Transport {
  const environment = options.environment ?? process.env;
  const prepare = (request: TransportRequest): PreparedRequest =>
    prepareBedrockConverse(request, { defaultRegion: bedrockRegionFor(request.route.baseUrl, environment) });

  const send = (request: TransportRequest, given?: PreparedRequest): EventStream => {
    const { route } = request;
    let client: BedrockRuntimeClient | undefined;
    const sendOptions = request.signal === undefined ? {} : { abortSignal: request.signal };
    const mapError = (error: unknown, afterEvents: boolean) =>
      bedrockErrorFrom(error, { signal: request.signal, afterEvents, provider: route.provider });
    // The SPEC §10 redacted-content self-heal is a runtime recovery (runtime-recovery.ts RECOVERIES).
    return sendTransportRequest(request, options, {
      prepare: () => given ?? prepare(request),
      open: async (prepared): Promise<TransportAnswer> => {
        client ??= clientFor(request);
        const input = sdkInput(route.model, prepared.body);
        try {
          if (request.stream === false) {
            const response = await client.send(new ConverseCommand(input), sendOptions);
            const turn = decodeBedrockConverseResponse(jsonFromSdk(response) as BedrockConverseResponseBody, route);
            return { kind: 'events', events: eventsForDecodedTurn(turn) };
          }
          const response = await client.send(new ConverseStreamCommand(input), sendOptions);
          const decoder = new BedrockConverseStreamDecoder(route);
          return {
            kind: 'items',
            items: wireEvents(response.stream ?? []),
            decoder: decoder as StreamDecoder<unknown>,
          };
        } catch (error) {
          throw mapError(error, false);
        }
      },
      readError: mapError,
      close: () => client?.destroy(),
    });
  };

  function clientFor(request: TransportRequest): BedrockRuntimeClient {
    const { route } = request;
    const config: BedrockRuntimeClientConfig = {
      region: bedrockRegionFor(route.baseUrl, environment),
      // Retries are the shared policy's (announced as `retry` events), not the SDK's silent ones.
      maxAttempts: 1,
    };
    // The SDK takes the endpoint without a query; a base URL's query is added to every request
    // before it is signed (transport-url.ts).
    const base = route.baseUrl === undefined ? undefined : splitBaseUrl(route.baseUrl);
    if (base !== undefined) config.endpoint = base.path;
    config.requestHandler = options.requestHandler ?? httpRequestHandler(request, options.fetch);
    if (request.apiKey !== undefined && request.apiKey !== '') {
      // Bedrock API keys are bearer tokens (the SDK's httpBearerAuth scheme).
      config.token = { token: request.apiKey };
      config.authSchemePreference = ['httpBearerAuth'];
    } else if (options.credentials !== undefined) {
      config.credentials = options.credentials;
    }
    const client = new BedrockRuntimeClient(config);
    if (base !== undefined && base.query !== '') {
      client.middlewareStack.add(baseQueryMiddleware(new URLSearchParams(base.query)), {
        step: 'build',
        name: 'hermesBaseUrlQuery',
      });
    }
    return client;
  }

  return { api: 'bedrock_converse', prepare, send };
}

/** The transport registered for `bedrock_converse` (default credential chain, real endpoints). */
export const bedrockConverseTransport: Transport = createBedrockConverseTransport();

/** A build-step middleware that adds `parameters` to each request's query (before signing). */
function baseQueryMiddleware(parameters: URLSearchParams): BuildMiddleware<ServiceInputTypes, ServiceOutputTypes> {
  return (next) => async (args) => {
    const request = args.request as Partial<SdkHttpRequest>;
    const query = { ...request.query };
    for (const [name, value] of parameters) {
      const present = query[name];
      query[name] =
        present === undefined || present === null ? value : [...(Array.isArray(present) ? present : [present]), value];
    }
    request.query = query;
    return next(args);
  };
}

/** The SDK's `HttpRequest` fields the handler reads. */
interface SdkHttpRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/**
 * The SDK request handler: the shared HTTP client (`shared/transport-http-client.ts`, HTTP/1.1)
 * under the request's time limits, with its origin mapping and `fetch` override, and no redirect
 * followed (a 3xx is refused before the SDK sees it: the SigV4 signature or Bedrock API key is
 * never sent again, `shared/transport-redirect.ts`). The SDK's default for Bedrock Runtime is an
 * HTTP/2 handler, which speaks cleartext h2 to an `http://` endpoint override: loopback
 * emulators (and proxies) speak HTTP/1.1 and the connection fails with "Protocol error".
 * Converse and ConverseStream are plain request/response (the stream is a chunked response
 * body), so HTTP/1.1 serves both against the real service too.
 */
export function httpRequestHandler(
  transportRequest: TransportRequest,
  fallbackFetch?: typeof fetch,
): NonNullable<BedrockRuntimeClientConfig['requestHandler']> {
  return {
    handle: async (request: SdkHttpRequest) => {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(request.query ?? {})) {
        for (const item of Array.isArray(value) ? value : [value]) query.append(key, item ?? '');
      }
      const search = query.size > 0 ? `?${query.toString()}` : '';
      const port = request.port === undefined ? '' : `:${request.port}`;
      const url = `${request.protocol}//${request.hostname}${port}${request.path}${search}`;
      // The client sets Host from the URL (the same value the SDK signed).
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name.toLowerCase() !== 'host'),
      );
      const body = request.body as string | Uint8Array | undefined;
      const method = request.method === 'GET' ? 'GET' : 'POST';
      const answer = await openProviderRequest(
        transportRequest,
        { url, method, headers, body: method === 'GET' ? undefined : body },
        { unreachable: `could not reach ${transportRequest.route.provider} at ${url}`, fetch: fallbackFetch },
      );
      const responseHeaders: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      // An error body reaches the SDK at most ERROR_BODY_READ_LIMIT bytes long (the rest unread).
      const stream =
        answer.status >= 300 ? Readable.from([Buffer.from(await readBodyText(answer))]) : readableOf(answer.body);
      return { response: { statusCode: answer.status, headers: responseHeaders, body: stream } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  } as unknown as NonNullable<BedrockRuntimeClientConfig['requestHandler']>;
}

/** An {@link HttpBody} as the Node stream the SDK reads; destroying the stream cancels the body. */
function readableOf(body: HttpBody): Readable {
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (let chunk = await body.read(); chunk !== null; chunk = await body.read()) yield chunk;
    } finally {
      await body.cancel();
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

type SdkInput = ConstructorParameters<typeof ConverseStreamCommand>[0];

/** Prepared JSON body → SDK input: same keys, `redactedContent` base64 → bytes. */
function sdkInput(modelId: string, body: JsonObject): SdkInput {
  const converted = structuredClone(body);
  for (const message of Array.isArray(converted['messages']) ? converted['messages'] : []) {
    if (!isJsonObject(message) || !Array.isArray(message['content'])) continue;
    for (const block of message['content']) {
      if (!isJsonObject(block) || !isJsonObject(block['reasoningContent'])) continue;
      const redacted = block['reasoningContent']['redactedContent'];
      if (typeof redacted === 'string') {
        (block['reasoningContent'] as Record<string, unknown>)['redactedContent'] = new Uint8Array(
          Buffer.from(redacted, 'base64'),
        );
      }
    }
  }
  return { modelId, ...converted } as unknown as SdkInput;
}

/** SDK output → the REST JSON shape (bytes → base64; `$metadata` dropped). */
function jsonFromSdk(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(jsonFromSdk);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith('$') || inner === undefined) continue;
    out[key] = jsonFromSdk(inner);
  }
  return out;
}

/** The SDK's stream as the decoder's wire events (`{type, payload}`). */
async function* wireEvents(
  stream: AsyncIterable<ConverseStreamOutput> | Iterable<ConverseStreamOutput>,
): AsyncGenerator<BedrockStreamEvent> {
  for await (const event of stream) yield streamEventFromSdk(event);
}

/** One SDK stream union member → `{type, payload}` as the `:event-type` header and JSON payload. */
function streamEventFromSdk(event: ConverseStreamOutput): { type: string; payload: JsonObject } {
  for (const [type, payload] of Object.entries(event)) {
    if (type.startsWith('$') || payload === undefined) continue;
    const json = jsonFromSdk(payload);
    return { type, payload: isJsonObject(json) ? json : {} };
  }
  return { type: 'unknown', payload: {} };
}
