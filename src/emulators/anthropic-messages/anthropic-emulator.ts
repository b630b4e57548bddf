/**
 * `hermes emulate anthropic`: a loopback Anthropic Messages emulator driven by the scripted model.
 * Framings: direct (`POST /v1/messages`, `x-api-key`, SSE with `event:` lines) and Bedrock
 * InvokeModel (`POST /model/{id}/invoke[-with-response-stream]`, any SigV4 `Authorization`, AWS
 * event-stream `chunk` frames). Thinking signatures are HMACs over the thinking text and the system
 * prompt; later turns are verified and answered with Anthropic's exact 400 texts (WIRE.md §2.6).
 * User text containing {@link REDACTED_THINKING_TRIGGER} gets a `redacted_thinking` block.
 */
import {
  anthropicEffortMessage,
  DISABLING_THINKING_REFUSED_MESSAGE,
  effortRefusal,
  type EmulatedEffortRules,
  type SentEffort,
} from '../shared/emulator-effort.js';
import type { ServerResponse } from 'node:http';
import { handleControlRequest } from '../shared/emulator-control-routes.js';
import { invokeModelChunkFrame } from '../shared/emulator-event-stream.js';
import { isHostileFault } from '../shared/emulator-hostile-faults.js';
import { serveHostileFault, type HostileDialect } from '../shared/emulator-hostile.js';
import { FaultQueue } from '../shared/emulator-faults.js';
import { type EmulatorHttpRequest, sendJson, startLoopbackServer } from '../shared/emulator-http-server.js';
import {
  keepRequest,
  type ReceivedRequest,
  receivedRequestFrom,
  type RequestLogLimits,
} from '../shared/emulator-request-log.js';
import { EmulatorSseWriter } from '../shared/emulator-sse-writer.js';
import { estimateTokens, splitIntoFragments } from '../shared/emulator-text.js';
import { runScript } from '../shared/scripted-model.js';
import { emulatedModelKeepsPriorThinking } from './anthropic-emulator-models.js';
import { checkAnthropicRequest, type AnthropicEmulatorFraming } from './anthropic-emulator-rules.js';
import {
  checkCompaction,
  compactionBetaSent,
  issueCompaction,
  sendCompaction,
} from './anthropic-emulator-compaction.js';
import {
  type AnthropicBindingMode,
  BINDING_BETA,
  type BindingTransformation,
  emulatedAnswerPrefixHash,
  emulatedChainBefore,
  sealBoundRedacted,
  signBoundThinking,
} from './anthropic-emulator-binding.js';
import {
  DEFAULT_ANTHROPIC_EMULATOR_SECRET,
  REDACTED_THINKING_TRIGGER,
  sealRedactedThinking,
  signThinking,
} from './anthropic-emulator-signing.js';

export { REDACTED_THINKING_TRIGGER };

/** Options of {@link startAnthropicEmulator} (with the emulated model's effort rules, `acceptEfforts` / `alwaysThinks`). */
export interface AnthropicEmulatorOptions extends EmulatedEffortRules {
  /** How much of the request log to keep (default: all of it). */
  requestLog?: RequestLogLimits | undefined;
  host?: string;
  port?: number;
  secret?: string;
  /** Per-model "keeps prior thinking" (default: the emulator's own table, SPEC §9.1). */
  keepsPriorThinking?: (model: string) => boolean;
  /** Fault knob: 1-based request numbers whose signed blocks are rejected (error 2.6b). */
  rejectSignaturesOnRequests?: readonly number[];
  /** Answer error 2.6b with the 2026-09 "bound to a different conversation" wording. */
  boundSignatureWording?: boolean;
  /**
   * Thinking-block binding (anthropic-emulator-binding.ts): signatures bind the model and the
   * prefix, and a block whose prefix changed is refused with a 400 (`error`) or dropped and listed
   * in `input_transformations` (`drop_block`), unless the request declares its own behaviour.
   */
  binding?: AnthropicBindingMode;
}

