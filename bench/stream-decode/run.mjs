// Stream-decode throughput, bytes in → events out, on the same recorded-style chat-completions
// SSE bytes fed as network-sized pieces (1 B–16 KiB, cut anywhere, mid-character included):
//
// - hermes transport: the PRODUCTION path — `createChatCompletionsTransport({ fetch })` whose fetch
//   answers the bytes as a `text/event-stream` body; `send()` runs the request's time limits
//   (fetchWithDeadlines, keep-alive detection), the shared send (transport-send.ts: each network
//   read → SSE framer → decoder.push → EventStream) and the consumer iterates the EventStream.
// - hermes decode core: the same framer + decoder, synchronous (decodeServerSentEvents), no I/O.
// - openai@6: `Stream.fromSSEResponse` (its SSE line decoder + JSON.parse; no message assembly).
// - Vercel AI SDK: `createOpenAICompatible(...).chatModel(id).doStream()` (@ai-sdk/openai-compatible
//   2.x: provider-utils' EventSourceParserStream + zod-validated chunks → stream parts), with a
//   fetch that answers the same bytes.
//
// Two workloads: per-event (many small deltas, ~200 B events) and bulk (few events of 64–512 KiB).
// Prints min and median over rounds and the throughput ratios. Run after `npm run build` (it
// measures dist/): `npm run bench -- stream-decode` or `node bench/stream-decode/run.mjs`.
// BENCH_STREAM_BYTES (per workload, default 8 MiB) and BENCH_RUNS (default 7) size it.
/* global TextEncoder, ReadableStream, Response, AbortController */
import { performance } from 'node:perf_hooks';
import { Stream } from 'openai/streaming';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { decodeServerSentEvents } from '../../dist/transports/shared/transport-sse-reader.js';
import { createChatCompletionsDecoder } from '../../dist/transports/chat-completions/chat-completions-decode.js';
import { createChatCompletionsTransport } from '../../dist/transports/chat-completions/chat-completions-transport.js';
import { seededRandom } from '../seeded-random.mjs';

const TARGET_BYTES = Number(process.env.BENCH_STREAM_BYTES ?? 8 * 1024 * 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const random = seededRandom(20261129);
const WORDS = [
  'the',
  'user',
  'wants',
  'to',
  'read',
  'file',
  'so',
  'I',
  'should',
  'call',
  'tool',
  'first',
  'then',
  'answer',
  '2+2',
  '=',
  '4.',
  'Let',
  'me',
  'think',
  'über',
  '— 😊',
  'carefully',
  'about',
  'edge',
  'cases',
];
const words = (count) =>
  Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + ' ';
const base64 = (length) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let out = '';
  for (let index = 0; index < length; index += 1) out += alphabet[Math.floor(random() * 64)];
  return out;
};

/** One recorded-style response: DeepSeek-like or OpenRouter-like reasoning, content, tool-call deltas, usage. */
function generateResponse(responseIndex) {
  const id = `gen-${responseIndex}`;
  const frame = (delta, finish = null, extra = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1764661832, model: 'bench-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
  const parts = [];
  const openrouterStyle = responseIndex % 2 === 1;
  if (openrouterStyle) parts.push(': OPENROUTER PROCESSING\n\n');
  parts.push(frame({ role: 'assistant', content: null, reasoning_content: openrouterStyle ? null : '' }));
  const reasoningChunks = 150 + Math.floor(random() * 150);
  for (let index = 0; index < reasoningChunks; index += 1) {
    const text = words(1 + Math.floor(random() * 4));
    parts.push(
      openrouterStyle
        ? frame({
            content: '',
            reasoning: text,
            reasoning_details: [{ type: 'reasoning.text', text, format: 'anthropic-claude-v1', index: 0 }],
          })
        : frame({ content: null, reasoning_content: text }),
    );
  }
  if (openrouterStyle) {
    parts.push(
      frame({
        content: '',
        reasoning: null,
        reasoning_details: [
          { type: 'reasoning.text', text: '', signature: base64(400), format: 'anthropic-claude-v1', index: 0 },
        ],
      }),
    );
    parts.push(
      frame({
        content: '',
        reasoning_details: [
          {
            type: 'reasoning.encrypted',
            data: base64(1500),
            id: `rs_${responseIndex}`,
            format: 'openai-responses-v1',
            index: 1,
          },
        ],
      }),
    );
  }
  const contentChunks = 80 + Math.floor(random() * 120);
  for (let index = 0; index < contentChunks; index += 1)
    parts.push(frame({ content: words(1 + Math.floor(random() * 3)) }));
  const toolCall = responseIndex % 3 === 0;
  if (toolCall) {
    parts.push(
      frame({
        tool_calls: [
          { index: 0, id: `call_${responseIndex}`, type: 'function', function: { name: 'read_file', arguments: '' } },
        ],
      }),
    );
    const argumentsText = JSON.stringify({ path: `src/file-${responseIndex}.ts`, reason: words(20) });
    for (let offset = 0; offset < argumentsText.length; offset += 4) {
      parts.push(
        frame({ tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(offset, offset + 4) } }] }),
      );
    }
  }
  parts.push(frame({}, toolCall ? 'tool_calls' : 'stop'));
  parts.push(
    `data: ${JSON.stringify({ id, choices: [], usage: { prompt_tokens: 100, completion_tokens: 500, total_tokens: 600, completion_tokens_details: { reasoning_tokens: 300 }, prompt_tokens_details: { cached_tokens: 20 } } })}\n\n`,
  );
  parts.push('data: [DONE]\n\n');
  return new TextEncoder().encode(parts.join(''));
}

