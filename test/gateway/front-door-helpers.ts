import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, expect } from 'vitest';
import { startAnthropicEmulator } from '../../src/emulators/anthropic-messages/anthropic-emulator.js';
import { startBedrockEmulator } from '../../src/emulators/bedrock-converse/bedrock-converse-emulator.js';
import { startChatEmulator } from '../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatEmulatorOptions, ChatPersonaName } from '../../src/emulators/chat-completions/chat-emulator-types.js';
import { startGeminiEmulator } from '../../src/emulators/gemini/gemini-emulator.js';
import { startResponsesEmulator } from '../../src/emulators/responses/responses-emulator.js';
import type { Fault } from '../../src/emulators/shared/emulator-faults.js';
import type { ReceivedRequest } from '../../src/emulators/shared/emulator-request-log.js';
import { startGateway, type RunningGateway } from '../../src/gateway/gateway-serve.js';
import type { GatewayOptions, GatewayRoute } from '../../src/gateway/gateway-types.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createMemorySessionStore } from '../../src/storage/memory-session-store.js';
import type { SessionStore } from '../../src/storage/session-store.js';

/**
 * The front doors' test harness: loopback emulators standing for providers, a gateway on a real
 * port routing client model names to them, and the two official SDKs driving multi-turn tool
 * loops the way Claude Code and Codex do — the client runs the tools and holds the history.
 *
 * ```ts
 * const doors = useFrontDoors();
 * const { gateway } = await doors.gateway(['deepseek']);
 * const chat = messagesConversation(doors.anthropic(gateway), 'deepseek');
 * const answer = await chat.turn('read the file notes.txt', { stream: true });
 * ```
 */

/** Upstreams the tests route to, by client model name. */
export type UpstreamName =
  | 'deepseek'
  | 'openrouter'
  | 'copilot'
  | 'gemini-openai'
  | 'strict-mistral'
  | 'local'
  | 'anthropic'
  | 'bedrock'
  | 'gemini'
  | 'responses';

/** A running upstream: its emulator's request log and the route that reaches it. */
export interface Upstream {
  name: UpstreamName;
  requests: ReceivedRequest[];
  route: GatewayRoute;
  /** Queues a fault for a later request (chat upstreams only). */
  addFault?: (fault: Fault) => void;
  close(): Promise<void>;
}

/**
 * Chat upstreams. `origin`: the real origin the route names where host-based rules depend on it
 * (Copilot's record lift, Gemini's signature rule); its requests are connected to the emulator.
 */
