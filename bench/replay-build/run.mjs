// Bench: building the chat-completions wire copy. Measures the SHIPPED code in dist/
// (run `npm run build` first) against two anchors on the same history: one JSON.stringify of the
// resulting body (the floor) and pi-ai's openai-completions `convertMessages` fed the equivalent
// pi context. Deterministic history generator; warm-up first; medians of several iterations.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { convertMessages } from '@mariozechner/pi-ai/openai-completions';
import { prepareChatCompletions } from '../../dist/transports/chat-completions/chat-completions-encode.js';

const SIZES = [500, 2000, 8000];
const ROUTE = {
  api: 'chat_completions',
  provider: 'openrouter',
  model: 'anthropic/claude-sonnet-4',
  baseUrl: 'https://openrouter.ai/api/v1',
};
const ORIGIN = { api: 'chat_completions', provider: 'openrouter', host: 'openrouter.ai', model: ROUTE.model };

// Mulberry32: a tiny deterministic PRNG so every run builds the same history.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'the model considers which file to read next because the user asked about the build and tests'.split(' ');
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const prose = (next, bytes) => {
  let text = '';
  while (text.length < bytes) text += `${WORDS[Math.floor(next() * WORDS.length)]} `;
  return text.slice(0, bytes);
};
const blob = (next, bytes) => {
  let text = '';
  for (let index = 0; index < bytes; index++) text += BASE64[Math.floor(next() * 64)];
  return text;
};

/** Canonical history of `count` messages plus the equivalent pi context. */
function makeHistory(count, seed = 42) {
  const next = random(seed);
  const history = [];
  const pi = [];
  let turn = 0;
  while (history.length < count) {
    turn += 1;
    const userText = prose(next, 200 + Math.floor(next() * 600));
    history.push({ role: 'user', content: userText, timestamp: turn });
    pi.push({ role: 'user', content: userText, timestamp: turn });
    const reasoning = prose(next, 2048 + Math.floor(next() * 6144));
    const signature = blob(next, 400);
    const encrypted = blob(next, 1024 + Math.floor(next() * 3072));
    const callId = `call_${turn}`;
    const args = JSON.stringify({ path: `src/file-${turn}.ts`, limit: 200 });
    const withRecord = turn % 5 === 0;
    history.push({
      role: 'assistant',
      content: null,
      reasoning,
      reasoning_content: reasoning,
      reasoning_details: [
        { type: 'reasoning.text', text: reasoning, signature, format: 'anthropic-claude-v1', index: 0 },
        { type: 'reasoning.encrypted', data: encrypted, format: 'openai-responses-v1', id: `rs_${turn}`, index: 1 },
        ...(withRecord ? [{ type: 'hermes.native_assistant', reasoning_opaque: blob(next, 800) }] : []),
      ],
      tool_calls: [{ id: callId, type: 'function', function: { name: 'read_file', arguments: args } }],
      finish_reason: 'tool_calls',
      origin: ORIGIN,
      timestamp: turn,
    });
    pi.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: reasoning, thinkingSignature: 'reasoning_content' },
        { type: 'toolCall', id: callId, name: 'read_file', arguments: JSON.parse(args) },
      ],
      api: 'openai-completions',
      provider: 'openrouter',
      model: ROUTE.model,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'toolUse',
      timestamp: turn,
    });
    const output = prose(next, 500 + Math.floor(next() * 1500));
    history.push({ role: 'tool', tool_call_id: callId, content: output, tool_name: 'read_file', timestamp: turn });
    pi.push({
      role: 'toolResult',
      toolCallId: callId,
      toolName: 'read_file',
      content: [{ type: 'text', text: output }],
      isError: false,
      timestamp: turn,
    });
    const answer = prose(next, 300 + Math.floor(next() * 900));
    const answerReasoning = prose(next, 2048 + Math.floor(next() * 2048));
    history.push({
      role: 'assistant',
      content: answer,
      reasoning: answerReasoning,
      reasoning_content: answerReasoning,
      origin: ORIGIN,
      timestamp: turn,
    });
    pi.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: answerReasoning, thinkingSignature: 'reasoning_content' },
        { type: 'text', text: answer },
      ],
      api: 'openai-completions',
      provider: 'openrouter',
      model: ROUTE.model,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: turn,
    });
  }
  return { history: history.slice(0, count), pi: { messages: pi.slice(0, count) } };
}

