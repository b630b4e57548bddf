import {
  DISABLING_THINKING_REFUSED_MESSAGE,
  effortRefusal,
  type EmulatedEffortRules,
  openAiEffortMessage,
  responsesSentEffort,
} from '../shared/emulator-effort.js';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { handleControlRequest } from '../shared/emulator-control-routes.js';
import { isHostileFault } from '../shared/emulator-hostile-faults.js';
import { serveHostileFault, type HostileDialect } from '../shared/emulator-hostile.js';
import { FaultQueue } from '../shared/emulator-faults.js';
import type { Fault } from '../shared/emulator-faults.js';
import { sendJson, startLoopbackServer } from '../shared/emulator-http-server.js';
import type { EmulatorHttpRequest } from '../shared/emulator-http-server.js';
import { keepRequest, receivedRequestFrom } from '../shared/emulator-request-log.js';
import type { ReceivedRequest, RequestLogLimits } from '../shared/emulator-request-log.js';
import { EmulatorSseWriter } from '../shared/emulator-sse-writer.js';
import { estimateTokens, splitIntoFragments } from '../shared/emulator-text.js';
import { runScript, sealReasoning } from '../shared/scripted-model.js';
import { type EncryptedRejectionWording, rewordEncryptedRejection } from './responses-emulator-wording.js';
import type { ScriptOutput } from '../shared/scripted-model.js';
import {
  ANY_FOLLOWER,
  compactThresholdOf,
  scriptMessagesFromInput,
  sealCompactionBlob,
  sealReasoningBlob,
  unknownParameterError,
} from './responses-emulator-input.js';

/**
 * `hermes emulate responses`: a loopback OpenAI Responses API (`POST /v1/responses`, streaming
 * and not) driven by the shared scripted model. It mints issuer-bound `encrypted_content`,
 * verifies it on later turns, and answers the exact errors of WIRE.md §5.5.
 */

// ---------------------------------------------------------------------------------------------
// Options and handle
// ---------------------------------------------------------------------------------------------

/**
 * A reasoning-only answer (SPEC §24.6), the shapes real hosts send: `summary-only` (a reasoning
 * item and nothing after it), `temporary-id` (the same with an `rs_tmp_` id, never stored) and
 * `max-output-tokens` (`status: "incomplete"`, reason `max_output_tokens`, cut after reasoning).
 */
export type ResponsesReasoningOnlyShape = 'summary-only' | 'temporary-id' | 'max-output-tokens';

/** Options of {@link startResponsesEmulator}. */
export interface ResponsesEmulatorOptions extends EmulatedEffortRules {
  /** How much of the request log to keep (default: all of it). */
  requestLog?: RequestLogLimits | undefined;
  host?: string;
  port?: number;
  /** Issuer identity: blobs minted under one issuer fail verification under another. Default `openai`. */
  issuer?: string;
  /** How a refused `encrypted_content` is worded (WIRE §8): OpenAI's (default), a relay's, xAI's. */
  encryptedRejection?: EncryptedRejectionWording;
  /** Emulate GitHub Copilot: `output_item.added` and `.done` carry different item ids (WIRE.md §5.3). */
  rotateIds?: boolean;
  /** Faults consumed one per model request, in order. */
  faults?: readonly Fault[];
  /**
   * Reasoning-only answers (SPEC §24.6), consumed one per model request that passes validation,
   * in order; later requests are answered normally.
   */
  reasoningOnly?: readonly ResponsesReasoningOnlyShape[];
  /**
   * Refuse `context_management` with OpenAI's 400 `Unknown parameter: 'context_management'.`, as
   * a deployment without native compaction does (SPEC §24.7). Default false: it is honoured.
   */
  rejectContextManagement?: boolean;
}

/** A running Responses emulator. */
export interface ResponsesEmulator {
  /** Base URL to configure a route with, e.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  port: number;
  /** Every model request received (auth redacted), with the status answered. */
  requests: ReceivedRequest[];
  /** Queue more faults. */
  faults: FaultQueue;
  /** Reasoning-only answers still queued (push to queue more). */
  reasoningOnly: ResponsesReasoningOnlyShape[];
  close(): Promise<void>;
}

