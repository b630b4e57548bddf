import {
  effortRefusal,
  type EmulatedEffortRules,
  GEMINI_ALWAYS_THINKS_MESSAGE,
  geminiLevelMessage,
  type SentEffort,
} from '../shared/emulator-effort.js';
import type { ServerResponse } from 'node:http';
import { handleControlRequest } from '../shared/emulator-control-routes.js';
import { isHostileFault } from '../shared/emulator-hostile-faults.js';
import { serveHostileFault, type HostileDialect } from '../shared/emulator-hostile.js';
import { FaultQueue, type Fault } from '../shared/emulator-faults.js';
import { startLoopbackServer, type EmulatorHttpRequest } from '../shared/emulator-http-server.js';
import {
  keepRequest,
  receivedRequestFrom,
  type ReceivedRequest,
  type RequestLogLimits,
} from '../shared/emulator-request-log.js';
import { runScript } from '../shared/scripted-model.js';
import { buildChunks, buildResponse } from './gemini-emulator-respond.js';
import { checkRequest, CORRUPTED_SIGNATURE_TEXT, type EmulatorFailure } from './gemini-emulator-rules.js';
import type { EmulatorIssuer } from './gemini-emulator-signatures.js';

/**
 * `hermes emulate gemini`: a loopback Gemini server speaking both the AI Studio
 * (`/v1beta/models/{model}:generateContent`) and the Vertex AI
 * (`/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent`) path
 * shapes — the path shape is the issuer, and each issuer signs with its own key — streaming
 * (`:streamGenerateContent?alt=sse`) and not, driven by the shared scripted model. Like every
 * emulator it serves the `/_emulator/*` control endpoints and consumes one queued fault per model
 * request.
 */

/** One recorded request: the shared log entry plus the issuer its path shape named. */
export interface GeminiEmulatorRequest extends ReceivedRequest {
  issuer: EmulatorIssuer | null;
}

/** Emulator options. */
export interface GeminiEmulatorOptions extends EmulatedEffortRules {
  /** How much of the request log to keep (default: all of it). */
  requestLog?: RequestLogLimits | undefined;
  port?: number;
  host?: string;
  /** Faults consumed one per model request, in order. */
  faults?: readonly Fault[];
  /**
   * Refuse an unverifiable thought signature on a streamed request the way the Gemini API also
   * does (WIRE §8): `200` and the stream headers, then the error ("Corrupted thought signature.")
   * as the first event, before any content. Default: the `400` response.
   */
  signatureRefusalMidStream?: boolean;
}

/** A running emulator. */
export interface GeminiEmulator {
  /** AI Studio base URL (`http://127.0.0.1:PORT/v1beta`): use as `--base-url`. */
  baseUrl: string;
  /** Vertex AI base URL for a project and location on the same server. */
  vertexBaseUrl: string;
  port: number;
  requests: GeminiEmulatorRequest[];
  /** Queue more faults while running. */
  faults: FaultQueue;
  close(): Promise<void>;
}

