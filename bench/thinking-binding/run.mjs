// Bench: what thinking-block binding (SPEC §26.4) costs per Anthropic request. Measures the
// SHIPPED code in dist/ (`npm run bench -- thinking-binding` builds first) on one deterministic
// session of N turns (user → assistant with signed thinking and a tool call → tool result →
// assistant answer with signed thinking), replayed to:
// - claude-opus-5: a model that runs no prefix check, so no digest is computed (the floor);
// - claude-fable-5-1: every signed block's prefix digest is recomputed over what is sent and
//   compared with the one captured (the incremental SHA-256 of replay/anthropic-sha256.ts).
// Also: JSON serialization of the same body (what the transport does with every request anyway),
// and the capture of one answer's binding (bindAnswerBlocks) at the end of the session.
// Medians over rounds; warm-up first; GC before each timed round.
import { performance } from 'node:perf_hooks';
import { bindAnswerBlocks } from '../../dist/replay/anthropic-binding-capture.js';
import { prepareAnthropicMessages } from '../../dist/transports/anthropic-messages/anthropic-messages-encode.js';
import { serializeRequestBody } from '../../dist/transports/shared/request-body.js';
import { seededRandom } from '../seeded-random.mjs';

const SIZES = [25, 100, 400];
const ROUNDS = 15;
const WORDS = 'the model considers which file to read next because the user asked about the build and tests'.split(' ');
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

function prose(next, bytes) {
  let text = '';
  while (text.length < bytes) text += `${WORDS[Math.floor(next() * WORDS.length)]} `;
  return text.slice(0, bytes);
}

function blob(next, bytes) {
  let text = '';
  for (let index = 0; index < bytes; index += 1) text += BASE64[Math.floor(next() * 64)];
  return text;
}

const route = (model) => ({ api: 'anthropic_messages', provider: 'anthropic', model });
const request = (history, model) => ({
  route: route(model),
  history,
  tools: TOOLS,
  reasoning: { enabled: true },
  stream: true,
});

/** A session of `turns` turns on `model`, each answer bound to what was sent before it. */
function session(turns, model) {
  const next = seededRandom(42);
  const history = [{ role: 'system', content: prose(next, 4000) }];
  const answer = (blocks, calls) => {
    const message = {
      role: 'assistant',
      content: calls ? null : (blocks.find((block) => block.type === 'text')?.text ?? null),
      anthropic_content_blocks: blocks,
      origin: { api: 'anthropic_messages', provider: 'anthropic', host: '', model },
      ...(calls ? { tool_calls: calls } : {}),
    };
    return bindAnswerBlocks(message, prepareAnthropicMessages(request(history, model)).body, model);
  };
  for (let turn = 0; turn < turns; turn += 1) {
    history.push({ role: 'user', content: prose(next, 300 + Math.floor(next() * 500)) });
    const id = `toolu_${turn}`;
    const call = {
      id,
      type: 'function',
      function: { name: 'read_file', arguments: JSON.stringify({ path: `f${turn}` }) },
    };
    history.push(
      answer(
        [
          { type: 'thinking', thinking: prose(next, 2000 + Math.floor(next() * 4000)), signature: blob(next, 400) },
          { type: 'tool_use', id, name: 'read_file', input: { path: `f${turn}` } },
        ],
        [call],
      ),
    );
    history.push({ role: 'tool', tool_call_id: id, content: prose(next, 1000 + Math.floor(next() * 3000)) });
    history.push(
      answer([
        { type: 'thinking', thinking: prose(next, 1000 + Math.floor(next() * 2000)), signature: blob(next, 400) },
        { type: 'text', text: prose(next, 400) },
      ]),
    );
  }
  history.push({ role: 'user', content: 'next question' });
  return history;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function time(work) {
  for (let warm = 0; warm < 3; warm += 1) work();
  const samples = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    globalThis.gc?.();
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

console.log(
  'turns  body KiB  floor build ms  checked build ms  checked/floor  cold floor ms  cold checked ms  serialize ms  capture ms  kept/stale',
);
for (const turns of SIZES) {
  const floorHistory = session(turns, 'claude-opus-5');
  const checkedHistory = session(turns, 'claude-fable-5-1');
  const floorBody = prepareAnthropicMessages(request(floorHistory, 'claude-opus-5'));
  const checked = prepareAnthropicMessages(request(checkedHistory, 'claude-fable-5-1'));
  const kept = checked.decisions.filter(
    (decision) => decision.field === 'thinking' && decision.action === 'kept',
  ).length;
  const stale = checked.decisions.filter((decision) => decision.reason.startsWith('bound to another')).length;
  const floor = time(() => prepareAnthropicMessages(request(floorHistory, 'claude-opus-5')));
  const withCheck = time(() => prepareAnthropicMessages(request(checkedHistory, 'claude-fable-5-1')));
  const serialize = time(() => serializeRequestBody(floorBody));
  const last = checkedHistory.at(-2);
  // The runtime binds an answer by continuing from the digest the encoder kept.
  const capture = time(() => bindAnswerBlocks(last, checked.body, 'claude-fable-5-1', checked.bindingPrefix));
  // A fresh process: every block is digested once (copies of the stored messages, no cache).
  const cold = time(() => prepareAnthropicMessages(request(structuredClone(checkedHistory), 'claude-fable-5-1')));
  const coldFloor = time(() => prepareAnthropicMessages(request(structuredClone(floorHistory), 'claude-opus-5')));
  const kib = (serializeRequestBody(checked).length / 1024).toFixed(0);
  console.log(
    [
      String(turns).padStart(5),
      kib.padStart(8),
      floor.toFixed(2).padStart(15),
      withCheck.toFixed(2).padStart(17),
      `${(withCheck / floor).toFixed(2)}×`.padStart(14),
      coldFloor.toFixed(2).padStart(14),
      cold.toFixed(2).padStart(16),
      serialize.toFixed(2).padStart(13),
      capture.toFixed(2).padStart(11),
      `${kept}/${stale}`.padStart(11),
    ].join(' '),
  );
}
