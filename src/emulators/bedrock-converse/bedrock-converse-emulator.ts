import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { isJsonObject } from '../../core/json.js';
import { handleControlRequest } from '../shared/emulator-control-routes.js';
import type { Fault } from '../shared/emulator-faults.js';
import { eventFrame, exceptionFrame } from '../shared/emulator-event-stream.js';
import { isHostileFault } from '../shared/emulator-hostile-faults.js';
import { serveHostileFault, type HostileDialect } from '../shared/emulator-hostile.js';
import { FaultQueue } from '../shared/emulator-faults.js';
import type { EmulatorHttpRequest } from '../shared/emulator-http-server.js';
import { sendJson, startLoopbackServer } from '../shared/emulator-http-server.js';
import type { ReceivedRequest, RequestLogLimits } from '../shared/emulator-request-log.js';
import { keepRequest, receivedRequestFrom } from '../shared/emulator-request-log.js';
import { runScript } from '../shared/scripted-model.js';
import type { ReasoningIssue } from './bedrock-converse-emulator-reply.js';
import { answerBlocks, converseResponse, converseStreamFrames } from './bedrock-converse-emulator-reply.js';
import {
  REDACTED_TRIGGER,
  emulatedFamily,
  scriptInputFromConverse,
  thinkingRequested,
  validateConverseBody,
} from './bedrock-converse-emulator-rules.js';

/**
 * `hermes emulate bedrock`: a loopback Bedrock Runtime speaking Converse
 * (`POST /model/{modelId}/converse`) and ConverseStream (`POST /model/{modelId}/converse-stream`,
 * AWS event-stream framing). Claude ids get signed thinking (signature = HMAC of the text) when
 * the request asks for it and have it verified on replay; other ids reason unsigned; DeepSeek R1
 * ids refuse reasoning on input. Errors are the service's: `x-amzn-ErrorType` header plus a JSON
 * `{"message": …}` body. Any SigV4 (or Bedrock API key bearer) Authorization header is accepted;
 * one is required.
 */

/** Options of {@link startBedrockEmulator}. */
export interface BedrockEmulatorOptions {
  /** How much of the request log to keep (default: all of it). */
  requestLog?: RequestLogLimits | undefined;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** Faults consumed one per model request, in order. */
  faults?: readonly Fault[];
  /** HMAC secret for signatures and redacted blobs (default: the shared emulator secret). */
  secret?: string;
}

/** A running Bedrock emulator. */
export interface BedrockEmulator {
  /** Pass as the route's base URL (endpoint override). */
  baseUrl: string;
  port: number;
  /** Every model request received (Authorization redacted), with the status answered. */
  requests: ReceivedRequest[];
  /** Queue more faults while running. */
  faults: FaultQueue;
  close(): Promise<void>;
}

const SECRET_DEFAULT = 'hermes-emulator-signing-secret';
const OPERATION_PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

/** Error type header for a status (the SDK reads the type from `x-amzn-ErrorType`). */
function errorTypeForStatus(status: number): string {
  if (status === 400) return 'ValidationException';
  if (status === 403) return 'AccessDeniedException';
  if (status === 404) return 'ResourceNotFoundException';
  if (status === 429) return 'ThrottlingException';
  if (status === 503) return 'ServiceUnavailableException';
  return 'InternalServerException';
}

/** Answers like the service: `x-amzn-ErrorType`, request id, JSON `{"message": …}`. */
function sendServiceError(response: ServerResponse, status: number, errorType: string, body: string): number {
  return sendJson(response, status, body, {
    'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': randomUUID(),
  });
}

