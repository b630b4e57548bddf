import type { ServerResponse } from 'node:http';
import { UsageError } from '../../core/errors.js';
import { runScript } from '../shared/scripted-model.js';
import { handleControlRequest } from '../shared/emulator-control-routes.js';
import type { Fault } from '../shared/emulator-faults.js';
import { FaultQueue } from '../shared/emulator-faults.js';
import type { EmulatorHttpRequest } from '../shared/emulator-http-server.js';
import { sendJson, startLoopbackServer } from '../shared/emulator-http-server.js';
import type { ReceivedRequest } from '../shared/emulator-request-log.js';
import { keepRequest, receivedRequestFrom } from '../shared/emulator-request-log.js';
import { EmulatorSseWriter } from '../shared/emulator-sse-writer.js';
import { isHostileFault } from '../shared/emulator-hostile-faults.js';
import { serveHostileFault, type HostileDialect } from '../shared/emulator-hostile.js';
import type { EmulatorAnswer } from './chat-emulator-errors.js';
import { estimateRequestTokens, parseChatRequest } from './chat-emulator-request.js';
import type { ChatWireRequest } from './chat-emulator-request.js';
import type { CompletionFrame } from './chat-emulator-response.js';
import { completionBody, errorChunk, scriptInputFor, streamChunks, usageFor } from './chat-emulator-response.js';
import type { ChatEmulatorOptions, RunningChatEmulator } from './chat-emulator-types.js';
import { CHAT_PERSONA_NAMES, isChatPersonaName } from './chat-emulator-types.js';
import { chatEffortAnswer, findKeyRejections } from './chat-emulator-validate.js';
import type { ChatPersona } from './chat-persona.js';
import { CARRIER_KEYS } from './chat-persona.js';
import { CHAT_PERSONAS } from './chat-persona-table.js';

export type {
  ChatEmulatorOptions,
  ChatPersonaName,
  Fault,
  ReceivedRequest,
  RunningChatEmulator,
} from './chat-emulator-types.js';
export { CHAT_PERSONA_NAMES, isChatPersonaName } from './chat-emulator-types.js';

/**
 * The OpenAI-compatible provider emulator: a loopback server speaking `POST /v1/chat/completions`
 * (also `/chat/completions` under any prefix, such as Gemini's `/v1beta/openai`) and `GET /v1/models`, streaming and not, driven by the scripted
 * model, playing one provider persona (its carriers, its validation, its exact errors).
 *
 * Pipeline per request: log the exact bytes → consume a queued fault → parse → context window →
 * effort rules → schema (unknown / rejected keys) → replay rules (must-echo, signatures) → script → answer.
 */

/** Chunks sent before a stream fault strikes, so the client has a half message in hand. */
const CHUNKS_BEFORE_FAULT = 3;

/** One line per persona, for `--help`. */
export function chatPersonaSummaries(): { name: string; summary: string }[] {
  return CHAT_PERSONA_NAMES.map((name) => ({ name, summary: CHAT_PERSONAS[name].summary }));
}