/** Starts the emulator on 127.0.0.1 (port 0 = ephemeral by default). */
export async function startResponsesEmulator(options: ResponsesEmulatorOptions = {}): Promise<ResponsesEmulator> {
  const requests: ReceivedRequest[] = [];
  const faults = new FaultQueue(options.faults ?? []);
  const issuer = options.issuer ?? 'openai';
  const reasoningOnly = [...(options.reasoningOnly ?? [])];
  const server = await startLoopbackServer({
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.port === undefined ? {} : { port: options.port }),
    handler: async (request, response) => {
      if (handleControlRequest(request, response, { requests, faults })) return;
      await handleModelRequest(request, response, {
        requests,
        requestLog: options.requestLog,
        faults,
        issuer,
        rotateIds: options.rotateIds ?? false,
        encryptedRejection: options.encryptedRejection ?? 'openai',
        reasoningOnly,
        rejectContextManagement: options.rejectContextManagement ?? false,
        effortRules: options,
      });
    },
  });
  return {
    baseUrl: `${server.origin}/v1`,
    port: server.port,
    requests,
    faults,
    reasoningOnly,
    close: () => server.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Request handling
// ---------------------------------------------------------------------------------------------

const RESPONSES_PATHS = new Set([
  '/v1/responses',
  '/responses',
  '/openai/v1/responses',
  // The ChatGPT Codex backend (`https://chatgpt.com/backend-api/codex`), where Codex CLI sends
  // requests when signed in with ChatGPT; reached through HERMES_CONNECT_TO in tests.
  '/backend-api/codex/responses',
]);

interface EmulatorState {
  requests: ReceivedRequest[];
  requestLog: RequestLogLimits | undefined;
  faults: FaultQueue;
  issuer: string;
  rotateIds: boolean;
  encryptedRejection: EncryptedRejectionWording;
  reasoningOnly: ResponsesReasoningOnlyShape[];
  rejectContextManagement: boolean;
  effortRules: EmulatedEffortRules;
}

function invalid(message: string, param: string | null = null): JsonObject {
  return { error: { message, type: 'invalid_request_error', param, code: null } };
}

async function handleModelRequest(
  request: EmulatorHttpRequest,
  response: ServerResponse,
  state: EmulatorState,
): Promise<void> {
  const { entry, body } = receivedRequestFrom(request);
  keepRequest(state.requests, entry, state.requestLog);
  const answer = (status: number, payload: unknown) => {
    entry.status = sendJson(response, status, payload);
  };
  // `/openai/v1/responses` is Azure OpenAI's v1 path (SPEC §24.5 tests route an Azure host here).
  if (request.method !== 'POST' || !RESPONSES_PATHS.has(request.path)) {
    return answer(404, invalid(`Invalid URL (${request.method} ${request.path})`));
  }
  const fault = state.faults.take();
  if (fault?.kind === 'status') {
    entry.status = sendJson(response, fault.status, fault.body ?? invalid(`injected HTTP ${fault.status}`), {
      ...(fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) }),
    });
    return;
  }
  if (isHostileFault(fault)) {
    entry.status = await serveHostileFault(fault, request, response, RESPONSES_HOSTILE_DIALECT);
    return;
  }
  if (!isJsonObject(body)) return answer(400, invalid('We could not parse the JSON body of your request.'));
  if (typeof body['model'] !== 'string' || body['model'] === '') {
    return answer(400, {
      error: {
        message: "Missing required parameter: 'model'.",
        type: 'invalid_request_error',
        param: 'model',
        code: 'missing_required_parameter',
      },
    });
  }
  if (body['context_management'] !== undefined && state.rejectContextManagement) {
    const refused = unknownParameterError('context_management');
    return answer(refused.status, refused.body);
  }
  const refusal = effortRefusal(state.effortRules, responsesSentEffort(body));
  if (refusal?.kind === 'off') return answer(400, invalid(DISABLING_THINKING_REFUSED_MESSAGE, 'reasoning.effort'));
  if (refusal) {
    const message = openAiEffortMessage(refusal);
    return answer(400, {
      error: { message, type: 'invalid_request_error', param: 'reasoning.effort', code: 'unsupported_value' },
    });
  }
  const compactThreshold = compactThresholdOf(body['context_management']);
  if (typeof compactThreshold === 'object') return answer(compactThreshold.status, compactThreshold.body);
  const messages = scriptMessagesFromInput(body['input'], state.issuer);
  if (!Array.isArray(messages)) {
    const refused = rewordEncryptedRejection(messages, state.encryptedRejection);
    return answer(refused.status, refused.body);
  }
  const tools = (Array.isArray(body['tools']) ? body['tools'] : [])
    .filter(isJsonObject)
    .map((tool) => (typeof tool['name'] === 'string' ? tool['name'] : ''));
  const output = runScript({ messages, tools });
  const include = Array.isArray(body['include']) ? body['include'] : [];
  const built = buildOutput(output, {
    issuer: state.issuer,
    encrypted: include.includes('reasoning.encrypted_content'),
    model: body['model'],
    inputText: entry.raw,
    reasoningOnly: state.reasoningOnly.shift(),
    compactThreshold,
  });
  if (body['stream'] === true) {
    entry.status = 200;
    await streamOutput(response, built, state.rotateIds, fault);
    return;
  }
  answer(200, built.completed);
}

