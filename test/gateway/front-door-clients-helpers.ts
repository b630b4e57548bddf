import { isJsonObject, type JsonObject } from '../../src/core/json.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway-serve.js';
import type { GatewayModelAlias, GatewayRoute } from '../../src/gateway/gateway-types.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';
import { readFixtureJson } from '../support/fixtures.js';

/**
 * Replaying what the real clients sent (test/fixtures/clients/, provenance in its README): each
 * fixture is the sequence of requests one Claude Code or Codex run made against a loopback
 * gateway, sanitized. The replay sends those bytes again, in order, to a test gateway; the
 * handles the client echoed cannot be replayed (another gateway sealed them), nor can tool call
 * ids a route makes up (Gemini's), so a fixture names them `{{handle:N}}` and `{{call:N}}` — the
 * handle and the call id the N-th answer returned — and the replay puts in what this gateway's
 * N-th answer returned, as the client would.
 */

/** One request a client made. */
export interface CapturedExchange {
  method: string;
  /** Path and query as the client sent them (`/v1/messages?beta=true`). */
  path: string;
  /** The client's headers, credentials removed. */
  headers: Record<string, string>;
  body: JsonObject;
  /** The gateway's status in the capture. */
  status: number;
  /** The emulator's continuity sentence in the captured answer (null for a tool call). */
  answered: string | null;
}

/** A captured client run. */
export interface ClientFixture {
  /** `claude-code 2.1.332`, `codex 0.171.0`. */
  client: string;
  /** The commands that produced it. */
  how: string;
  /** The tool list every request sent, stored once (`"tools": "{{tools}}"` in each body). */
  tools?: unknown[];
  /** The tool lists of a run whose requests offered different ones (`"tools": "{{tools:K}}"`). */
  toolSets?: unknown[][];
  exchanges: CapturedExchange[];
}

/** One replayed answer, read the way the client reads it. */
export interface ReplayedAnswer {
  status: number;
  /** The answer's `model`. */
  model: string | undefined;
  /** The answer's visible text. */
  text: string;
  /** The handles it returned (thinking `signature`, reasoning `encrypted_content`, `thoughtSignature`), in order. */
  handles: string[];
  /** Tool calls as the client receives them (Messages `tool_use` blocks, Responses call items). */
  calls: JsonObject[];
  /** An error answer's message. */
  error?: string;
  /** The `x-should-retry` header, when sent. */
  shouldRetry: string | null;
}

/** Loads `test/fixtures/clients/NAME.json`. */
export function readClientFixture(name: string): ClientFixture {
  return readFixtureJson<ClientFixture>(`clients/${name}.json`);
}

/**
 * Sends every exchange of the fixture to the gateway at `url`, in order, with this gateway's
 * handles (`headers`: added to each request, the gateway token say).
 */