/** Starts a chat-completions emulator for one persona. */
export async function startChatEmulator(options: ChatEmulatorOptions): Promise<RunningChatEmulator> {
  if (!isChatPersonaName(options.persona)) {
    throw new UsageError(
      `unknown chat persona "${String(options.persona)}" (expected one of: ${CHAT_PERSONA_NAMES.join(', ')})`,
    );
  }
  const persona = CHAT_PERSONAS[options.persona];
  const requests: ReceivedRequest[] = [];
  const faults = new FaultQueue(options.faults ?? []);
  const rejectedKeys = new Set(options.rejectKeys ?? []);
  if (options.rejectAlways === true) for (const key of CARRIER_KEYS) rejectedKeys.add(key);
  const listedModel = options.model ?? persona.defaultModel;
  let completions = 0;

  const handleCompletion = async (request: EmulatorHttpRequest, response: ServerResponse): Promise<void> => {
    const { entry, body } = receivedRequestFrom(request);
    keepRequest(requests, entry, options.requestLog);
    const answer = (result: EmulatorAnswer): void => {
      entry.status = sendJson(response, result.status, result.body, result.headers);
    };
    const fault = faults.take();
    if (fault?.kind === 'status') return answer(statusFaultAnswer(persona, fault));
    if (isHostileFault(fault)) {
      entry.status = await serveHostileFault(fault, request, response, CHAT_HOSTILE_DIALECT);
      return;
    }
    const parsed = parseChatRequest(body);
    if (typeof parsed === 'string') return answer(persona.errorEnvelope(400, parsed));
    if (options.contextWindow !== undefined) {
      const used = estimateRequestTokens(parsed);
      if (used > options.contextWindow) {
        return answer(persona.errorEnvelope(400, persona.contextLengthMessage(options.contextWindow, used)));
      }
    }
    const effortAnswer = chatEffortAnswer(persona, options, body);
    if (effortAnswer) return answer(effortAnswer);
    const context = { request: parsed, raw: entry.raw, rejectedKeys };
    const rejections = findKeyRejections(parsed.messages, persona, rejectedKeys);
    if (rejections.length > 0) return answer(persona.rejectKeys(rejections, context));
    const replayError = persona.checkReplay(context);
    if (replayError) return answer(replayError);

    completions += 1;
    const frame: CompletionFrame = {
      id: `chatcmpl-${persona.name}-${String(completions).padStart(6, '0')}`,
      created: Math.floor(Date.now() / 1000),
      model: parsed.model ?? listedModel,
    };
    if (parsed.stream) {
      await writeStream(persona, parsed, frame, response, fault, (status) => (entry.status = status));
      return;
    }
    const output = runScript(scriptInputFor(parsed, persona));
    const completion = completionBody(persona, frame, output, usageFor(parsed, output));
    if (fault?.kind === 'drop-mid-stream') {
      // A non-streaming request has no "mid-stream": the connection drops before any answer.
      response.socket?.destroy();
      return;
    }
    if (fault?.kind === 'malformed-chunk') {
      entry.status = sendJson(response, 200, JSON.stringify(completion).slice(0, 40));
      return;
    }
    if (fault?.kind === 'error-chunk') {
      entry.status = sendJson(response, 200, errorChunk(persona, frame));
      return;
    }
    entry.status = sendJson(response, 200, completion);
  };

  const server = await startLoopbackServer({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    handler: async (request, response) => {
      if (handleControlRequest(request, response, { requests, faults })) return;
      if (
        request.method === 'POST' &&
        // Also under a provider's own prefix, so a real base URL reaches it through connect-to
        // (Gemini's `/v1beta/openai/chat/completions`, Copilot's `/chat/completions`).
        request.path.endsWith('/chat/completions')
      ) {
        await handleCompletion(request, response);
      } else if (request.method === 'GET' && (request.path === '/v1/models' || request.path === '/models')) {
        sendJson(response, 200, {
          object: 'list',
          data: [{ id: listedModel, object: 'model', created: 1_700_000_000, owned_by: persona.name }],
        });
      } else {
        const notFound = persona.errorEnvelope(404, `Unknown request URL: ${request.method} ${request.path}.`);
        sendJson(response, notFound.status, notFound.body);
      }
    },
  });

  return {
    baseUrl: `${server.origin}/v1`,
    port: server.port,
    persona: options.persona,
    requests,
    addFault: (fault: Fault) => faults.add(fault),
    close: () => server.close(),
  };
}

/** A `status` fault: the given body, or the persona's envelope for that status. */
function statusFaultAnswer(persona: ChatPersona, fault: Extract<Fault, { kind: 'status' }>): EmulatorAnswer {
  const base =
    fault.body === undefined
      ? persona.errorEnvelope(fault.status, defaultStatusMessage(fault.status))
      : { status: fault.status, body: fault.body };
  const headers: Record<string, string> = { ...(base.headers ?? {}) };
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  return { status: fault.status, body: base.body, headers };
}

function defaultStatusMessage(status: number): string {
  if (status === 429) return 'Rate limit reached for requests. Please retry after the time given in retry-after.';
  if (status === 503) return 'The service is temporarily overloaded. Please try again later.';
  if (status >= 500) return 'The server had an error while processing your request. Sorry about that!';
  return `Request failed with status ${status}.`;
}

async function writeStream(
  persona: ChatPersona,
  request: ChatWireRequest,
  frame: CompletionFrame,
  response: ServerResponse,
  fault: Fault | undefined,
  setStatus: (status: number) => void,
): Promise<void> {
  const output = runScript(scriptInputFor(request, persona));
  const chunks = streamChunks(persona, frame, output, usageFor(request, output));
  const writer = new EmulatorSseWriter(response);
  writer.start(200);
  setStatus(200);
  const faultAt = Math.min(CHUNKS_BEFORE_FAULT, chunks.length - 1);
  if (persona.streamComment !== undefined) writer.comment(persona.streamComment);
  for (const [position, chunk] of chunks.entries()) {
    if (fault !== undefined && position === faultAt) {
      if (fault.kind === 'drop-mid-stream') return writer.destroy();
      if (fault.kind === 'malformed-chunk') writer.raw('data: {not json\n\n');
      if (fault.kind === 'error-chunk') {
        writer.data(errorChunk(persona, frame));
        writer.data('[DONE]');
        return writer.end();
      }
    }
    writer.data(chunk);
  }
  writer.data('[DONE]');
  writer.end();
}

/** Chat-completions shapes of the hostile faults (OpenRouter-style in-band errors, WIRE.md §1.7). */
const CHAT_HOSTILE_DIALECT: HostileDialect = {
  preamble: () => [
    sseData({
      id: 'chatcmpl-hostile',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    }),
  ],
  deltaFrame: (text) =>
    sseData({
      id: 'chatcmpl-hostile',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
    }),
  errorFrame: (message) => sseData({ error: { code: 401, message } }),
  malformedFrame: (text) => `data: {not json ${text}\n\n`,
  errorBody: (message) => ({ error: { code: 401, message } }),
};

function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}