const CHAT_ROUTES: Record<string, { persona: ChatPersonaName; provider: string; model: string; origin?: string }> = {
  deepseek: { persona: 'deepseek', provider: 'deepseek', model: 'deepseek-v4-flash' },
  openrouter: { persona: 'openrouter', provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' },
  copilot: {
    persona: 'copilot',
    provider: 'copilot',
    model: 'claude-sonnet-4.5',
    origin: 'https://api.githubcopilot.com',
  },
  'gemini-openai': {
    persona: 'gemini-openai',
    provider: 'gemini',
    model: 'gemini-3-pro-preview',
    origin: 'https://generativelanguage.googleapis.com',
  },
  'strict-mistral': { persona: 'strict-mistral', provider: 'mistral', model: 'magistral-medium-latest' },
  local: { persona: 'local', provider: 'custom', model: 'qwen3:8b' },
};

/** Starts one upstream emulator (`chatOptions`: more chat emulator options, e.g. `rejectKeys`). */
export async function startUpstream(
  name: UpstreamName,
  chatOptions: Partial<ChatEmulatorOptions> = {},
): Promise<Upstream> {
  const chat = CHAT_ROUTES[name];
  if (chat) {
    const emulator = await startChatEmulator({ ...chatOptions, persona: chat.persona });
    const route = {
      api: 'chat_completions' as const,
      provider: chat.provider,
      model: chat.model,
      baseUrl: chat.origin ? `${chat.origin}/v1` : emulator.baseUrl,
    };
    const connectTo = chat.origin ? new Map([[chat.origin, new URL(emulator.baseUrl).origin]]) : undefined;
    return {
      name,
      requests: emulator.requests,
      route: { route, apiKey: 'sk-test-upstream', ...(connectTo ? { connectTo } : {}) },
      addFault: (fault) => emulator.addFault(fault),
      close: () => emulator.close(),
    };
  }
  if (name === 'anthropic') {
    const emulator = await startAnthropicEmulator();
    const route = {
      api: 'anthropic_messages' as const,
      provider: 'anthropic',
      model: 'claude-opus-4-8',
      baseUrl: emulator.baseUrl,
    };
    return {
      name,
      requests: emulator.requests,
      route: { route, apiKey: 'sk-ant-test' },
      close: () => emulator.close(),
    };
  }
  if (name === 'bedrock') {
    const emulator = await startBedrockEmulator();
    const route = {
      api: 'bedrock_converse' as const,
      provider: 'bedrock',
      model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      baseUrl: emulator.baseUrl,
    };
    return {
      name,
      requests: emulator.requests,
      route: { route, apiKey: 'bedrock-api-key' },
      close: () => emulator.close(),
    };
  }
  if (name === 'gemini') {
    const emulator = await startGeminiEmulator();
    const route = {
      api: 'gemini' as const,
      provider: 'google',
      model: 'gemini-3-pro-preview',
      baseUrl: emulator.baseUrl,
    };
    return { name, requests: emulator.requests, route: { route, apiKey: 'gm-test' }, close: () => emulator.close() };
  }
  const emulator = await startResponsesEmulator({ issuer: 'openai' });
  const route = {
    api: 'codex_responses' as const,
    provider: 'openai-responses',
    model: 'gpt-5.4',
    baseUrl: emulator.baseUrl,
  };
  return { name, requests: emulator.requests, route: { route, apiKey: 'sk-test' }, close: () => emulator.close() };
}

/** A gateway over the upstreams: the first is the gateway's route, every one is also the model alias of its name. */
export interface DoorsGateway {
  gateway: RunningGateway;
  store: SessionStore;
  upstreams: Record<string, Upstream>;
}

/** Per-test resources, stopped after each test. */
export interface FrontDoors {
  gateway(
    names: UpstreamName[],
    extra?: Partial<GatewayOptions> & { store?: SessionStore },
    chatOptions?: Partial<Record<UpstreamName, Partial<ChatEmulatorOptions>>>,
  ): Promise<DoorsGateway>;
  anthropic(gateway: RunningGateway, headers?: Record<string, string>): Anthropic;
  openai(gateway: RunningGateway, headers?: Record<string, string>): OpenAI;
}

/** Registers the cleanup and returns the harness. */
export function useFrontDoors(): FrontDoors {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    async gateway(names, extra = {}, chatOptions = {}) {
      const upstreams: Record<string, Upstream> = {};
      for (const name of names) {
        const upstream = await startUpstream(name, chatOptions[name]);
        cleanups.push(() => upstream.close());
        upstreams[name] = upstream;
      }
      const store = extra.store ?? createMemorySessionStore();
      const first = upstreams[names[0] as string] as Upstream;
      const gateway = await startGateway({
        store,
        route: first.route,
        workspace: process.cwd(),
        yolo: false,
        logger: silentLogger(),
        models: names.map((name) => ({ name, route: (upstreams[name] as Upstream).route })),
        host: '127.0.0.1',
        port: 0,
        ...extra,
      });
      cleanups.push(() => gateway.close());
      return { gateway, store, upstreams };
    },
    anthropic: (gateway, headers = {}) =>
      new Anthropic({ baseURL: gateway.url, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers }),
    openai: (gateway, headers = {}) =>
      new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'client-key', maxRetries: 0, defaultHeaders: headers }),
  };
}

/** The client's own tool, run by the test as a client would: `read_file` of a fixed workspace. */
export const CLIENT_FILES: Record<string, string> = { 'notes.txt': 'alpha beta\n' };

/** Runs a client tool call. */
export function runClientTool(name: string, input: Record<string, unknown>): string {
  if (name !== 'read_file') return `error: no tool ${name}`;
  return CLIENT_FILES[String(input['path'])] ?? `error: no file ${String(input['path'])}`;
}

/** The tool both SDK clients offer. */
export const READ_FILE_SCHEMA = {
  type: 'object' as const,
  properties: { path: { type: 'string', description: 'workspace-relative path' } },
  required: ['path'],
};

/** Options of one conversation turn. */
export interface TurnOptions {
  stream: boolean;
  /** The client's `model` for this turn (a switch mid-conversation). */
  model?: string;
}

/** A Messages conversation held by the client, as Claude Code holds it. */
export function messagesConversation(client: Anthropic, model: string, system?: string) {
  const messages: Anthropic.MessageParam[] = [];
  const tools: Anthropic.Tool[] = [{ name: 'read_file', description: 'Read a file', input_schema: READ_FILE_SCHEMA }];
  const send = async (options: TurnOptions): Promise<Anthropic.Message> => {
    const body = { model: options.model ?? model, max_tokens: 4096, messages, tools, ...(system ? { system } : {}) };
    return options.stream ? client.messages.stream(body).finalMessage() : client.messages.create(body);
  };
  return {
    messages,
    /** One user turn: requests until an answer without tool calls (bounded); returns every response. */
    async turn(text: string, options: TurnOptions): Promise<Anthropic.Message[]> {
      messages.push({ role: 'user', content: text });
      const responses: Anthropic.Message[] = [];
      for (let step = 0; step < 4; step += 1) {
        const response = await send(options);
        responses.push(response);
        messages.push({ role: 'assistant', content: response.content });
        const uses = response.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
        if (uses.length === 0) return responses;
        messages.push({
          role: 'user',
          content: uses.map((use) => ({
            type: 'tool_result' as const,
            tool_use_id: use.id,
            content: runClientTool(use.name, use.input as Record<string, unknown>),
          })),
        });
      }
      throw new Error('no final answer after 4 requests');
    },
  };
}