const AI_STUDIO_PATH = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const VERTEX_PATH =
  /^\/(?:v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** Google's `status` name for an HTTP status (google.rpc.Code). */
const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** Starts the emulator on loopback (port 0 = any free port). */
export async function startGeminiEmulator(options: GeminiEmulatorOptions = {}): Promise<GeminiEmulator> {
  const requests: GeminiEmulatorRequest[] = [];
  const faults = new FaultQueue(options.faults ?? []);
  let served = 0;

  const handler = async (request: EmulatorHttpRequest, response: ServerResponse): Promise<void> => {
    if (handleControlRequest(request, response, { requests, faults })) return;
    const { entry, body } = receivedRequestFrom(request);
    const route = matchRoute(request.path);
    // Assigned, not spread: a spread would read (and keep) the entry's parsed body.
    const record: GeminiEmulatorRequest = Object.assign(entry, { issuer: route?.issuer ?? null });
    keepRequest(requests, record, options.requestLog);
    record.status = await serve(request, body, route, response);
  };

  const serve = async (
    request: EmulatorHttpRequest,
    body: unknown,
    route: GeminiRoute | null,
    response: ServerResponse,
  ): Promise<number> => {
    if (request.method !== 'POST' || !route) {
      return sendError(response, {
        status: 404,
        statusName: 'NOT_FOUND',
        message: `Method not found: ${request.path}`,
      });
    }
    const fault = faults.take();
    if (fault?.kind === 'status') return sendFault(response, fault);
    const authFailure = checkAuth(request, route.issuer);
    if (authFailure) return sendError(response, authFailure);
    if (isHostileFault(fault)) return serveHostileFault(fault, request, response, GEMINI_HOSTILE_DIALECT);
    if (body === undefined) {
      return sendError(response, {
        status: 400,
        statusName: 'INVALID_ARGUMENT',
        message: `Invalid JSON payload received. Unexpected token.\n${request.raw.toString('utf8').slice(0, 40)}\n^`,
      });
    }
    const refusal = effortRefusal(options, geminiSentEffort(body));
    if (refusal) {
      const message = refusal.kind === 'off' ? GEMINI_ALWAYS_THINKS_MESSAGE : geminiLevelMessage(refusal);
      return sendError(response, { status: 400, statusName: 'INVALID_ARGUMENT', message });
    }
    const checked = checkRequest(body, route.issuer, route.model);
    if (!checked.ok) {
      const midStream =
        options.signatureRefusalMidStream === true &&
        route.method === 'streamGenerateContent' &&
        checked.failure.message === CORRUPTED_SIGNATURE_TEXT;
      return midStream
        ? sendErrorMidStream(response, checked.failure, request.query.get('alt') === 'sse')
        : sendError(response, checked.failure);
    }
    served += 1;
    const answer = {
      output: runScript(checked.turn.script),
      issuer: route.issuer,
      model: route.model,
      includeThoughts: checked.turn.includeThoughts,
      responseId: `emulator-${route.issuer}-${served}`,
    };
    if (fault?.kind === 'drop-mid-stream' && route.method === 'generateContent') {
      response.destroy();
      return 0;
    }
    if (route.method === 'generateContent') {
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify(buildResponse(answer)));
      return 200;
    }
    const chunks = buildChunks(answer);
    if (request.query.get('alt') !== 'sse') {
      // Without `alt=sse` Google streams one JSON array of chunks.
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify(chunks));
      return 200;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frames = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);
    if (fault === undefined) {
      for (const frame of frames) response.write(frame);
      response.end();
      return 200;
    }
    await writeThen(response, frames[0] ?? '');
    if (fault.kind === 'drop-mid-stream') response.destroy();
    else if (fault.kind === 'malformed-chunk') response.end('data: {not json\r\n\r\n');
    else response.end(`data: ${JSON.stringify(errorBody(500, 'INTERNAL', 'Injected fault: stream error'))}\r\n\r\n`);
    return 200;
  };

  const server = await startLoopbackServer({
    handler,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  return {
    baseUrl: `${server.origin}/v1beta`,
    vertexBaseUrl: `${server.origin}/v1/projects/hermes-emulator/locations/us-central1`,
    port: server.port,
    requests,
    faults,
    close: () => server.close(),
  };
}

interface GeminiRoute {
  issuer: EmulatorIssuer;
  model: string;
  method: 'generateContent' | 'streamGenerateContent';
}

function matchRoute(pathname: string): GeminiRoute | null {
  const studio = AI_STUDIO_PATH.exec(pathname);
  if (studio) return { issuer: 'ai-studio', model: studio[1]!, method: studio[2] as GeminiRoute['method'] };
  const vertex = VERTEX_PATH.exec(pathname);
  if (vertex) return { issuer: 'vertex', model: vertex[3]!, method: vertex[4] as GeminiRoute['method'] };
  return null;
}

function checkAuth(request: EmulatorHttpRequest, issuer: EmulatorIssuer): EmulatorFailure | null {
  const apiKey = request.headers['x-goog-api-key'] ?? request.query.get('key');
  const bearer = /^Bearer \S+/.test(request.headers.authorization ?? '');
  if (issuer === 'ai-studio' && !apiKey) {
    return {
      status: 403,
      statusName: 'PERMISSION_DENIED',
      message:
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    };
  }
  if (issuer === 'vertex' && !apiKey && !bearer) {
    return {
      status: 401,
      statusName: 'UNAUTHENTICATED',
      message:
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    };
  }
  return null;
}

function errorBody(status: number, statusName: string, message: string): object {
  return { error: { code: status, message, status: statusName } };
}

/** The effort of a generateContent body: `thinkingConfig.thinkingLevel`; thinking off with `thinkingBudget: 0`. */
function geminiSentEffort(body: unknown): SentEffort {
  const generation = ((body ?? {}) as { generationConfig?: { thinkingConfig?: Record<string, unknown> } })
    .generationConfig;
  const thinking = generation?.thinkingConfig ?? {};
  const level = thinking['thinkingLevel'];
  return {
    parameter: 'thinkingLevel',
    value: typeof level === 'string' ? level : undefined,
    off: thinking['thinkingBudget'] === 0,
  };
}

function sendError(response: ServerResponse, failure: EmulatorFailure, headers: Record<string, string> = {}): number {
  response.writeHead(failure.status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  response.end(JSON.stringify(errorBody(failure.status, failure.statusName, failure.message)));
  return failure.status;
}

/** A refusal after the stream began: `200`, then the error as the stream's first (and last) element. */
function sendErrorMidStream(response: ServerResponse, failure: EmulatorFailure, sse: boolean): number {
  const error = errorBody(failure.status, failure.statusName, failure.message);
  if (!sse) {
    response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    response.end(JSON.stringify([error]));
    return 200;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.end(`data: ${JSON.stringify(error)}\r\n\r\n`);
  return 200;
}

/** A queued status fault: its exact body when given, else Google's envelope for the status. */
function sendFault(response: ServerResponse, fault: Extract<Fault, { kind: 'status' }>): number {
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  if (fault.body !== undefined) {
    response.writeHead(fault.status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
    response.end(fault.body);
    return fault.status;
  }
  const statusName = STATUS_NAMES[fault.status] ?? 'UNKNOWN';
  return sendError(
    response,
    { status: fault.status, statusName, message: `Injected fault: HTTP ${fault.status}` },
    headers,
  );
}

/** Writes `text` and resolves once it reached the socket, so a client sees a partial stream before a fault. */
function writeThen(response: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve) => response.write(text, () => resolve()));
}

/** Gemini `alt=sse` shapes of the hostile faults (WIRE.md §4). */
const GEMINI_HOSTILE_DIALECT: HostileDialect = {
  preamble: () => [],
  deltaFrame: (text) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }] })}\r\n\r\n`,
  errorFrame: (message) =>
    `data: ${JSON.stringify({ error: { code: 401, message, status: 'UNAUTHENTICATED' } })}\r\n\r\n`,
  malformedFrame: (text) => `data: {not json ${text}\r\n\r\n`,
  errorBody: (message) => ({ error: { code: 401, message, status: 'UNAUTHENTICATED' } }),
};
