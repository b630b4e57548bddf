// Bench: building and serializing the chat-completions request. Measures the SHIPPED code in
// dist/ (run `npm run build` first; `npm run bench -- replay-build` does) on one deterministic
// OpenRouter-shaped history (history.mjs), against:
// - JSON.stringify of our body (the floor of serialization alone);
// - pi-ai: openai-completions `convertMessages` on the equivalent pi context, + JSON.stringify;
// - Vercel AI SDK (@ai-sdk/openai-compatible 2.x), two ways on the equivalent LanguageModelV3
//   prompt: `chatModel(id).doGenerate()` with a `fetch` that captures the body and answers a
//   canned completion (its real request path: getArgs → convert → JSON.stringify, which it does
//   twice, + postJsonToApi), and its internal `convertToOpenAICompatibleChatMessages` + one
//   JSON.stringify (convert + stringify alone).
// "Cold" builds see every stored message for the first time (fresh message objects per round,
// made outside the timed region), so nothing is reused; "turn N+1" appends one new turn (4
// messages) to a history whose earlier messages were already sent once, as a warm session does.
// Medians and minimums over rounds; warm-up first; GC before each timed round.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { convertMessages } from '@mariozechner/pi-ai/openai-completions';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { convertToOpenAICompatibleChatMessages } from '@ai-sdk/openai-compatible/internal';
import { prepareChatCompletions } from '../../dist/transports/chat-completions/chat-completions-encode.js';
import { serializeRequestBody, serializeRequestBodyChunks } from '../../dist/transports/shared/request-body.js';
import { ROUTE, makeHistory, makeNextTurn } from './history.mjs';

const SIZES = [500, 2000, 8000];
const COMPARED_SIZES = [2000, 8000];

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

// The AI SDK's request path with the network replaced: the body is captured, the answer canned.
let capturedBytes = 0;
const CANNED = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 0,
  model: ROUTE.model,
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const aiModel = createOpenAICompatible({
  name: 'openrouter',
  baseURL: ROUTE.baseUrl,
  apiKey: 'bench',
  fetch: async (_url, init) => {
    capturedBytes = init.body.length;
    return new globalThis.Response(CANNED, { status: 200, headers: { 'content-type': 'application/json' } });
  },
}).chatModel(ROUTE.model);

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Collect garbage before each timed run so one contender's garbage is not billed to the next.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');

/** Times `run(setup())` (setup untimed); returns {median, min} in ms. `run` may return a promise. */
async function measure(run, iterations, warmup, setup = () => undefined) {
  for (let index = 0; index < warmup; index++) await run(setup());
  const times = [];
  for (let index = 0; index < iterations; index++) {
    const input = setup();
    collectGarbage();
    const start = performance.now();
    await run(input);
    times.push(performance.now() - start);
  }
  return { median: median(times), min: Math.min(...times) };
}

/** Fresh top-level message objects: the encoder has seen none of them (its reuse is keyed by the stored object). */
const coldCopy = (history) => history.map((message) => ({ ...message }));
const requestOf = (history, route = ROUTE) => ({ route, history, tools: [], reasoning: { enabled: true } });
const buildBody = (history, route = ROUTE) => serializeRequestBody(prepareChatCompletions(requestOf(history, route)));
// The same history on a route that reads `reasoning_content` only: the carriers the AI SDK sends,
// so the two bodies are the same size (the OpenRouter body also carries `reasoning`,
// `reasoning_details` and its signed / encrypted blobs).
const SAME_CARRIERS_ROUTE = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-reasoner' };
const iterationsFor = (size) => (size >= 8000 ? 9 : size >= 2000 ? 15 : 31);
const WARMUP = 5;

const pad = (value, width) => String(value).padStart(width);
const ms = (value) => value.toFixed(2);
const both = (timing) => `${ms(timing.min)}/${ms(timing.median)}`;