/** The text of a Messages response. */
export function messageText(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A Responses conversation held by the client (`store: false`), as Codex holds it. */
export function responsesConversation(client: OpenAI, model: string, instructions?: string) {
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  const tools: OpenAI.Responses.Tool[] = [
    { type: 'function', name: 'read_file', description: 'Read a file', parameters: READ_FILE_SCHEMA, strict: false },
  ];
  const send = async (options: TurnOptions): Promise<OpenAI.Responses.Response> => {
    const body = {
      model: options.model ?? model,
      input,
      tools,
      store: false,
      include: ['reasoning.encrypted_content' as const],
      ...(instructions ? { instructions } : {}),
    };
    return options.stream ? client.responses.stream(body).finalResponse() : client.responses.create(body);
  };
  return {
    input,
    /** One user turn: requests until an answer without tool calls (bounded); returns every response. */
    async turn(text: string, options: TurnOptions): Promise<OpenAI.Responses.Response[]> {
      input.push({ role: 'user', content: text });
      const responses: OpenAI.Responses.Response[] = [];
      for (let step = 0; step < 4; step += 1) {
        const response = await send(options);
        responses.push(response);
        input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
        const calls = response.output.filter(
          (item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call',
        );
        if (calls.length === 0) return responses;
        for (const call of calls) {
          const args = JSON.parse(call.arguments) as Record<string, unknown>;
          input.push({ type: 'function_call_output', call_id: call.call_id, output: runClientTool(call.name, args) });
        }
      }
      throw new Error('no final answer after 4 requests');
    },
  };
}

/** The output text of a Responses response. */
export function responseText(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

/** The HTTP statuses an upstream answered, in order. */
export function statuses(upstream: Upstream): number[] {
  return upstream.requests.map((request) => request.status);
}

/** One answer of either door, as the matrix tests compare them. */
export interface DoorAnswer {
  /** The readable reasoning of its reasoning block ('' without one). */
  reasoning: string;
  /** The handle of its reasoning block (the thinking `signature`, the item's `encrypted_content`). */
  handle: string | undefined;
  text: string;
  toolCalls: number;
}

/** A conversation on either door, the client holding the history and running the tool. */
export interface DoorConversation {
  turn(text: string, options: TurnOptions): Promise<DoorAnswer[]>;
}

/** The answer of a Messages response. */
export function messagesAnswer(message: Anthropic.Message): DoorAnswer {
  const thinking = message.content.find((block): block is Anthropic.ThinkingBlock => block.type === 'thinking');
  return {
    reasoning: thinking?.thinking ?? '',
    handle: thinking?.signature,
    text: messageText(message),
    toolCalls: message.content.filter((block) => block.type === 'tool_use').length,
  };
}

/** The answer of a Responses response. */
export function responsesAnswer(response: OpenAI.Responses.Response): DoorAnswer {
  const reasoning = response.output.find(
    (item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning',
  );
  return {
    reasoning: (reasoning?.summary ?? []).map((part) => part.text).join('\n\n'),
    handle: reasoning?.encrypted_content ?? undefined,
    text: responseText(response),
    toolCalls: response.output.filter((item) => item.type === 'function_call').length,
  };
}

/** A conversation on `door` through the official SDK of that door. */
export function doorConversation(
  door: 'messages' | 'responses',
  url: string,
  model: string,
  apiKey = 'client-key',
): DoorConversation {
  if (door === 'messages') {
    const chat = messagesConversation(new Anthropic({ baseURL: url, apiKey, maxRetries: 0 }), model);
    return { turn: async (text, options) => (await chat.turn(text, options)).map(messagesAnswer) };
  }
  const codex = responsesConversation(
    new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries: 0 }),
    model,
    'You are a coding agent.',
  );
  return { turn: async (text, options) => (await codex.turn(text, options)).map(responsesAnswer) };
}

/**
 * The matrix check of a door × upstream × streaming: a tool loop (call, then answer) and a
 * follow-up, each earlier turn's reasoning reported intact by the upstream. Returns the tool-call
 * answer (its reasoning is what the route must have got back).
 */
export async function expectToolLoopIntact(
  conversation: DoorConversation,
  stream: boolean,
  label: string,
): Promise<DoorAnswer> {
  const [call, answer] = await conversation.turn('read the file notes.txt', { stream });
  expect({ label, toolCalls: call?.toolCalls, sealed: /^hermes\.1\.[\w-]+\.[\w-]+$/.test(call?.handle ?? '') }).toEqual(
    {
      label,
      toolCalls: 1,
      sealed: true,
    },
  );
  expect(call?.reasoning).toContain('I should call read_file');
  expect({ label, text: answer?.text }).toEqual({
    label,
    text: expect.stringContaining('Reasoning continuity: intact (1/1).'),
  });
  const [thanks] = await conversation.turn('thanks', { stream });
  expect({ label, text: thanks?.text }).toEqual({
    label,
    text: expect.stringContaining('Reasoning continuity: intact (2/2).'),
  });
  return call as DoorAnswer;
}