const PI_MODEL = {
  id: ROUTE.model,
  name: ROUTE.model,
  api: 'openai-completions',
  provider: 'openrouter',
  baseUrl: ROUTE.baseUrl,
  reasoning: true,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200000,
  maxTokens: 8192,
};
const PI_COMPAT = {
  supportsDeveloperRole: false,
  requiresAssistantAfterToolResult: false,
  requiresThinkingAsText: false,
  requiresToolResultName: false,
  requiresReasoningContentOnAssistantMessages: false,
};

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Collect garbage before each timed run so one contender's garbage is not billed to the next.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');

function measure(run, iterations, warmup) {
  for (let index = 0; index < warmup; index++) run();
  const times = [];
  for (let index = 0; index < iterations; index++) {
    collectGarbage();
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return median(times);
}

const results = [];
for (const size of SIZES) {
  const { history, pi } = makeHistory(size);
  const request = { route: ROUTE, history, tools: [], reasoning: { enabled: true } };
  const iterations = size >= 8000 ? 9 : size >= 2000 ? 15 : 31;
  const warmup = 5;
  let body;
  const ours = measure(
    () => {
      body = prepareChatCompletions(request).body;
    },
    iterations,
    warmup,
  );
  // The same build with every decision materialised and sized, as `--explain` and the request
  // log line read them (decisions are otherwise materialised lazily).
  const explained = measure(
    () => {
      const prepared = prepareChatCompletions(request);
      let total = 0;
      for (const decision of prepared.decisions) total += decision.bytes ?? 0;
      return total;
    },
    iterations,
    warmup,
  );
  let bytes = 0;
  const floor = measure(
    () => {
      bytes = JSON.stringify(body).length;
    },
    iterations,
    warmup,
  );
  const piTime = measure(() => convertMessages(PI_MODEL, pi, PI_COMPAT), iterations, warmup);
  results.push({ size, ours, explained, floor, pi: piTime, megabytes: bytes / 1e6 });
}

const pad = (value, width) => String(value).padStart(width);
const ms = (value) => value.toFixed(2);
console.log('replay-build: chat-completions wire copy (openrouter, full carriers, same-issuer blobs kept)');
console.log(
  `${pad('messages', 9)} ${pad('body MB', 8)} ${pad('ours ms', 9)} ${pad('+explain ms', 12)} ${pad('stringify ms', 13)} ${pad('pi-ai ms', 9)} ${pad('ours/stringify', 15)} ${pad('pi/ours', 8)} ${pad('ours µs/msg', 12)}`,
);
for (const row of results) {
  console.log(
    `${pad(row.size, 9)} ${pad(row.megabytes.toFixed(1), 8)} ${pad(ms(row.ours), 9)} ${pad(ms(row.explained), 12)} ${pad(ms(row.floor), 13)} ${pad(ms(row.pi), 9)} ${pad((row.ours / row.floor).toFixed(2), 15)} ${pad((row.pi / row.ours).toFixed(2), 8)} ${pad(((row.ours / row.size) * 1000).toFixed(2), 12)}`,
  );
}
const first = results[0];
const last = results.at(-1);
const growth = last.ours / first.ours;
const sizeRatio = last.size / first.size;
console.log(
  `growth ${first.size}→${last.size} messages (×${sizeRatio}): ours ×${growth.toFixed(2)} (linear = ×${sizeRatio}; per-message cost ratio ${(growth / sizeRatio).toFixed(2)})`,
);
console.log('targets: linear growth, ours/stringify ≤ 1.5, pi/ours ≥ 2');