// 1. The encoder alone, cold, and its growth with history length.
const growth = [];
for (const size of SIZES) {
  const { history } = makeHistory(size);
  const iterations = iterationsFor(size);
  let body;
  const ours = await measure(
    (input) => {
      body = prepareChatCompletions(requestOf(input)).body;
    },
    iterations,
    WARMUP,
    () => coldCopy(history),
  );
  // The same build with every decision materialised and sized, as `--explain` and the request
  // log line read them (decisions are otherwise materialised lazily).
  const explained = await measure(
    (input) => {
      let total = 0;
      for (const decision of prepareChatCompletions(requestOf(input)).decisions) total += decision.bytes ?? 0;
      return total;
    },
    iterations,
    WARMUP,
    () => coldCopy(history),
  );
  let bytes = 0;
  const floor = await measure(
    () => {
      bytes = JSON.stringify(body).length;
    },
    iterations,
    WARMUP,
  );
  growth.push({ size, ours: ours.median, explained: explained.median, floor: floor.median, megabytes: bytes / 1e6 });
}
console.log('replay-build: chat-completions wire copy (openrouter, full carriers, same-issuer blobs kept), cold');
console.log(
  `${pad('messages', 9)} ${pad('body MB', 8)} ${pad('encode ms', 10)} ${pad('+explain ms', 12)} ${pad('stringify ms', 13)} ${pad('encode/stringify', 17)} ${pad('µs/msg', 8)}`,
);
for (const row of growth) {
  console.log(
    `${pad(row.size, 9)} ${pad(row.megabytes.toFixed(1), 8)} ${pad(ms(row.ours), 10)} ${pad(ms(row.explained), 12)} ${pad(ms(row.floor), 13)} ${pad((row.ours / row.floor).toFixed(2), 17)} ${pad(((row.ours / row.size) * 1000).toFixed(2), 8)}`,
  );
}
const first = growth[0];
const last = growth.at(-1);
const sizeRatio = last.size / first.size;
console.log(
  `growth ${first.size}→${last.size} messages (×${sizeRatio}): encode ×${(last.ours / first.ours).toFixed(2)} (linear = ×${sizeRatio})`,
);

