import { isJsonObject, type JsonObject } from '../core/json.js';
import type { ContentPart, Message } from '../core/message.js';
import { hostnameOf } from '../replay/replay-host.js';
import { responsesIssuerKind } from '../replay/responses-replay-policy.js';
import { decodeResponsesResponse } from '../transports/responses/responses-decode.js';
import {
  badRecord,
  countSkipped,
  epochOf,
  titleOf,
  type ImportedSession,
  type JsonLine,
} from './sessions-import-records.js';

/**
 * A Codex CLI rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) as a Hermes session.
 * Records are `{timestamp, type, payload}`: `session_meta` (id, cwd, version), `turn_context`
 * (the model of the turns that follow), `response_item` (the Responses API items the model saw
 * and produced) and `event_msg` (UI events). The items between two inputs are one model response;
 * each goes through the Responses decoder, so its `reasoning` items — `encrypted_content`
 * byte for byte, summaries, and the call each one preceded — are stored exactly as a live turn
 * stores them, stamped with the issuer (SPEC §12, §23.2): the ChatGPT Codex backend, where
 * Codex sends requests when signed in with ChatGPT, or the endpoint `--base-url` names (an API
 * key session: https://api.openai.com/v1).
 */

/** Options of {@link importCodexRollout}. */
export interface CodexImportOptions {
  file: string;
  /** The Responses endpoint the session ran on (default: the ChatGPT Codex backend). */
  baseUrl?: string | undefined;
  /** Model of turns before any `turn_context` names one (older rollouts). */
  model?: string | undefined;
}

/** Where Codex sends Responses requests when signed in with ChatGPT. */
export const CODEX_CHATGPT_BASE_URL = 'https://chatgpt.com/backend-api/codex';

/** Items one model response is made of. */
const OUTPUT_ITEMS = new Set(['reasoning', 'function_call', 'local_shell_call', 'custom_tool_call', 'compaction']);
/** Tool outputs: each answers a call of the response before it. */
const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

interface Response {
  items: JsonObject[];
  model: string;
  timestamp: number | undefined;
  line: number;
}

/** Reads the rollout's records; the first record that cannot be used fails the import. */
export function importCodexRollout(lines: readonly JsonLine[], options: CodexImportOptions): ImportedSession {
  const { file } = options;
  const baseUrl = options.baseUrl ?? CODEX_CHATGPT_BASE_URL;
  const provider = 'openai';
  const issuerKind = responsesIssuerKind(provider, baseUrl);
  const host = hostnameOf(baseUrl);
  const messages: Message[] = [];
  const skipped: Record<string, number> = {};
  const calls = new Map<string, string>();
  const kept = { signed_thinking: 0, redacted_thinking: 0, encrypted_reasoning: 0 };
  let meta: JsonObject | undefined;
  let model = options.model;
  let lastModel = '';
  let title: string | undefined;
  let response: Response | undefined;

  const flush = () => {
    if (!response) return;
    const origin = { api: 'codex_responses' as const, provider, host, model: response.model };
    const decoded = decodeResponsesResponse({ status: 'completed', output: response.items }, { origin, issuerKind });
    if (decoded.type === 'error') badRecord(file, response.line, decoded.error.message);
    const message = {
      ...decoded.message,
      ...(response.timestamp === undefined ? {} : { timestamp: response.timestamp }),
    };
    for (const call of message.tool_calls ?? []) calls.set(call.id, call.function.name);
    messages.push(message);
    lastModel = response.model;
    response = undefined;
  };

  lines.forEach(({ line, record }, index) => {
    const type = record['type'];
    const payload = record['payload'];
    if (typeof type !== 'string' || !isJsonObject(payload)) {
      if (type === 'user' || type === 'assistant' || type === 'summary') {
        badRecord(file, line, `a Claude Code record ("${type}"): import this file with --from claude`);
      }
      badRecord(
        file,
        line,
        index === 0
          ? 'not a Codex rollout record {timestamp, type, payload} (rollouts of Codex CLI before 0.30 are not supported)'
          : 'a record without "type" and a "payload" object',
      );
    }
    if (index === 0 && type !== 'session_meta')
      badRecord(file, line, `expected a "session_meta" record first, found "${type}"`);
    const timestamp = epochOf(record['timestamp']);
    if (type === 'session_meta') meta ??= payload;
    else if (type === 'turn_context') {
      if (typeof payload['model'] === 'string' && payload['model'] !== '') model = payload['model'];
    } else if (type === 'event_msg') {
      if (payload['type'] === 'user_message' && typeof payload['message'] === 'string')
        title ??= titleOf(payload['message']);
      else countSkipped(skipped, `event_msg ${String(payload['type'])}`);
    } else if (type === 'response_item') {
      const itemType = payload['type'];
      if (typeof itemType !== 'string') badRecord(file, line, 'a response_item without a "type"');
      if (itemType === 'message' && payload['role'] === 'assistant') {
        outputItem(payload, line, timestamp);
      } else if (OUTPUT_ITEMS.has(itemType)) {
        outputItem(
          callItem(payload, (what) => badRecord(file, line, what)),
          line,
          timestamp,
        );
        if (itemType === 'reasoning' && typeof payload['encrypted_content'] === 'string') kept.encrypted_reasoning += 1;
      } else if (TOOL_OUTPUTS.has(itemType)) {
        flush();
        const callId = payload['call_id'];
        if (typeof callId !== 'string' || !calls.has(callId)) {
          badRecord(
            file,
            line,
            `${itemType} for ${typeof callId === 'string' ? `"${callId}", a call not seen before` : 'no call_id'}`,
          );
        }
        messages.push({
          role: 'tool',
          tool_call_id: callId,
          tool_name: calls.get(callId) as string,
          content: outputText(payload['output']),
          ...(timestamp === undefined ? {} : { timestamp }),
        });
      } else if (itemType === 'message' && payload['role'] === 'user') {
        flush();
        messages.push({
          role: 'user',
          content: userContent(payload['content']),
          ...(timestamp === undefined ? {} : { timestamp }),
        });
      } else countSkipped(skipped, itemType === 'message' ? `${String(payload['role'])} message` : itemType);
    } else countSkipped(skipped, type);
  });
  flush();

  function outputItem(item: JsonObject, line: number, timestamp: number | undefined) {
    if (!model)
      badRecord(file, line, 'no model known for this turn (no turn_context names one before it): pass --model');
    if (response && response.model !== model) flush();
    response ??= { items: [], model, timestamp, line };
    response.items.push(item);
  }

  if (!messages.some((message) => message.role === 'assistant')) {
    badRecord(file, lines.at(-1)?.line ?? 1, 'no model response in the rollout (nothing to continue)');
  }
  const firstUser = messages.find((message) => message.role === 'user' && typeof message.content === 'string');
  return {
    source: {
      tool: 'codex',
      session_id: typeof meta?.['id'] === 'string' ? meta['id'] : null,
      file,
      version: typeof meta?.['cli_version'] === 'string' ? meta['cli_version'] : null,
    },
    messages,
    title: title ?? (typeof firstUser?.content === 'string' ? (titleOf(firstUser.content) ?? null) : null),
    workspace: typeof meta?.['cwd'] === 'string' ? meta['cwd'] : null,
    provider,
    model: lastModel,
    api: 'codex_responses',
    baseUrl,
    kept,
    skipped,
  };
}

