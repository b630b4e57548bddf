import { isJsonObject, type JsonObject } from '../core/json.js';
import type { ToolCall } from '../core/message.js';
import { withFields } from '../core/with-fields.js';
import type { GatewayHttpError } from './gateway-errors.js';
import { randomHex } from './gateway-random-ids.js';
import type { ResponsesToolName } from './gateway-responses-tools.js';
import type { FrontDoorAnswer } from './gateway-front-door.js';
import { answerEvents, type AnswerEvent, type DoorStreamWriter } from './gateway-front-door-stream.js';

/**
 * A front-door answer as an OpenAI Responses response (WIRE §5.2, §5.3): a `reasoning` item
 * (its summary the readable reasoning, `encrypted_content` the sealed handle) before the
 * `message`, `function_call` and `custom_tool_call` items. Streamed, the real event names:
 * `response.created`, `response.in_progress`, per item `response.output_item.added` → its deltas
 * (`response.reasoning_summary_part.added`, `response.reasoning_summary_text.delta|done`,
 * `response.content_part.added`, `response.output_text.delta|done`,
 * `response.function_call_arguments.delta|done`, `response.custom_tool_call_input.delta|done`)
 * → `response.output_item.done`, then `response.completed` (or `response.failed`). Every event
 * carries `sequence_number`.
 */

/** Identity of one response. */
export interface ResponseIdentity {
  id: string;
  createdAt: number;
  model: string;
  /** Upstream tool name → how the client names it (custom tools, namespaces). */
  toolNames: ReadonlyMap<string, ResponsesToolName>;
}

/** A fresh response identity. */
export function responseIdentity(model: string, toolNames: ReadonlyMap<string, ResponsesToolName>): ResponseIdentity {
  return { id: `resp_${randomHex(12)}`, createdAt: Math.floor(Date.now() / 1000), model, toolNames };
}

/** How the client names a call: its declared name and namespace (a tool it did not offer: as called). */
function clientToolName(identity: ResponseIdentity, call: ToolCall): ResponsesToolName {
  return identity.toolNames.get(call.function.name) ?? { name: call.function.name, custom: false };
}

/** The envelope every response object shares. */
function responseObject(identity: ResponseIdentity, status: string, output: JsonObject[], usage: JsonObject | null) {
  return {
    id: identity.id,
    object: 'response',
    created_at: identity.createdAt,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model: identity.model,
    output,
    parallel_tool_calls: true,
    store: false,
    tool_choice: 'auto',
    tools: [],
    usage,
    metadata: {},
  };
}

function usageOf(answer: FrontDoorAnswer): JsonObject {
  const usage = answer.usage;
  return {
    input_tokens: usage?.inputTokens ?? 0,
    input_tokens_details: { cached_tokens: usage?.cacheReadTokens ?? 0 },
    output_tokens: usage?.outputTokens ?? 0,
    output_tokens_details: { reasoning_tokens: usage?.reasoningTokens ?? 0 },
    total_tokens: usage?.totalTokens ?? 0,
  };
}

