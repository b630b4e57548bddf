import { UsageError } from './errors.js';
import type { JsonObject } from './json.js';
import { isJsonObject } from './json.js';
import type { Message } from './message.js';
import { WIRE_APIS } from './origin.js';

/**
 * Parsing canonical histories (SPEC §2): the interchange format of `sessions show --json`,
 * `sessions export` and `replay preview --history`. Accepts a JSON array or JSON lines, and
 * validates every message so a bad file is reported as `message 3: "tool_calls[0].function.arguments"
 * must be a string` (0-based index) instead of failing later on the wire. Unknown extra keys are
 * kept: histories move between tools, and the wire conversion strips them by allow-list anyway.
 */

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

class HistoryProblem extends Error {}

function fail(index: number, key: string, problem: string): never {
  throw new HistoryProblem(`message ${index}: "${key}" ${problem}`);
}

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === 'string';
const isStringOrNull: Check = (value) => typeof value === 'string' || value === null;
const isObjectList: Check = (value) => Array.isArray(value) && value.every(isJsonObject);

function expect(message: JsonObject, index: number, key: string, check: Check, problem: string): void {
  if (key in message && message[key] !== undefined && !check(message[key])) fail(index, key, problem);
}

function validateToolCalls(value: unknown, index: number): void {
  if (!Array.isArray(value)) fail(index, 'tool_calls', 'must be a list');
  value.forEach((call: unknown, callIndex) => {
    const at = `tool_calls[${callIndex}]`;
    if (!isJsonObject(call)) fail(index, at, 'must be an object');
    if (typeof call['id'] !== 'string') fail(index, `${at}.id`, 'must be a string');
    if (call['type'] !== undefined && call['type'] !== 'function') fail(index, `${at}.type`, 'must be "function"');
    for (const key of ['call_id', 'response_item_id'] as const) {
      if (call[key] !== undefined && call[key] !== null && typeof call[key] !== 'string') {
        fail(index, `${at}.${key}`, 'must be a string');
      }
    }
    if (call['extra_content'] !== undefined && !isJsonObject(call['extra_content'])) {
      fail(index, `${at}.extra_content`, 'must be an object');
    }
    const fn = call['function'];
    if (!isJsonObject(fn)) fail(index, `${at}.function`, 'must be an object');
    if (typeof fn['name'] !== 'string') fail(index, `${at}.function.name`, 'must be a string');
    if (typeof fn['arguments'] !== 'string') fail(index, `${at}.function.arguments`, 'must be a string');
    if (fn['thought_signature'] !== undefined && typeof fn['thought_signature'] !== 'string') {
      fail(index, `${at}.function.thought_signature`, 'must be a string');
    }
  });
}

function validateOrigin(value: unknown, index: number): void {
  if (!isJsonObject(value)) fail(index, 'origin', 'must be an object {api, provider, host, model}');
  if (typeof value['api'] !== 'string' || !(WIRE_APIS as readonly string[]).includes(value['api'])) {
    fail(index, 'origin.api', `must be one of ${WIRE_APIS.join(', ')}`);
  }
  for (const key of ['provider', 'host', 'model'] as const) {
    if (typeof value[key] !== 'string') fail(index, `origin.${key}`, 'must be a string');
  }
}

function validateContentParts(value: unknown, index: number): void {
  if (!Array.isArray(value)) return;
  value.forEach((part: unknown, partIndex) => {
    if (!isJsonObject(part)) fail(index, `content[${partIndex}]`, 'must be an object');
    if (part['type'] === 'text' && typeof part['text'] !== 'string')
      fail(index, `content[${partIndex}].text`, 'must be a string');
  });
}

/** Validates one parsed value as a canonical message; throws a {@link UsageError} naming the first bad key. */
export function validateMessage(value: unknown, index: number): Message {
  try {
    return checkMessage(value, index);
  } catch (error) {
    if (error instanceof HistoryProblem) throw new UsageError(error.message);
    throw error;
  }
}

function checkMessage(value: unknown, index: number): Message {
  if (!isJsonObject(value)) throw new HistoryProblem(`message ${index}: must be a JSON object`);
  const role = value['role'];
  if (typeof role !== 'string' || !ROLES.has(role)) fail(index, 'role', 'must be one of system, user, assistant, tool');
  expect(value, index, 'name', isString, 'must be a string');
  expect(
    value,
    index,
    'timestamp',
    (entry) => typeof entry === 'number' || typeof entry === 'string',
    'must be a number',
  );
  expect(value, index, 'platform_message_id', isStringOrNull, 'must be a string');
  expect(value, index, 'api_content', isString, 'must be a string');
  if (role === 'system') {
    if (typeof value['content'] !== 'string') fail(index, 'content', 'must be a string');
  } else if (role === 'user') {
    if (typeof value['content'] !== 'string' && !Array.isArray(value['content']))
      fail(index, 'content', 'must be a string or a list of parts');
    validateContentParts(value['content'], index);
  } else if (role === 'tool') {
    if (typeof value['tool_call_id'] !== 'string') fail(index, 'tool_call_id', 'must be a string');
    if (typeof value['content'] !== 'string') fail(index, 'content', 'must be a string');
    expect(value, index, 'tool_name', isString, 'must be a string');
  } else {
    expect(value, index, 'content', isStringOrNull, 'must be a string or null');
    if (value['tool_calls'] !== undefined && value['tool_calls'] !== null)
      validateToolCalls(value['tool_calls'], index);
    expect(value, index, 'reasoning', isStringOrNull, 'must be a string or null');
    expect(value, index, 'reasoning_content', isStringOrNull, 'must be a string or null');
    expect(
      value,
      index,
      'reasoning_details',
      (entry) => entry === null || isObjectList(entry),
      'must be a list of objects',
    );
    for (const key of [
      'anthropic_content_blocks',
      'bedrock_content_blocks',
      'codex_reasoning_items',
      'codex_message_items',
      'gemini_content_parts',
    ]) {
      expect(value, index, key, isObjectList, 'must be a list of objects');
    }
    expect(value, index, 'finish_reason', isStringOrNull, 'must be a string');
    expect(value, index, 'gemini_issuer', isString, 'must be a string');
    if (value['origin'] !== undefined) validateOrigin(value['origin'], index);
  }
  return value as unknown as Message;
}

/**
 * Parses a history file: a JSON array of messages, or JSON lines (one message per non-blank
 * line). Throws a {@link UsageError} for invalid JSON (naming the line for JSON lines) or the
 * first invalid message.
 */
export function parseHistory(text: string): Message[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  let values: unknown[];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`history is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!Array.isArray(parsed)) throw new UsageError('history must be a JSON array of messages or JSON lines');
    values = parsed;
  } else {
    values = [];
    const lines = trimmed.split('\n');
    for (let lineIndex = 0; lineIndex < lines.length; lineIndex++) {
      const line = (lines[lineIndex] ?? '').trim();
      if (line === '') continue;
      try {
        values.push(JSON.parse(line));
      } catch (error) {
        throw new UsageError(
          `history line ${lineIndex + 1} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  return values.map((value, index) => validateMessage(value, index));
}