/** Starts the emulator on loopback. */
export async function startBedrockEmulator(options: BedrockEmulatorOptions = {}): Promise<BedrockEmulator> {
  const requests: ReceivedRequest[] = [];
  const faults = new FaultQueue(options.faults ?? []);
  const secret = options.secret ?? SECRET_DEFAULT;

  const handler = (request: EmulatorHttpRequest, response: ServerResponse): void => {
    if (handleControlRequest(request, response, { requests, faults })) return;
    const { entry, body } = receivedRequestFrom(request);
    keepRequest(requests, entry, options.requestLog);
    entry.status = serve(request, body, entry.raw, response);
  };

  /** `raw`: the body's text, decoded once with the log entry. */
  const serve = (request: EmulatorHttpRequest, body: unknown, raw: string, response: ServerResponse): number => {
    const match = OPERATION_PATH.exec(request.path);
    if (request.method !== 'POST' || !match) {
      return sendServiceError(response, 404, 'UnknownOperationException', JSON.stringify({ message: null }));
    }
    const authorization = request.headers.authorization ?? '';
    if (!authorization.startsWith('AWS4-HMAC-SHA256 Credential=') && !authorization.startsWith('Bearer ')) {
      return sendServiceError(
        response,
        403,
        'MissingAuthenticationTokenException',
        JSON.stringify({ message: 'Missing Authentication Token' }),
      );
    }
    const modelId = decodeURIComponent(match[1] ?? '');
    const streaming = match[2] === 'converse-stream';
    const fault = faults.take();
    if (fault?.kind === 'status') {
      const text = fault.body ?? JSON.stringify({ message: `Injected fault: HTTP ${fault.status}` });
      if (fault.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(fault.retryAfterSeconds));
      return sendServiceError(response, fault.status, errorTypeForStatus(fault.status), text);
    }
    if (isHostileFault(fault)) {
      void serveHostileFault(fault, request, response, BEDROCK_HOSTILE_DIALECT);
      return 200;
    }
    if (!isJsonObject(body)) {
      return sendServiceError(
        response,
        400,
        'SerializationException',
        JSON.stringify({ message: 'Malformed request body' }),
      );
    }
    const violation = validateConverseBody(modelId, body, secret);
    if (violation)
      return sendServiceError(response, 400, 'ValidationException', JSON.stringify({ message: violation.message }));

    const input = scriptInputFromConverse(body, secret);
    const output = runScript(input);
    const lastUser = [...input.messages].reverse().find((message) => message.role === 'user');
    const family = emulatedFamily(modelId);
    let issue: ReasoningIssue = 'unsigned';
    if (family === 'claude') {
      if (!thinkingRequested(body)) issue = 'none';
      else issue = (lastUser?.text ?? '').includes(REDACTED_TRIGGER) ? 'redacted' : 'signed';
    }
    const blocks = answerBlocks(output, issue, secret);
    if (!streaming) {
      if (fault?.kind === 'drop-mid-stream') {
        response.destroy();
        return 0;
      }
      return sendJson(response, 200, converseResponse(blocks, output, raw), { 'x-amzn-requestid': randomUUID() });
    }
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomUUID() });
    const frames = converseStreamFrames(blocks, output, raw);
    if (fault !== undefined) {
      for (const frame of frames.slice(0, 3)) response.write(frame);
      if (fault.kind === 'drop-mid-stream') response.destroy();
      else if (fault.kind === 'error-chunk')
        response.end(exceptionFrame('modelStreamErrorException', 'Injected fault: model stream error'));
      else response.end(Buffer.from('not an event-stream frame'));
      return 200;
    }
    for (const frame of frames) response.write(frame);
    response.end();
    return 200;
  };

  const server = await startLoopbackServer({
    handler,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  return { baseUrl: server.origin, port: server.port, requests, faults, close: () => server.close() };
}

/** Bedrock ConverseStream shapes of the hostile faults (AWS event stream, WIRE.md §3.3). */
const BEDROCK_HOSTILE_DIALECT: HostileDialect = {
  streamContentType: 'application/vnd.amazon.eventstream',
  preamble: () => [eventFrame('messageStart', { role: 'assistant' })],
  deltaFrame: (text) => eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }),
  errorFrame: (message) => exceptionFrame('validationException', message),
  malformedFrame: (text) => Buffer.from(`not an event-stream frame ${text}`),
  errorBody: (message) => ({ message }),
};