/** What the binding rules did, for tests and the emulator's operator. */
export interface AnthropicBindingLog {
  /** Requests refused with "The block is bound to a different conversation". */
  rejections: number;
  /** Blocks dropped from requests, by 1-based request number. */
  drops: (BindingTransformation & { request: number })[];
}

/** A running emulator. */
export interface AnthropicEmulator {
  baseUrl: string;
  port: number;
  requests: ReceivedRequest[];
  /** Queue "reject signatures" for the request with this 1-based number. */
  rejectSignaturesOnRequest(requestNumber: number): void;
  /** Faults consumed one per model request (the hostile ones on the direct framing). */
  faults: FaultQueue;
  /** What the binding rules refused and dropped (empty without {@link AnthropicEmulatorOptions.binding}). */
  binding: AnthropicBindingLog;
  close(): Promise<void>;
}

type Block = Record<string, unknown>;

const BEDROCK_PATH = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

/** Starts the emulator on loopback (port 0 by default). */
export async function startAnthropicEmulator(options: AnthropicEmulatorOptions = {}): Promise<AnthropicEmulator> {
  const requests: ReceivedRequest[] = [];
  const faults = new FaultQueue();
  const rejectOn = new Set(options.rejectSignaturesOnRequests ?? []);
  const secret = options.secret ?? DEFAULT_ANTHROPIC_EMULATOR_SECRET;
  const bindingLog: AnthropicBindingLog = { rejections: 0, drops: [] };
  let modelRequests = 0;

  const handler = (request: EmulatorHttpRequest, response: ServerResponse): void => {
    if (handleControlRequest(request, response, { requests, faults })) return;
    const { entry, body } = receivedRequestFrom(request);
    keepRequest(requests, entry, options.requestLog);
    modelRequests += 1;
    const bedrock = BEDROCK_PATH.exec(request.path);
    const framing: AnthropicEmulatorFraming = bedrock ? 'bedrock' : 'direct';
    const requestId = `req_emu_${String(modelRequests).padStart(4, '0')}`;
    const fail = (status: number, message: string, type = 'invalid_request_error') => {
      entry.status =
        framing === 'bedrock'
          ? sendJson(
              response,
              status,
              { message },
              {
                'x-amzn-errortype': status === 403 ? 'AccessDeniedException' : 'ValidationException',
                'x-amzn-requestid': requestId,
              },
            )
          : sendJson(
              response,
              status,
              { type: 'error', error: { type, message }, request_id: requestId },
              { 'request-id': requestId },
            );
    };

    // MiniMax serves the Messages API under `/anthropic` (SPEC §24.2).
    if (
      request.method !== 'POST' ||
      (!bedrock && request.path !== '/v1/messages' && request.path !== '/anthropic/v1/messages')
    )
      return fail(404, `Not found: ${request.method} ${request.path}`, 'not_found_error');
    if (framing === 'direct') {
      if (!request.headers['x-api-key']) return fail(401, 'x-api-key header is required', 'authentication_error');
      if (!request.headers['anthropic-version']) return fail(400, 'anthropic-version: header is required');
    } else if (!String(request.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 Credential=')) {
      return fail(403, 'Missing Authentication Token');
    }
    const fault = faults.take();
    if (fault?.kind === 'status') {
      // Anthropic's error types per status (WIRE.md §2): 429 rate_limit_error, 529 overloaded_error, 5xx api_error.
      if (fault.retryAfterSeconds !== undefined) response.setHeader('retry-after', String(fault.retryAfterSeconds));
      if (fault.body !== undefined) {
        response.writeHead(fault.status, { 'content-type': 'application/json', 'request-id': requestId });
        response.end(fault.body);
        entry.status = fault.status;
        return;
      }
      return fail(fault.status, `emulated HTTP ${fault.status}`, anthropicErrorType(fault.status));
    }
    if (isHostileFault(fault) && framing === 'direct') {
      void serveHostileFault(fault, request, response, ANTHROPIC_HOSTILE_DIALECT).then((status) => {
        entry.status = status;
      });
      return;
    }
    const refusal = effortRefusal(options, anthropicSentEffort(body));
    if (refusal) {
      return fail(400, refusal.kind === 'off' ? DISABLING_THINKING_REFUSED_MESSAGE : anthropicEffortMessage(refusal));
    }
    const model = bedrock ? decodeURIComponent(bedrock[1] ?? '') : String((body as Block | undefined)?.['model'] ?? '');
    const beta = bindingBetaSent(request.headers['anthropic-beta'], body);
    const compaction = checkCompaction((body ?? {}) as Block, {
      secret,
      model,
      beta: compactionBetaSent(request.headers['anthropic-beta']),
      bedrock: framing === 'bedrock',
    });
    if (!compaction.ok) return fail(compaction.status, compaction.message);
    const checked = checkAnthropicRequest(body, {
      framing,
      secret,
      model,
      keepsPriorThinking: options.keepsPriorThinking ?? emulatedModelKeepsPriorThinking,
      rejectSignatures: rejectOn.has(modelRequests),
      boundWording: options.boundSignatureWording ?? false,
      binding: options.binding
        ? { secret, model, mode: options.binding, beta, bedrock: framing === 'bedrock' }
        : undefined,
    });
    if (!checked.ok) {
      if (checked.bound) bindingLog.rejections += 1;
      return fail(checked.status, checked.message);
    }
    for (const entry of checked.transformations) bindingLog.drops.push({ ...entry, request: modelRequests });

    if (compaction.summarize) {
      const block = issueCompaction(
        secret,
        body as Block,
        model,
        emulatedChainBefore(body as Block, Number.MAX_SAFE_INTEGER),
      );
      const streamed =
        framing === 'bedrock' ? bedrock?.[2] === 'invoke-with-response-stream' : (body as Block)['stream'] === true;
      entry.status = sendCompaction(response, { id: `msg_emu_${modelRequests}`, model, block, requestId, streamed });
      return;
    }
    const output = runScript(checked.script);
    const lastUser = [...checked.script.messages].reverse().find((message) => message.role === 'user');
    const blocks: Block[] = [];
    if (checked.thinkingEnabled) {
      const redacted = lastUser?.text.includes(REDACTED_THINKING_TRIGGER) ?? false;
      // Under binding the block is bound to the model and to everything before it: the request as sent.
      const prefix = options.binding ? emulatedAnswerPrefixHash(body as Block, blocks, blocks.length) : undefined;
      blocks.push(
        redacted
          ? {
              type: 'redacted_thinking',
              data: prefix
                ? sealBoundRedacted(secret, output.reasoning, model, prefix)
                : sealRedactedThinking(secret, output.reasoning, checked.system),
            }
          : {
              type: 'thinking',
              thinking: output.reasoning,
              signature: prefix
                ? signBoundThinking(secret, output.reasoning, model, prefix)
                : signThinking(secret, output.reasoning, checked.system),
            },
      );
    }
    if (output.content !== '') blocks.push({ type: 'text', text: output.content });
    for (const call of output.toolCalls) {
      blocks.push({
        type: 'tool_use',
        id: `toolu_${call.id}`,
        name: call.name,
        input: JSON.parse(call.arguments) as unknown,
      });
    }
    const stopReason = output.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
    const usage = {
      input_tokens: estimateTokens(entry.raw),
      output_tokens: estimateTokens(output.reasoning + output.content),
    };
    const message = {
      id: `msg_emu_${modelRequests}`,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
      // The binding beta adds the list to every answer, empty when nothing was dropped.
      ...(options.binding && beta ? { input_transformations: checked.transformations } : {}),
    };
    const streaming =
      framing === 'bedrock' ? bedrock?.[2] === 'invoke-with-response-stream' : (body as Block)['stream'] === true;
    entry.status = 200;
    if (!streaming) {
      sendJson(response, 200, message, { 'request-id': requestId });
      return;
    }
    const events = streamEvents(message, blocks, stopReason, usage);
    if (framing === 'bedrock') {
      response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': requestId });
      for (const event of events) response.write(invokeModelChunkFrame(JSON.stringify(event)));
      response.end();
      return;
    }
    const writer = new EmulatorSseWriter(response);
    writer.start(200, { 'request-id': requestId });
    for (const event of events) writer.data(event, String(event['type']));
    writer.end();
  };

  const server = await startLoopbackServer({
    handler,
    ...(options.host ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return {
    baseUrl: server.origin,
    port: server.port,
    requests,
    rejectSignaturesOnRequest: (requestNumber) => rejectOn.add(requestNumber),
    faults,
    binding: bindingLog,
    close: () => server.close(),
  };
}

/** True when the request carries the binding beta: the `anthropic-beta` header, or Bedrock's body `anthropic_beta`. */
function bindingBetaSent(header: string | string[] | undefined, body: unknown): boolean {
  const fromHeader = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((beta) => beta.trim());
  const fromBody = (body as Block | undefined)?.['anthropic_beta'];
  return fromHeader.includes(BINDING_BETA) || (Array.isArray(fromBody) && fromBody.includes(BINDING_BETA));
}

/** The stream events for a message, in Anthropic's order (WIRE.md §2.3). */
function streamEvents(
  message: Block,
  blocks: readonly Block[],
  stopReason: string,
  usage: { input_tokens: number; output_tokens: number },
): Block[] {
  const events: Block[] = [
    {
      type: 'message_start',
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
      },
    },
    { type: 'ping' },
  ];
  blocks.forEach((block, index) => {
    if (block['type'] === 'thinking') {
      events.push({
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const piece of splitIntoFragments(String(block['thinking'])))
        events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
      // Anthropic sends an empty thinking_delta right before the one signature_delta.
      events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: '' } });
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block['signature'] },
      });
    } else if (block['type'] === 'redacted_thinking') {
      events.push({ type: 'content_block_start', index, content_block: block });
    } else if (block['type'] === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const piece of splitIntoFragments(String(block['text'])))
        events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const piece of splitIntoFragments(JSON.stringify(block['input']), 8))
        events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  return events;
}

