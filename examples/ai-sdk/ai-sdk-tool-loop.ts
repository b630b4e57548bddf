/**
 * An AI SDK tool loop on a Hermes route (docs/library.md): `generateText` or `streamText` with a
 * tool and `stopWhen: stepCountIs(3)`, through `createHermes` from `hermes-ts/ai-sdk`, against a
 * local emulator reached under the provider's real base URL (the `fetch` option maps it to
 * loopback, so the production rows of the route table apply). Then it checks, from the
 * emulator's request log, that the second request carries exactly what the route table says:
 * the body `hermes-ts/replay` builds for the same history (the step read back from
 * `providerMetadata.hermes`), every opaque carrier byte for byte, and the emulator's
 * "Reasoning continuity: intact" answer.
 *
 *   hermes emulate chat --persona deepseek     (prints: listening on http://127.0.0.1:PORT/v1)
 *   node dist/ai-sdk-tool-loop.js deepseek generate http://127.0.0.1:PORT/v1
 *
 * Routes: deepseek, openrouter (`hermes emulate chat --persona …`), anthropic, gemini, responses
 * (`hermes emulate anthropic|gemini|responses`). Modes: generate, stream.
 */
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createHermes, type HermesModelSettings } from 'hermes-ts/ai-sdk';
import { buildRequest, lookupRoute, type AssistantMessage, type Message, type ToolCall } from 'hermes-ts/replay';

type JsonObject = Record<string, unknown>;

const ROUTES: Record<string, { settings: Omit<HermesModelSettings, 'fetch'>; conversation: string }> = {
  deepseek: {
    settings: { provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: 'https://api.deepseek.com/v1' },
    conversation: 'messages',
  },
  openrouter: {
    settings: { provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', baseUrl: 'https://openrouter.ai/api/v1' },
    conversation: 'messages',
  },
  anthropic: {
    settings: { provider: 'anthropic', model: 'claude-opus-4-8', baseUrl: 'https://api.anthropic.com' },
    conversation: 'messages',
  },
  gemini: {
    settings: {
      provider: 'google',
      model: 'gemini-3-pro-preview',
      baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    },
    conversation: 'contents',
  },
  responses: {
    settings: { provider: 'openai-responses', model: 'gpt-5.4', baseUrl: 'https://api.openai.com/v1' },
    conversation: 'input',
  },
};

const [name = '', mode = '', emulatorBaseUrl = ''] = process.argv.slice(2);
const chosen = ROUTES[name];
if (!chosen || (mode !== 'generate' && mode !== 'stream') || !emulatorBaseUrl) {
  console.error(`usage: node ai-sdk-tool-loop.js ${Object.keys(ROUTES).join('|')} generate|stream EMULATOR_BASE_URL`);
  process.exit(2);
}
const realBaseUrl = chosen.settings.baseUrl ?? '';
const origin = new URL(emulatorBaseUrl).origin;

function fail(message: string): never {
  throw new Error(`${name} ${mode}: ${message}`);
}

// The real base URL, reached on the emulator (what HERMES_CONNECT_TO does for the CLI).
const mapped: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  return fetch(url.startsWith(realBaseUrl) ? emulatorBaseUrl + url.slice(realBaseUrl.length) : url, init);
};
await fetch(`${origin}/_emulator/requests`, { method: 'DELETE' });

const model = createHermes({ ...chosen.settings, apiKey: 'sk-example', fetch: mapped });
const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    }),
    execute: async ({ path }) => (path === 'notes.txt' ? 'buy milk\n' : `no file ${path}`),
  }),
};
const call = { model, prompt: 'read the file notes.txt', tools, stopWhen: stepCountIs(3) };
async function run() {
  if (mode === 'generate') {
    const result = await generateText(call);
    return { text: result.text, steps: result.steps };
  }
  const streamed = streamText(call);
  let deltas = '';
  for await (const delta of streamed.textStream) deltas += delta;
  const result = { text: await streamed.text, steps: await streamed.steps };
  if (deltas !== result.text) fail('streamed text differs from the final text');
  return result;
}
const { text, steps } = await run();