// ---------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------

interface BuiltOutput {
  /** The final response object (non-streaming body, and `response.completed`). */
  completed: JsonObject;
  /** Final items with the provisional blob each reasoning item shows in `output_item.added`. */
  items: { item: JsonObject; provisionalEncrypted: string | null }[];
  reasoning: string;
}

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

/**
 * What a reasoning-only answer (SPEC §24.6) says: its own sealed reasoning and nothing else. Its
 * blob accepts any assistant follower: the continuation decides what comes after it.
 */
function reasoningOnlyOutput(shape: ResponsesReasoningOnlyShape): ScriptOutput {
  return { reasoning: sealReasoning(`Reasoning only, no answer yet (${shape}).`), content: '', toolCalls: [] };
}

function buildOutput(
  scripted: ScriptOutput,
  options: {
    issuer: string;
    encrypted: boolean;
    model: string;
    inputText: string;
    reasoningOnly: ResponsesReasoningOnlyShape | undefined;
    compactThreshold: number | undefined;
  },
): BuiltOutput {
  const shape = options.reasoningOnly;
  const output = shape === undefined ? scripted : reasoningOnlyOutput(shape);
  const items: BuiltOutput['items'] = [];
  const inputTokens = estimateTokens(options.inputText);
  // SPEC §24.7: past the requested threshold the server compacts first, then answers.
  if (options.compactThreshold !== undefined && inputTokens > options.compactThreshold) {
    const encrypted = sealCompactionBlob(options.issuer, `compacted ${inputTokens} input tokens`);
    items.push({
      item: { id: newId('cmp'), type: 'compaction', encrypted_content: encrypted },
      provisionalEncrypted: null,
    });
  }
  const reasoningId = newId(shape === 'temporary-id' ? 'rs_tmp' : 'rs');
  const next = shape !== undefined ? ANY_FOLLOWER : (output.toolCalls[0]?.id ?? 'message');
  const seal = (provisional: boolean) =>
    sealReasoningBlob(options.issuer, {
      id: reasoningId,
      text: provisional ? '' : output.reasoning,
      next,
      provisional,
    });
  items.push({
    item: {
      id: reasoningId,
      type: 'reasoning',
      encrypted_content: options.encrypted ? seal(false) : null,
      summary: [{ type: 'summary_text', text: output.reasoning }],
    },
    provisionalEncrypted: options.encrypted ? seal(true) : null,
  });
  if (shape === undefined && (output.content !== '' || output.toolCalls.length === 0)) {
    items.push({
      item: {
        id: newId('msg'),
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: output.content }],
        phase: 'final_answer',
        role: 'assistant',
      },
      provisionalEncrypted: null,
    });
  }
  for (const call of output.toolCalls) {
    items.push({
      item: {
        id: newId('fc'),
        type: 'function_call',
        status: 'completed',
        arguments: call.arguments,
        call_id: call.id,
        name: call.name,
      },
      provisionalEncrypted: null,
    });
  }
  const reasoningTokens = estimateTokens(output.reasoning);
  const outputTokens =
    reasoningTokens +
    estimateTokens(output.content) +
    output.toolCalls.reduce((sum, call) => sum + estimateTokens(call.arguments), 0);
  const completed: JsonObject = {
    id: newId('resp'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: shape === 'max-output-tokens' ? 'incomplete' : 'completed',
    ...(shape === 'max-output-tokens' ? { incomplete_details: { reason: 'max_output_tokens' } } : {}),
    model: options.model,
    output: items.map(({ item }) => item),
    store: false,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: inputTokens + outputTokens,
    },
  };
  return { completed, items, reasoning: output.reasoning };
}

/**
 * The real event sequence (WIRE.md §5.3): `response.created`, `response.in_progress`, per item
 * `output_item.added` (reasoning with a DIFFERENT, provisional `encrypted_content`), summary /
 * text / argument deltas, `output_item.done` (final values), then `response.completed`.
 */