/** One bulk response: a few very large content (and reasoning) deltas, then finish, usage, [DONE]. */
function generateBulkResponse(responseIndex) {
  const id = `bulk-${responseIndex}`;
  const frame = (delta, finish = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1764661832, model: 'bench-model', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const parts = [frame({ role: 'assistant', content: null })];
  const big = () => {
    let text = '';
    const size = 64 * 1024 + Math.floor(random() * 448 * 1024);
    while (text.length < size) text += words(64);
    return text;
  };
  parts.push(frame({ content: null, reasoning_content: big() }));
  for (let index = 0; index < 3; index += 1) parts.push(frame({ content: big() }));
  parts.push(frame({}, 'stop'));
  parts.push(
    `data: ${JSON.stringify({ id, choices: [], usage: { prompt_tokens: 100, completion_tokens: 500, total_tokens: 600 } })}\n\n`,
  );
  parts.push('data: [DONE]\n\n');
  return new TextEncoder().encode(parts.join(''));
}

/** Splits bytes like network reads: 1 B–16 KiB pieces, boundaries anywhere (mid-line, mid-character). */
function splitLikeNetwork(bytes) {
  const pieces = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * 16384);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

function workload(generate) {
  const responses = [];
  let bytes = 0;
  while (bytes < TARGET_BYTES) {
    const encoded = generate(responses.length);
    responses.push(splitLikeNetwork(encoded));
    bytes += encoded.length;
  }
  return { responses, bytes };
}

function bodyOf(pieces) {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < pieces.length) controller.enqueue(pieces[index++]);
      else controller.close();
    },
  });
}

const sseResponse = (pieces) =>
  new Response(bodyOf(pieces), { status: 200, headers: { 'content-type': 'text/event-stream' } });

/** A fetch that answers each call with the next response's bytes. */
function fetchFor(responses) {
  let next = 0;
  return async () => sseResponse(responses[next++ % responses.length]);
}

const REQUEST = {
  route: { api: 'chat_completions', provider: 'bench', model: 'bench-model', baseUrl: 'http://bench.invalid/v1' },
  history: [],
  tools: [],
  reasoning: { enabled: false },
};
const PREPARED = {
  url: 'http://bench.invalid/v1/chat/completions',
  body: { model: 'bench-model', messages: [{ role: 'user', content: 'hi' }], stream: true },
  decisions: [],
  carriersSent: [],
  routeKey: 'bench|bench.invalid|bench-model',
};

/** The production path: the chat-completions transport's send(), consumed as the runtime does. */
async function hermesTransport({ responses }) {
  const transport = createChatCompletionsTransport({ fetch: fetchFor(responses), isMustEcho: () => false });
  let events = 0;
  for (let index = 0; index < responses.length; index += 1) {
    let last;
    for await (const event of transport.send(REQUEST, PREPARED)) {
      events += 1;
      last = event;
    }
    if (last?.type !== 'finish') throw new Error(`bench stream did not finish: ${last?.error?.message}`);
  }
  return events;
}

/** The same framer and decoder, synchronous (no fetch, no body reader, no EventStream). */
async function hermesDecodeCore({ responses }) {
  let events = 0;
  for (const pieces of responses) {
    const out = decodeServerSentEvents(createChatCompletionsDecoder({ mustEcho: false, provider: 'bench' }), pieces);
    if (out.at(-1)?.type !== 'finish') throw new Error('bench stream did not finish');
    events += out.length;
  }
  return events;
}