/**
 * An output item as the decoder reads it. Codex's own tool shapes become function calls (Hermes
 * stores calls as functions): `local_shell_call` as `local_shell` with its action as arguments,
 * `custom_tool_call` (freeform tools such as apply_patch) with its input as arguments.
 */
function callItem(item: JsonObject, fail: (what: string) => never): JsonObject {
  const type = item['type'];
  if (type === 'reasoning') {
    if (
      item['encrypted_content'] !== undefined &&
      item['encrypted_content'] !== null &&
      typeof item['encrypted_content'] !== 'string'
    ) {
      fail('a reasoning item whose "encrypted_content" is not a string');
    }
    if (item['summary'] !== undefined && !Array.isArray(item['summary']))
      fail('a reasoning item whose "summary" is not a list');
    return item;
  }
  if (type === 'compaction') {
    if (typeof item['encrypted_content'] !== 'string') fail('a compaction item without "encrypted_content"');
    return item;
  }
  const callId = item['call_id'];
  if (typeof callId !== 'string' || callId === '') fail(`a ${String(type)} without a "call_id"`);
  if (type === 'function_call') {
    if (typeof item['name'] !== 'string' || typeof item['arguments'] !== 'string') {
      fail('a function_call without a "name" and "arguments" text');
    }
    return item;
  }
  if (type === 'local_shell_call') {
    return {
      type: 'function_call',
      name: 'local_shell',
      arguments: JSON.stringify(item['action'] ?? {}),
      call_id: callId,
    };
  }
  if (typeof item['name'] !== 'string' || typeof item['input'] !== 'string')
    fail('a custom_tool_call without a "name" and "input"');
  return { type: 'function_call', name: item['name'], arguments: item['input'], call_id: callId };
}

/** A user message's content: its text when it is only text, else the Responses parts verbatim. */
function userContent(content: unknown): string | ContentPart[] {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content.filter(isJsonObject) : [];
  if (parts.every((part) => part['type'] === 'input_text' && typeof part['text'] === 'string')) {
    return parts.map((part) => String(part['text'])).join('\n');
  }
  return parts.map((part) =>
    part['type'] === 'input_text' && typeof part['text'] === 'string' ? { type: 'text', text: part['text'] } : part,
  );
}

/** A tool output's text: a string as it is, content items joined (images as a bracketed line). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (isJsonObject(output) && typeof output['content'] === 'string') return output['content'];
  if (!Array.isArray(output)) return JSON.stringify(output ?? '');
  return output
    .filter(isJsonObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : `[${String(part['type'])}]`))
    .join('\n');
}