// 2. Full build + serialize vs pi-ai and the AI SDK; turn N+1 on a warm history vs a full build.
console.log('\nfull request text (build + serialize), cold, ms min/median; ratios of medians');
console.log(
  `${pad('messages', 9)} ${pad('ours', 13)} ${pad('AI SDK doGenerate', 18)} ${pad('AI SDK conv+str', 16)} ${pad('pi-ai conv+str', 15)} ${pad('ours/doGen', 11)} ${pad('ours/AIconv', 12)} ${pad('ours/pi', 8)} ${pad('ours MB', 8)} ${pad('AI SDK MB', 10)}`,
);
const incremental = [];
const sameCarriers = [];
for (const size of COMPARED_SIZES) {
  const { history, pi, prompt } = makeHistory(size);
  const iterations = iterationsFor(size);
  let oursBytes = 0;
  const ours = await measure(
    (input) => {
      oursBytes = buildBody(input).length;
    },
    iterations,
    WARMUP,
    () => coldCopy(history),
  );
  let sameBytes = 0;
  const same = await measure(
    (input) => {
      sameBytes = buildBody(input, SAME_CARRIERS_ROUTE).length;
    },
    iterations,
    WARMUP,
    () => coldCopy(history),
  );
  const doGenerate = await measure(() => aiModel.doGenerate({ prompt }), iterations, WARMUP);
  const aiConvert = await measure(
    () => JSON.stringify({ model: ROUTE.model, messages: convertToOpenAICompatibleChatMessages(prompt) }).length,
    iterations,
    WARMUP,
  );
  const piConvert = await measure(
    () => JSON.stringify({ model: ROUTE.model, messages: convertMessages(PI_MODEL, pi, PI_COMPAT) }).length,
    iterations,
    WARMUP,
  );
  sameCarriers.push({ size, same, doGenerate, aiConvert, sameBytes });
  console.log(
    `${pad(size, 9)} ${pad(both(ours), 13)} ${pad(both(doGenerate), 18)} ${pad(both(aiConvert), 16)} ${pad(both(piConvert), 15)} ${pad((ours.median / doGenerate.median).toFixed(2), 11)} ${pad((ours.median / aiConvert.median).toFixed(2), 12)} ${pad((ours.median / piConvert.median).toFixed(2), 8)} ${pad((oursBytes / 1e6).toFixed(1), 8)} ${pad((capturedBytes / 1e6).toFixed(1), 10)}`,
  );

  // Turn N+1: the first `size` messages were sent once already (same stored objects); one new
  // turn is appended. Each round appends a different new turn, so only the prefix is warm.
  buildBody(history);
  let turn = 1_000_000;
  const nextHistory = () => [...history, ...makeNextTurn((turn += 1))];
  const check = nextHistory();
  if (buildBody(check) !== buildBody(coldCopy(check))) throw new Error('turn N+1 text differs from a full build');
  const warm = await measure((input) => buildBody(input).length, iterations, WARMUP, nextHistory);
  const cold = await measure(
    (input) => buildBody(input).length,
    iterations,
    WARMUP,
    () => coldCopy(nextHistory()),
  );
  // As sent: the byte chunks the transports hand the HTTP client (serializeRequestBodyChunks),
  // cached texts as their kept bytes; the client writes them to the socket one by one.
  const sentBytes = (input) => {
    let length = 0;
    for (const chunk of serializeRequestBodyChunks(prepareChatCompletions(requestOf(input))))
      length += chunk.byteLength;
    return length;
  };
  const warmSent = await measure(sentBytes, iterations, WARMUP, nextHistory);
  const coldSent = await measure(sentBytes, iterations, WARMUP, () => coldCopy(nextHistory()));
  incremental.push({ size, warm, cold, warmSent, coldSent });
}
console.log('\nsame carriers as the AI SDK (deepseek route: reasoning_content only), cold, ms min/median');
console.log(
  `${pad('messages', 9)} ${pad('ours', 13)} ${pad('AI SDK doGenerate', 18)} ${pad('ours/doGen', 11)} ${pad('ours/AIconv', 12)} ${pad('ours MB', 8)}`,
);
for (const row of sameCarriers) {
  console.log(
    `${pad(row.size, 9)} ${pad(both(row.same), 13)} ${pad(both(row.doGenerate), 18)} ${pad((row.same.median / row.doGenerate.median).toFixed(2), 11)} ${pad((row.same.median / row.aiConvert.median).toFixed(2), 12)} ${pad((row.sameBytes / 1e6).toFixed(1), 8)}`,
  );
}
console.log(
  '\nturn N+1 (N sent before + 4 new messages) vs a full build of the same history, ms min/median: as text (replay preview), and as the bytes a transport sends (the goal)',
);
console.log(
  `${pad('N', 9)} ${pad('turn N+1', 13)} ${pad('full build', 15)} ${pad('N+1/full', 9)} ${pad('bytes: N+1', 13)} ${pad('full', 15)} ${pad('N+1/full', 9)}`,
);
for (const row of incremental) {
  console.log(
    `${pad(row.size, 9)} ${pad(both(row.warm), 13)} ${pad(both(row.cold), 15)} ${pad((row.warm.median / row.cold.median).toFixed(3), 9)} ${pad(both(row.warmSent), 13)} ${pad(both(row.coldSent), 15)} ${pad((row.warmSent.median / row.coldSent.median).toFixed(3), 9)}`,
  );
}
console.log(
  'targets: linear growth; turn N+1 as sent ≤ 0.1× a full build as sent at 8,000 messages; full build ≤ 1.0× the AI SDK (doGenerate)',
);
// One machine-readable line for other benches (bench/turn-cost).
console.log(
  `json ${JSON.stringify({ incremental: incremental.map((row) => ({ size: row.size, warm: row.warm.median, full: row.cold.median, warmSent: row.warmSent.median, fullSent: row.coldSent.median })) })}`,
);