if (steps.length !== 2 || steps[0]?.toolCalls[0]?.toolName !== 'read_file')
  fail(`expected a read_file step, got ${steps.length} steps`);
if (!text.includes('buy milk') || !text.includes('Reasoning continuity: intact (1/1).')) fail(`answer: ${text}`);

// Step 1 as Hermes stored it: the record on its reasoning (or first tool-call) part, plus the parts.
const step = steps[0] ?? fail('no first step');
const reasoningPart = step.content.find((part) => part.type === 'reasoning');
const holder = (reasoningPart?.providerMetadata ?? step.toolCalls[0]?.providerMetadata)?.['hermes'] as
  JsonObject | undefined;
if (!holder) fail('no providerMetadata.hermes on the step');
// The record holds the exact text and reasoning only where the parts could not (docs/library.md).
const { content: exactContent, reasoning: exactReasoning, ...carrierFields } = holder['message'] as JsonObject;
const record: JsonObject = carrierFields;
const assistant = {
  ...record,
  role: 'assistant',
  content:
    typeof exactContent === 'string' || exactContent === null ? exactContent : step.text === '' ? null : step.text,
  ...(typeof exactReasoning === 'string' || exactReasoning === null
    ? { reasoning: exactReasoning }
    : step.reasoningText === undefined
      ? {}
      : { reasoning: step.reasoningText }),
  tool_calls: step.toolCalls.map((toolCall): ToolCall => {
    const own = ((toolCall.providerMetadata?.['hermes'] as JsonObject | undefined)?.['call'] ?? {}) as JsonObject;
    const { arguments: args, thought_signature: signature, ...extras } = own;
    return {
      ...extras,
      id: toolCall.toolCallId,
      type: 'function',
      function: {
        name: toolCall.toolName,
        arguments: String(args),
        ...(typeof signature === 'string' ? { thought_signature: signature } : {}),
      },
    };
  }),
  origin: holder['origin'],
} as AssistantMessage;
const history: Message[] = [
  { role: 'user', content: 'read the file notes.txt' },
  assistant,
  { role: 'tool', tool_call_id: step.toolCalls[0]?.toolCallId ?? '', tool_name: 'read_file', content: 'buy milk\n' },
];

const log = (await (await fetch(`${origin}/_emulator/requests`)).json()) as {
  status: number;
  body: JsonObject;
  raw: string;
}[];
if (log.map((request) => request.status).join(',') !== '200,200')
  fail(`statuses ${log.map((request) => request.status).join(',')}`);
const second = log[1];
if (!second) fail('no second request');
const route = { provider: chosen.settings.provider, model: chosen.settings.model, baseUrl: realBaseUrl };
const expected = buildRequest({ messages: history, route, stream: mode === 'stream' }).body;
const conversation = chosen.conversation;
if (JSON.stringify(second.body[conversation]) !== JSON.stringify(expected[conversation])) {
  fail(
    `request 2 ${conversation} differ from the route table's:\n${JSON.stringify(second.body[conversation])}\n${JSON.stringify(expected[conversation])}`,
  );
}

// Every opaque carrier of step 1 is in request 2 byte for byte.
const carriers: string[] = [];
const collect = (value: unknown): void => {
  if (Array.isArray(value)) value.forEach(collect);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (
        ['signature', 'thoughtSignature', 'encrypted_content', 'thought_signature', 'data'].includes(key) &&
        typeof inner === 'string'
      ) {
        carriers.push(inner);
      } else collect(inner);
    }
  }
};
collect(record);
if (typeof record['reasoning_content'] === 'string' && lookupRoute(route).chat.carriers.includes('reasoning_content')) {
  carriers.push(record['reasoning_content']);
}
if (carriers.length === 0) fail('step 1 has no reasoning carrier');
for (const carrier of carriers)
  if (!second.raw.includes(JSON.stringify(carrier))) fail(`carrier missing from request 2: ${carrier.slice(0, 40)}…`);

const table =
  chosen.conversation === 'messages' && name !== 'anthropic'
    ? ` (route row: ${lookupRoute(route).chat.carriers.join(', ')})`
    : '';
console.log(
  `${name} ${mode}: request 2 is the route table's${table}, ${carriers.length} carrier(s) byte for byte, continuity intact`,
);