function anthropicFrame(payload: Record<string, unknown>): string {
  return `event: ${String(payload['type'])}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** Anthropic Messages shapes of the hostile faults (WIRE.md §2). */
const ANTHROPIC_HOSTILE_DIALECT: HostileDialect = {
  preamble: () => [
    anthropicFrame({
      type: 'message_start',
      message: {
        id: 'msg_hostile',
        type: 'message',
        role: 'assistant',
        content: [],
        model: 'claude-hostile',
        stop_reason: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }),
    anthropicFrame({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  ],
  deltaFrame: (text) => anthropicFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  errorFrame: (message) => anthropicFrame({ type: 'error', error: { type: 'authentication_error', message } }),
  malformedFrame: (text) => `event: content_block_delta\ndata: {not json ${text}\n\n`,
  errorBody: (message) => ({ type: 'error', error: { type: 'authentication_error', message } }),
};

/** The Anthropic error `type` of an HTTP status (WIRE.md §2). */
/** The effort of a Messages body: `output_config.effort`; thinking off with `thinking.type: "disabled"`. */
function anthropicSentEffort(body: unknown): SentEffort {
  const request = (body ?? {}) as Block;
  const outputConfig = (request['output_config'] ?? {}) as Block;
  const thinking = (request['thinking'] ?? {}) as Block;
  const effort = outputConfig['effort'];
  return {
    parameter: 'output_config.effort',
    value: typeof effort === 'string' ? effort : undefined,
    off: thinking['type'] === 'disabled',
  };
}

function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}