/** `completed`, or `incomplete` with its reason when the provider stopped early. */
function statusOf(answer: FrontDoorAnswer): { status: string; incomplete: JsonObject | null } {
  const unified = answer.finishReason?.unified;
  if (unified === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (unified === 'content-filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** A custom tool call's input: the `input` string it was given, else the raw arguments. */
function customInput(call: ToolCall): string {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    if (isJsonObject(parsed) && typeof parsed['input'] === 'string') return parsed['input'];
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return call.function.arguments;
}

/** The finished output item of one answer event (undefined for deltas). */
function outputItem(event: AnswerEvent, identity: ResponseIdentity, itemId: string): JsonObject | undefined {
  if (event.type === 'reasoning-end') {
    const summary = event.text === '' ? [] : [{ type: 'summary_text', text: event.text }];
    return { id: itemId, type: 'reasoning', summary, encrypted_content: event.handle };
  }
  if (event.type === 'text-end') {
    const content = [{ type: 'output_text', text: event.text, annotations: [], logprobs: [] }];
    return { id: itemId, type: 'message', status: 'completed', role: 'assistant', content };
  }
  if (event.type !== 'tool-call') return undefined;
  const { call } = event;
  const tool = clientToolName(identity, call);
  const named = tool.namespace === undefined ? { name: tool.name } : { name: tool.name, namespace: tool.namespace };
  if (tool.custom) {
    return {
      id: itemId,
      type: 'custom_tool_call',
      status: 'completed',
      call_id: call.id,
      ...named,
      input: customInput(call),
    };
  }
  return {
    id: itemId,
    type: 'function_call',
    status: 'completed',
    call_id: call.id,
    ...named,
    arguments: call.function.arguments,
  };
}

const ITEM_PREFIX: Record<string, string> = { reasoning: 'rs', text: 'msg', call: 'fc', custom: 'ctc' };

function itemIdFor(event: AnswerEvent, identity: ResponseIdentity): string {
  const kind =
    event.type === 'tool-call'
      ? clientToolName(identity, event.call).custom
        ? 'custom'
        : 'call'
      : event.type.startsWith('reasoning')
        ? 'reasoning'
        : 'text';
  return `${ITEM_PREFIX[kind]}_${randomHex(16)}`;
}

/** The non-streaming response body. */
export function responsesResponseBody(answer: FrontDoorAnswer, identity: ResponseIdentity): JsonObject {
  const finished = answerEvents(answer).filter(
    (event) => event.type === 'reasoning-end' || event.type === 'text-end' || event.type === 'tool-call',
  );
  const output = finished.map((event) => outputItem(event, identity, itemIdFor(event, identity)) as JsonObject);
  const { status, incomplete } = statusOf(answer);
  return { ...responseObject(identity, status, output, usageOf(answer)), incomplete_details: incomplete };
}

/** The SSE writer of a streamed answer. */
export function responsesStreamWriter(
  send: (event: string | null, data: string) => void,
  identity: ResponseIdentity,
): DoorStreamWriter {
  let sequence = 0;
  const output: JsonObject[] = [];
  let open: { id: string; index: number; partOpen: boolean; text: string } | null = null;
  const emit = (type: string, payload: object) =>
    send(type, JSON.stringify({ type, sequence_number: sequence++, ...payload }));
  const added = (item: JsonObject) => {
    open = { id: item['id'] as string, index: output.length, partOpen: false, text: '' };
    output.push(item);
    emit('response.output_item.added', { output_index: open.index, item });
  };
  const done = (item: JsonObject) => {
    const index = open?.index ?? output.length;
    output[index] = item;
    emit('response.output_item.done', { output_index: index, item });
    open = null;
  };
  // The open item's fields first, then the event's (core/with-fields.ts: no spread-led literal per event).
  const at = <Fields extends object>(fields: Fields) =>
    withFields({ item_id: open?.id, output_index: open?.index }, fields);
  return {
    open() {
      const response = responseObject(identity, 'in_progress', [], null);
      emit('response.created', { response });
      emit('response.in_progress', { response });
    },
    event(event) {
      switch (event.type) {
        case 'reasoning-start':
          return added({ id: itemIdFor(event, identity), type: 'reasoning', summary: [], encrypted_content: null });
        case 'reasoning-delta':
          if (open && !open.partOpen) {
            open.partOpen = true;
            emit(
              'response.reasoning_summary_part.added',
              at({
                summary_index: 0,
                part: { type: 'summary_text', text: '' },
              }),
            );
          }
          return emit('response.reasoning_summary_text.delta', at({ summary_index: 0, delta: event.text }));
        case 'reasoning-end': {
          if (open?.partOpen) {
            emit('response.reasoning_summary_text.done', at({ summary_index: 0, text: event.text }));
            emit(
              'response.reasoning_summary_part.done',
              at({
                summary_index: 0,
                part: { type: 'summary_text', text: event.text },
              }),
            );
          }
          return done(outputItem(event, identity, open?.id ?? '') as JsonObject);
        }
        case 'text-start':
          added({
            id: itemIdFor(event, identity),
            type: 'message',
            status: 'in_progress',
            role: 'assistant',
            content: [],
          });
          return emit(
            'response.content_part.added',
            at({
              content_index: 0,
              part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
            }),
          );
        case 'text-delta':
          return emit('response.output_text.delta', at({ content_index: 0, delta: event.text, logprobs: [] }));
        case 'text-end': {
          const part = { type: 'output_text', text: event.text, annotations: [], logprobs: [] };
          emit('response.output_text.done', at({ content_index: 0, text: event.text, logprobs: [] }));
          emit('response.content_part.done', at({ content_index: 0, part }));
          return done(outputItem(event, identity, open?.id ?? '') as JsonObject);
        }
        case 'tool-call': {
          const item = outputItem(event, identity, itemIdFor(event, identity)) as JsonObject;
          const custom = item['type'] === 'custom_tool_call';
          const value = String(custom ? item['input'] : item['arguments']);
          added({ ...item, status: 'in_progress', ...(custom ? { input: '' } : { arguments: '' }) });
          const kind = custom ? 'response.custom_tool_call_input' : 'response.function_call_arguments';
          emit(`${kind}.delta`, at({ delta: value }));
          emit(`${kind}.done`, at(custom ? { input: value } : { arguments: value }));
          return done(item);
        }
      }
    },
    close(answer) {
      const { status, incomplete } = statusOf(answer);
      const response = { ...responseObject(identity, status, output, usageOf(answer)), incomplete_details: incomplete };
      emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    },
    fail(error: GatewayHttpError) {
      const response = {
        ...responseObject(identity, 'failed', output, null),
        error: { code: error.code ?? 'server_error', message: error.message },
      };
      emit('response.failed', { response });
    },
  };
}
