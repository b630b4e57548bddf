// bench/gateway/gateway-front-door-turns.mjs: the client side of the front-door bench
// (bench/front-doors/run.mjs). Each client holds its conversation and runs its own tool, the way
// Claude Code and Codex do, and sends every request through one of the doors:
//
//   messages-json / messages-sse     @anthropic-ai/sdk, POST /v1/messages (create / stream)
//   responses-json / responses-sse   openai SDK, POST /v1/responses, store:false (create / stream)
//   chat-tools-json                  openai SDK, POST /v1/chat/completions with client tools
//   gemini-json / gemini-sse         @google/genai, POST /v1beta/models/…:generateContent /
//                                    :streamGenerateContent (thought parts dropped, as Gemini CLI)
//   floor-chat                       openai SDK, chat completions through the plain proxy
//
// Every request is one upstream request to the same DeepSeek emulator. A conversation asks
// "read the file notes.txt", answers the tool call, and goes on until `requestsPerConversation`
// requests were sent, then starts again, so the history a request carries (and, on the doors,
// the handles it holds) is the same at every level. The server's CPU per request is read over
// IPC (`process.cpuUsage` of the server child).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { GoogleGenAI } from '@google/genai';
import { performance } from 'node:perf_hooks';

const READ_FILE = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
};
// Each conversation reads its own file, so conversations differ as real ones do (the emulator's
// answers follow the question): the Gemini door finds a conversation by what the client saw of
// its answers, and identical conversations would all look like one (gateway-front-door-conversations.ts).
let conversations = 0;
const newQuestion = () => `read the file notes-${(conversations += 1)}.txt`;
const FILE_TEXT = 'alpha beta\n';

/** A conversation on one door: `next()` sends one request and folds the answer into the history. */
function conversation(door, url) {
  if (door.startsWith('messages')) return messagesConversation(url, door.endsWith('sse'));
  if (door.startsWith('responses')) return responsesConversation(url, door.endsWith('sse'));
  if (door.startsWith('gemini')) return geminiConversation(url, door.endsWith('sse'));
  return chatConversation(door === 'floor-chat' ? url : `${url}/v1`);
}

function messagesConversation(url, stream) {
  const QUESTION = newQuestion();
  const client = new Anthropic({ baseURL: url, apiKey: 'bench', maxRetries: 0 });
  const tools = [{ name: 'read_file', description: 'Read a file', input_schema: READ_FILE }];
  const messages = [];
  let pending = [];
  return {
    async next() {
      if (pending.length) messages.push({ role: 'user', content: pending });
      else messages.push({ role: 'user', content: QUESTION });
      const body = { model: 'deepseek-v4-flash', max_tokens: 1024, messages, tools };
      const answer = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
      messages.push({ role: 'assistant', content: answer.content });
      pending = answer.content
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ type: 'tool_result', tool_use_id: block.id, content: FILE_TEXT }));
    },
  };
}

function responsesConversation(url, stream) {
  const QUESTION = newQuestion();
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'bench', maxRetries: 0 });
  const tools = [
    { type: 'function', name: 'read_file', description: 'Read a file', parameters: READ_FILE, strict: false },
  ];
  const input = [];
  let pending = [];
  return {
    async next() {
      if (pending.length) input.push(...pending);
      else input.push({ role: 'user', content: QUESTION });
      const body = { model: 'deepseek-v4-flash', input, tools, store: false, include: ['reasoning.encrypted_content'] };
      const answer = stream ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
      input.push(...answer.output);
      pending = answer.output
        .filter((item) => item.type === 'function_call')
        .map((item) => ({ type: 'function_call_output', call_id: item.call_id, output: FILE_TEXT }));
    },
  };
}

function geminiConversation(url, stream) {
  const QUESTION = newQuestion();
  const client = new GoogleGenAI({ apiKey: 'bench', httpOptions: { baseUrl: url } });
  const config = {
    tools: [
      { functionDeclarations: [{ name: 'read_file', description: 'Read a file', parametersJsonSchema: READ_FILE }] },
    ],
    thinkingConfig: { includeThoughts: true },
  };
  const contents = [];
  let pending = [];
  return {
    async next() {
      if (pending.length) contents.push({ role: 'user', parts: pending });
      else contents.push({ role: 'user', parts: [{ text: QUESTION }] });
      const request = { model: 'deepseek-v4-flash', contents, config };
      const chunks = [];
      if (stream) for await (const chunk of await client.models.generateContentStream(request)) chunks.push(chunk);
      else chunks.push(await client.models.generateContent(request));
      const parts = chunks
        .flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
        .filter((part) => !part.thought);
      contents.push({ role: 'model', parts });
      pending = parts
        .filter((part) => part.functionCall)
        .map((part) => ({
          functionResponse: { id: part.functionCall.id, name: part.functionCall.name, response: { output: FILE_TEXT } },
        }));
    },
  };
}

function chatConversation(baseURL) {
  const QUESTION = newQuestion();
  const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0 });
  const tools = [
    { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: READ_FILE } },
  ];
  const messages = [];
  let pending = [];
  return {
    async next() {
      if (pending.length) messages.push(...pending);
      else messages.push({ role: 'user', content: QUESTION });
      const answer = await client.chat.completions.create({ model: 'deepseek-v4-flash', messages, tools });
      const message = answer.choices[0].message;
      messages.push({
        role: 'assistant',
        content: message.content,
        reasoning_content: message.reasoning_content ?? '',
        ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}),
      });
      pending = (message.tool_calls ?? []).map((call) => ({ role: 'tool', tool_call_id: call.id, content: FILE_TEXT }));
    },
  };
}

/**
 * Sends `requests` requests on `door` with `workers` concurrent conversations; returns the
 * server CPU per request (ms) and requests per second.
 */
export async function measureDoor(server, door, { workers, requests, requestsPerConversation }) {
  let sent = 0;
  const cpuBefore = await server.cpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      let current = conversation(door, server.url);
      let inConversation = 0;
      while (sent < requests) {
        sent += 1;
        if (inConversation === requestsPerConversation) {
          current = conversation(door, server.url);
          inConversation = 0;
        }
        await current.next();
        inConversation += 1;
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpuAfter = await server.cpu();
  const cpuMs = (cpuAfter.user - cpuBefore.user + cpuAfter.system - cpuBefore.system) / 1000;
  return { cpuMsPerRequest: cpuMs / requests, requestsPerSecond: (requests / wallMs) * 1000 };
}

/** The doors the gateway serves, in the order the table prints them. */
export const GATEWAY_DOORS = [
  'messages-json',
  'messages-sse',
  'responses-json',
  'responses-sse',
  'chat-tools-json',
  'gemini-json',
  'gemini-sse',
];

/** The floor's own client. */
export const FLOOR_DOOR = 'floor-chat';