/** openai@6: `Stream.fromSSEResponse` parses SSE + JSON and yields chunk objects (no message assembly). */
async function openaiStream({ responses }) {
  let events = 0;
  for (const pieces of responses) {
    const stream = Stream.fromSSEResponse(sseResponse(pieces), new AbortController());
    for await (const chunk of stream) if (chunk) events += 1;
  }
  return events;
}

/** Vercel AI SDK: the openai-compatible chat model's doStream over a fetch that answers the bytes. */
async function vercelStream({ responses }) {
  const provider = createOpenAICompatible({
    name: 'bench',
    baseURL: 'http://bench.invalid/v1',
    fetch: fetchFor(responses),
  });
  const model = provider.chatModel('bench-model');
  let events = 0;
  for (let index = 0; index < responses.length; index += 1) {
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    let last;
    for await (const part of stream) {
      events += 1;
      last = part;
    }
    if (last?.type !== 'finish') throw new Error(`vercel stream did not finish: ${JSON.stringify(last)}`);
  }
  return events;
}

const RUNNERS = [
  ['hermes transport (production path)', hermesTransport],
  ['hermes decode core (sync framer + decoder)', hermesDecodeCore],
  ['openai@6 Stream.fromSSEResponse', openaiStream],
  ['Vercel AI SDK openai-compatible doStream', vercelStream],
].filter(([name]) => process.env.BENCH_ONLY === undefined || name.startsWith(process.env.BENCH_ONLY));

/** Runs every runner once per round, alternating, so machine noise hits all alike. */
async function measure(data) {
  const samples = RUNNERS.map(() => []);
  const cpuSamples = RUNNERS.map(() => []);
  const events = RUNNERS.map(() => 0);
  for (const [, run] of RUNNERS) await run(data); // warm-up
  for (let round = 0; round < RUNS; round += 1) {
    for (const [index, [, run]] of RUNNERS.entries()) {
      globalThis.gc?.();
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      events[index] = await run(data);
      const cpu = process.cpuUsage(cpuStarted);
      samples[index].push(performance.now() - started);
      cpuSamples[index].push((cpu.user + cpu.system) / 1000);
    }
  }
  return RUNNERS.map(([name], index) => {
    const sorted = samples[index].sort((left, right) => left - right);
    const cpuSorted = cpuSamples[index].sort((left, right) => left - right);
    return {
      name,
      minMs: sorted[0],
      medianMs: sorted[Math.floor(sorted.length / 2)],
      cpuMinMs: cpuSorted[0],
      cpuMedianMs: cpuSorted[Math.floor(cpuSorted.length / 2)],
      events: events[index],
    };
  });
}

const mib = (bytes) => bytes / (1024 * 1024);
console.log(
  `stream-decode: node ${process.version}, ${RUNS} rounds; wall ms and CPU ms (user+system), min / median; MB/s at the wall median`,
);
for (const [label, generate] of [
  ['per-event (many small events)', generateResponse],
  ['bulk (large events)', generateBulkResponse],
]) {
  const data = workload(generate);
  const results = await measure(data);
  console.log(`\n${label}: ${mib(data.bytes).toFixed(1)} MiB of SSE in ${data.responses.length} responses`);
  for (const result of results) {
    console.log(
      `  ${result.name.padEnd(44)} wall ${result.minMs.toFixed(0).padStart(5)} / ${result.medianMs.toFixed(0).padStart(5)}  cpu ${result.cpuMinMs.toFixed(0).padStart(5)} / ${result.cpuMedianMs.toFixed(0).padStart(5)} ms ${(mib(data.bytes) / (result.medianMs / 1000)).toFixed(1).padStart(6)} MB/s ${String(result.events).padStart(7)} events`,
    );
  }
  if (results.length < RUNNERS.length || RUNNERS.length < 4) continue;
  const [transport, core, openai, vercel] = results;
  for (const ours of [transport, core]) {
    console.log(
      `  ${ours.name.split(' (')[0]} vs openai / Vercel: wall median ${(openai.medianMs / ours.medianMs).toFixed(2)}× / ${(vercel.medianMs / ours.medianMs).toFixed(2)}×, wall min ${(openai.minMs / ours.minMs).toFixed(2)}× / ${(vercel.minMs / ours.minMs).toFixed(2)}×, cpu median ${(openai.cpuMedianMs / ours.cpuMedianMs).toFixed(2)}× / ${(vercel.cpuMedianMs / ours.cpuMedianMs).toFixed(2)}×`,
    );
  }
}
