import { isJsonObject } from '../../../src/core/json.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';

/** Test helpers: plain fetch against the emulator, and a tiny SSE accumulator (no transport dependency). */

export const READ_FILE_TOOL = {
  type: 'function',
  function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: {} } },
};

/** The tool call the second-turn assistant under test made. */
export const CALL = {
  id: 'call_1_1',
  type: 'function',
  function: { name: 'read_file', arguments: '{"path":"notes.txt"}' },
};

/** system, user, ASSISTANT (index 2), tool: the assistant message under test sits at messages[2]. */
export function secondTurn(assistant: JsonObject, stream = false): JsonObject {
  return {
    model: 'model-under-test',
    stream,
    tools: [READ_FILE_TOOL],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'read the file notes.txt' },
      assistant,
      { role: 'tool', tool_call_id: 'call_1_1', content: 'hello from notes' },
    ],
  };
}

/** The first turn: system and user asking to read notes.txt, with the read_file tool (streamed when asked). */
export function firstTurn(stream = false, model = 'm'): JsonObject {
  return {
    model,
    ...(stream ? { stream } : {}),
    tools: [READ_FILE_TOOL],
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'read the file notes.txt' },
    ],
  };
}

/** The assistant message under test: `content` (default ''), the `carriers` given, then the call `CALL`. */
export function callTurn(carriers: JsonObject = {}, content: string | null = ''): JsonObject {
  return { role: 'assistant', content, ...carriers, tool_calls: [CALL] };
}

/** POSTs `body` to the emulator's `/chat/completions`. */
export function postChat(emulator: { baseUrl: string }, body: unknown): Promise<HttpResult> {
  return postJson(`${emulator.baseUrl}/chat/completions`, body);
}

/** POSTs {@link secondTurn} with `assistant` at messages[2]. */
export function postSecondTurn(emulator: { baseUrl: string }, assistant: JsonObject): Promise<HttpResult> {
  return postChat(emulator, secondTurn(assistant));
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** `data:` payloads of an SSE body, in order; `[DONE]` kept as the string. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => line.slice('data: '.length));
}

export function chunkObjects(text: string): JsonObject[] {
  return sseData(text)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as JsonObject);
}

function choiceOf(chunk: JsonObject): JsonObject | undefined {
  const choices = chunk['choices'];
  const first = Array.isArray(choices) ? choices[0] : undefined;
  return isJsonObject(first) ? first : undefined;
}

/** The deltas of a stream, in order. */
export function deltasOf(chunks: readonly JsonObject[]): JsonObject[] {
  return chunks.flatMap((chunk) => {
    const delta = choiceOf(chunk)?.['delta'];
    return isJsonObject(delta) ? [delta] : [];
  });
}

/**
 * Accumulates a stream into one assistant message: string carriers concatenated, Mistral thinking
 * chunks concatenated, OpenRouter details merged per index (text concatenated, last non-empty
 * signature, data whole), tool calls by index, `reasoning_opaque` last wins, extra_content kept.
 */
export function accumulate(chunks: readonly JsonObject[]): JsonObject {
  const message: JsonObject = {};
  const strings: Record<string, string> = {};
  const details = new Map<number, JsonObject>();
  const calls = new Map<number, JsonObject>();
  let thinking: string | undefined;
  for (const delta of deltasOf(chunks)) {
    for (const [key, value] of Object.entries(delta)) {
      if (key === 'role' && typeof value === 'string') message['role'] = value;
      else if (key === 'content' && Array.isArray(value)) {
        for (const part of value) {
          if (!isJsonObject(part)) continue;
          if (part['type'] === 'thinking' && Array.isArray(part['thinking'])) {
            for (const inner of part['thinking']) {
              if (isJsonObject(inner) && typeof inner['text'] === 'string') thinking = (thinking ?? '') + inner['text'];
            }
          } else if (part['type'] === 'text' && typeof part['text'] === 'string') {
            strings['content'] = (strings['content'] ?? '') + part['text'];
          }
        }
      } else if (key === 'reasoning_opaque' && typeof value === 'string') message['reasoning_opaque'] = value;
      else if (key === 'extra_content' && value !== undefined) message['extra_content'] = value;
      else if (key === 'reasoning_details' && Array.isArray(value)) {
        for (const detail of value) {
          if (!isJsonObject(detail) || typeof detail['index'] !== 'number') continue;
          const current = details.get(detail['index']) ?? {};
          for (const [field, fieldValue] of Object.entries(detail)) {
            if (field === 'text' && typeof fieldValue === 'string')
              current['text'] = String(current['text'] ?? '') + fieldValue;
            else if (field === 'signature' && typeof fieldValue === 'string') {
              if (fieldValue !== '') current['signature'] = fieldValue;
            } else current[field] = fieldValue;
          }
          details.set(detail['index'], current);
        }
      } else if (key === 'tool_calls' && Array.isArray(value)) {
        for (const call of value) {
          if (!isJsonObject(call) || typeof call['index'] !== 'number') continue;
          const current: JsonObject = calls.get(call['index']) ?? { function: { name: '', arguments: '' } };
          const currentFunction = current['function'] as JsonObject;
          for (const [field, fieldValue] of Object.entries(call)) {
            if (field === 'index') continue;
            if (field === 'function' && isJsonObject(fieldValue)) {
              if (typeof fieldValue['name'] === 'string') currentFunction['name'] = fieldValue['name'];
              if (typeof fieldValue['arguments'] === 'string') {
                currentFunction['arguments'] = String(currentFunction['arguments'] ?? '') + fieldValue['arguments'];
              }
            } else current[field] = fieldValue;
          }
          calls.set(call['index'], current);
        }
      } else if (typeof value === 'string') strings[key] = (strings[key] ?? '') + value;
    }
  }
  for (const [key, value] of Object.entries(strings)) message[key] = value;
  if (thinking !== undefined) message['thinking'] = thinking;
  if (details.size > 0) message['reasoning_details'] = [...details.values()];
  if (calls.size > 0) message['tool_calls'] = [...calls.values()];
  return message;
}

/** The `choices[0].message` of a non-streaming completion. */
export function messageOf(json: unknown): JsonObject {
  if (!isJsonObject(json)) throw new Error(`not a completion: ${JSON.stringify(json)}`);
  const choice = choiceOf(json);
  const message = choice?.['message'];
  if (!isJsonObject(message)) throw new Error(`no message in ${JSON.stringify(json)}`);
  return message;
}

/** The text of a message's content (string or Mistral chunk array). */
export function textOf(content: JsonValue | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isJsonObject(part) && part['type'] === 'text' ? String(part['text']) : '')).join('');
}
