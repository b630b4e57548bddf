// Stream-decode throughput: our SSE reader + chat-completions decoder vs the `openai` package's
// own SSE stream parser, on the same ~20 MB of recorded-style chat-completions SSE bytes.
// Run after `npm run build` (it measures the shipped code in dist/): node bench/stream-decode/run.mjs
/* global TextEncoder, ReadableStream, Response, AbortController */
import { performance } from 'node:perf_hooks';
import { Stream } from 'openai/streaming';
import {
  readServerSentEventBatches,
  ServerSentEventDecoder,
} from '../../dist/transports/shared/transport-sse-reader.js';
import { createChatCompletionsDecoder } from '../../dist/transports/chat-completions/chat-completions-decode.js';

const TARGET_BYTES = Number(process.env.BENCH_STREAM_BYTES ?? 20 * 1024 * 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** Deterministic PRNG (mulberry32): every run decodes the same bytes. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

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

/** Splits bytes like network reads: 1–16 KiB pieces, boundaries anywhere (mid-line, mid-character). */
function splitLikeNetwork(bytes) {
  const pieces = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * 16384);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

const responses = [];
let totalBytes = 0;
while (totalBytes < TARGET_BYTES) {
  const bytes = generateResponse(responses.length);
  responses.push(splitLikeNetwork(bytes));
  totalBytes += bytes.length;
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

/** Ours, synchronous push: SSE decoder + chat-completions decoder (assembles the stored message). */
function oursPush() {
  let events = 0;
  for (const pieces of responses) {
    const sse = new ServerSentEventDecoder();
    const decoder = createChatCompletionsDecoder({ mustEcho: false, provider: 'bench' });
    for (const piece of pieces) for (const message of sse.push(piece)) events += decoder.feedData(message.data).length;
    for (const message of sse.end()) events += decoder.feedData(message.data).length;
    const tail = decoder.finish();
    if (tail[tail.length - 1]?.type !== 'finish') throw new Error('bench stream did not finish');
    events += tail.length;
  }
  return events;
}

/** Ours, as the transport reads: async SSE reader over a web ReadableStream + decoder. */
async function oursStream() {
  let events = 0;
  for (const pieces of responses) {
    const decoder = createChatCompletionsDecoder({ mustEcho: false, provider: 'bench' });
    for await (const batch of readServerSentEventBatches(bodyOf(pieces)))
      for (const message of batch) events += decoder.feedData(message.data).length;
    events += decoder.finish().length;
  }
  return events;
}

/** openai@6: `Stream.fromSSEResponse` parses SSE + JSON and yields chunk objects (no message assembly). */
async function openaiStream() {
  let events = 0;
  for (const pieces of responses) {
    const stream = Stream.fromSSEResponse(new Response(bodyOf(pieces)), new AbortController());
    for await (const chunk of stream) if (chunk) events += 1;
  }
  return events;
}

async function measure(name, run) {
  await run(); // warm-up
  const samples = [];
  let events = 0;
  for (let index = 0; index < RUNS; index += 1) {
    const started = performance.now();
    events = await run();
    samples.push(performance.now() - started);
  }
  samples.sort((left, right) => left - right);
  const medianMs = samples[Math.floor(samples.length / 2)];
  const megabytes = totalBytes / (1024 * 1024);
  return {
    name,
    medianMs,
    megabytesPerSecond: megabytes / (medianMs / 1000),
    eventsPerSecond: events / (medianMs / 1000),
    events,
  };
}

const results = [
  await measure('hermes push (SSE decoder + chat decoder)', oursPush),
  await measure("hermes stream (the transports' path: body reader, SSE batches, chat decoder)", oursStream),
  await measure('openai@6 Stream.fromSSEResponse (SSE + JSON only)', openaiStream),
];

console.log(
  `stream-decode: ${(totalBytes / (1024 * 1024)).toFixed(1)} MiB of SSE in ${responses.length} responses, median of ${RUNS} runs (node ${process.version})`,
);
for (const result of results) {
  console.log(
    `  ${result.name.padEnd(54)} ${result.medianMs.toFixed(0).padStart(6)} ms  ${result.megabytesPerSecond.toFixed(1).padStart(7)} MB/s  ${Math.round(result.eventsPerSecond).toLocaleString('en-US').padStart(11)} events/s  (${result.events} events)`,
  );
}
const openai = results[2];
for (const ours of results.slice(0, 2)) {
  console.log(
    `  ratio ${ours.name.split(' (')[0]} / openai throughput: ${(ours.megabytesPerSecond / openai.megabytesPerSecond).toFixed(2)}×`,
  );
}