export async function replayClientFixture(
  url: string,
  fixture: ClientFixture,
  headers: Record<string, string> = {},
): Promise<ReplayedAnswer[]> {
  const answers: ReplayedAnswer[] = [];
  for (const exchange of fixture.exchanges) {
    const body = withReplayValues(exchange.body, fixture, answers) as JsonObject;
    const response = await fetch(`${url}${exchange.path}`, {
      method: exchange.method,
      headers: { ...exchange.headers, ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    answers.push({
      ...readAnswer(response.status, await response.text()),
      shouldRetry: response.headers.get('x-should-retry'),
    });
  }
  return answers;
}

/** The value with `{{tools}}` and every `{{handle:N}}` put in. */
function withReplayValues(value: unknown, fixture: ClientFixture, answers: readonly ReplayedAnswer[]): unknown {
  if (value === '{{tools}}') return fixture.tools;
  const toolSet = typeof value === 'string' ? /^\{\{tools:(\d+)\}\}$/.exec(value) : null;
  if (toolSet) return fixture.toolSets?.[Number(toolSet[1])];
  if (typeof value === 'string') {
    const match = /^\{\{(handle|call):(\d+)\}\}$/.exec(value);
    if (!match) return value;
    const answer = answers[Number(match[2]) - 1];
    const call = answer?.calls[0];
    const replayed = match[1] === 'handle' ? answer?.handles[0] : (call?.['call_id'] ?? call?.['id']);
    if (typeof replayed !== 'string')
      throw new Error(`the fixture echoes answer ${match[2]}'s ${match[1]} before it came`);
    return replayed;
  }
  if (Array.isArray(value)) return value.map((entry) => withReplayValues(entry, fixture, answers));
  if (isJsonObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [key, withReplayValues(entry, fixture, answers)]),
    );
  }
  return value;
}

/** Reads a Messages, Responses or chat-completions answer, JSON or SSE. */
function readAnswer(status: number, text: string): Omit<ReplayedAnswer, 'shouldRetry'> {
  const answer: ReplayedAnswer = { status, model: undefined, text: '', handles: [], calls: [], shouldRetry: null };
  const events = text.startsWith('event:') || text.startsWith('data:') ? sseData(text) : [JSON.parse(text) as unknown];
  for (const event of events.filter(isJsonObject)) readEvent(answer, event);
  return answer;
}

function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

function readEvent(answer: ReplayedAnswer, event: JsonObject): void {
  const failure = event['error'];
  if (isJsonObject(failure) && typeof failure['message'] === 'string') answer.error = failure['message'];
  const delta = isJsonObject(event['delta']) ? event['delta'] : undefined;
  const message = isJsonObject(event['message']) ? event['message'] : undefined;
  const response = isJsonObject(event['response']) ? event['response'] : undefined;
  if (typeof event['model'] === 'string') answer.model = event['model'];
  if (message && typeof message['model'] === 'string') answer.model = message['model'];
  if (response && typeof response['model'] === 'string') answer.model = response['model'];
  if (delta?.['type'] === 'text_delta') answer.text += String(delta['text']);
  if (delta?.['type'] === 'signature_delta') answer.handles.push(String(delta['signature']));
  const started = event['content_block'];
  if (isJsonObject(started) && started['type'] === 'tool_use') answer.calls.push(started);
  if (event['type'] === 'response.output_item.done' && isJsonObject(event['item'])) readItem(answer, event['item']);
  // Non-streamed answers: Messages `content`, Responses `output`.
  if (event['type'] === 'message' && Array.isArray(event['content'])) {
    for (const block of event['content'].filter(isJsonObject)) {
      if (block['type'] === 'text') answer.text += String(block['text']);
      if (block['type'] === 'thinking') answer.handles.push(String(block['signature']));
      if (block['type'] === 'tool_use') answer.calls.push(block);
    }
  }
  if (event['object'] === 'response' && Array.isArray(event['output'])) {
    for (const item of event['output'].filter(isJsonObject)) readItem(answer, item);
  }
  // Gemini, streamed or not: the handle in `thoughtSignature`, calls as `functionCall` parts.
  if (typeof event['modelVersion'] === 'string') answer.model = event['modelVersion'];
  for (const candidate of Array.isArray(event['candidates']) ? event['candidates'].filter(isJsonObject) : []) {
    const content = isJsonObject(candidate['content']) ? candidate['content'] : {};
    for (const part of Array.isArray(content['parts']) ? content['parts'].filter(isJsonObject) : []) {
      if (typeof part['text'] === 'string' && part['thought'] !== true) answer.text += part['text'];
      if (typeof part['thoughtSignature'] === 'string') answer.handles.push(part['thoughtSignature']);
      if (isJsonObject(part['functionCall'])) answer.calls.push(part['functionCall']);
    }
  }
  // Chat completions, streamed (`delta`) or not (`message`).
  for (const choice of Array.isArray(event['choices']) ? event['choices'].filter(isJsonObject) : []) {
    const part = isJsonObject(choice['delta'])
      ? choice['delta']
      : isJsonObject(choice['message'])
        ? choice['message']
        : {};
    if (typeof part['content'] === 'string') answer.text += part['content'];
    const calls = Array.isArray(part['tool_calls']) ? part['tool_calls'].filter(isJsonObject) : [];
    answer.calls.push(...calls.filter((call) => typeof call['id'] === 'string'));
  }
}

function readItem(answer: ReplayedAnswer, item: JsonObject): void {
  if (item['type'] === 'reasoning') answer.handles.push(String(item['encrypted_content']));
  else if (item['type'] === 'function_call' || item['type'] === 'custom_tool_call') answer.calls.push(item);
  else if (item['type'] === 'message' && Array.isArray(item['content'])) {
    for (const part of item['content'].filter(isJsonObject)) answer.text += String(part['text'] ?? '');
  }
}

/** The emulator's continuity sentence of an answer (null when it has none: a tool call). */
export function continuitySentence(text: string): string | null {
  return /Reasoning continuity: [^\n]*?\.(?=\n|$)/.exec(text)?.[0] ?? null;
}

/**
 * A chat upstream on its provider's real host (`https://api.deepseek.com/v1`), its bytes sent
 * to a loopback emulator: the host-based route rows (DeepSeek's, Kimi's) apply as in production.
 */
export async function realHostChatUpstream(
  provider: 'deepseek' | 'kimi',
): Promise<{ route: GatewayRoute; requests: ReceivedRequest[]; close(): Promise<void> }> {
  const emulator = await startChatEmulator({ persona: 'deepseek' });
  const origin = provider === 'deepseek' ? 'https://api.deepseek.com' : 'https://api.moonshot.ai';
  const model = provider === 'deepseek' ? 'deepseek-v4-flash' : 'kimi-k2-thinking';
  const route: GatewayRoute = {
    route: { api: 'chat_completions', provider, model, baseUrl: `${origin}/v1` },
    apiKey: `sk-${provider}-test`,
    connectTo: new Map([[origin, new URL(emulator.baseUrl).origin]]),
  };
  return { route, requests: emulator.requests, close: () => emulator.close() };
}

/**
 * A gateway on loopback over `models` (the first is also the gateway's own route), as the
 * captures met it: its store and a `close`.
 */
export async function startClientsGateway(
  models: readonly GatewayModelAlias[],
): Promise<{ gateway: RunningGateway; store: SessionStore }> {
  const store = createMemorySessionStore();
  const gateway = await startGateway({
    store,
    route: (models[0] as GatewayModelAlias).route,
    models,
    workspace: process.cwd(),
    yolo: false,
    logger: silentLogger(),
    host: '127.0.0.1',
    port: 0,
  });
  return { gateway, store };
}