async function streamOutput(
  response: ServerResponse,
  built: BuiltOutput,
  rotateIds: boolean,
  fault: Fault | undefined,
): Promise<void> {
  const writer = new EmulatorSseWriter(response);
  let sequence = 0;
  const send = (payload: JsonObject) =>
    writer.data({ ...payload, sequence_number: sequence++ }, String(payload['type']));
  const inProgress = { ...built.completed, status: 'in_progress', output: [], usage: null };
  send({ type: 'response.created', response: inProgress });
  send({ type: 'response.in_progress', response: inProgress });
  if (fault?.kind === 'drop-mid-stream') return writer.destroy();
  if (fault?.kind === 'malformed-chunk') {
    writer.raw('data: {not json\n\n');
    return writer.end();
  }
  if (fault?.kind === 'error-chunk') {
    send({
      type: 'error',
      code: 'server_error',
      message: 'The server had an error while processing your request.',
      param: null,
    });
    return writer.end();
  }
  built.items.forEach(({ item, provisionalEncrypted }, outputIndex) => {
    const itemId = String(item['id']);
    // Copilot hands out a fresh id on every event of the same item (WIRE.md §5.3).
    const eventId = () => (rotateIds ? newId(itemId.split('_')[0] ?? 'item') : itemId);
    if (item['type'] === 'compaction') {
      send({ type: 'response.output_item.added', output_index: outputIndex, item });
    } else if (item['type'] === 'reasoning') {
      const text = built.reasoning;
      send({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { id: eventId(), type: 'reasoning', encrypted_content: provisionalEncrypted, summary: [] },
      });
      const part = { item_id: eventId(), output_index: outputIndex, summary_index: 0 };
      send({ type: 'response.reasoning_summary_part.added', ...part, part: { type: 'summary_text', text: '' } });
      for (const delta of splitIntoFragments(text))
        send({ type: 'response.reasoning_summary_text.delta', ...part, delta });
      send({ type: 'response.reasoning_summary_text.done', ...part, text });
      send({ type: 'response.reasoning_summary_part.done', ...part, part: { type: 'summary_text', text } });
    } else if (item['type'] === 'message') {
      const text = textOfMessage(item);
      send({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, id: eventId(), status: 'in_progress', content: [] },
      });
      const part = { item_id: eventId(), output_index: outputIndex, content_index: 0 };
      send({
        type: 'response.content_part.added',
        ...part,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
      for (const delta of splitIntoFragments(text))
        send({ type: 'response.output_text.delta', ...part, delta, logprobs: [] });
      send({ type: 'response.output_text.done', ...part, text, logprobs: [] });
      send({
        type: 'response.content_part.done',
        ...part,
        part: { type: 'output_text', annotations: [], logprobs: [], text },
      });
    } else {
      const argumentsText = String(item['arguments']);
      send({
        type: 'response.output_item.added',
        output_index: outputIndex,
        item: { ...item, id: eventId(), status: 'in_progress', arguments: '' },
      });
      const part = { item_id: eventId(), output_index: outputIndex };
      for (const delta of splitIntoFragments(argumentsText, 8))
        send({ type: 'response.function_call_arguments.delta', ...part, delta });
      send({ type: 'response.function_call_arguments.done', ...part, arguments: argumentsText });
    }
    send({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  const incomplete = built.completed['status'] === 'incomplete';
  send({ type: incomplete ? 'response.incomplete' : 'response.completed', response: built.completed });
  writer.end();
}

function textOfMessage(item: JsonObject): string {
  const content = Array.isArray(item['content']) ? item['content'] : [];
  return content
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function responsesFrame(payload: Record<string, unknown>): string {
  return `event: ${String(payload['type'])}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Responses API shapes of the hostile faults (WIRE.md §5). */
const RESPONSES_HOSTILE_DIALECT: HostileDialect = {
  preamble: () => [
    responsesFrame({ type: 'response.created', response: { id: 'resp_hostile', status: 'in_progress', output: [] } }),
    responsesFrame({
      type: 'response.output_item.added',
      output_index: 0,
      item: { id: 'msg_hostile', type: 'message', role: 'assistant', content: [] },
    }),
  ],
  deltaFrame: (text, index) =>
    responsesFrame({
      type: 'response.output_text.delta',
      item_id: 'msg_hostile',
      output_index: 0,
      content_index: 0,
      delta: text,
      sequence_number: index + 2,
    }),
  errorFrame: (message) => responsesFrame({ type: 'error', code: 'invalid_api_key', message, param: null }),
  malformedFrame: (text) => `data: {not json ${text}\n\n`,
  errorBody: (message) => ({ error: { message, type: 'invalid_request_error', code: 'invalid_api_key', param: null } }),
};
