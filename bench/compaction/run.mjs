// bench/compaction: for 1,000 / 5,000 / 20,000-message sessions with realistic mixed
// carriers, the time to ESTIMATE (SPEC §15 preflight, `estimateRequestTokens`) and to CHOOSE A
// CUT (`planCompaction`: per-message costs, usage anchor, turn boundaries, salvage), plus building
// the child's message list (`compactedMessages`) — everything compaction does except the model
// call. Medians of BENCH_RUNS timed runs after warm-up, per-message cost, and the growth ratio
// between sizes (linear scaling = the size ratio). Run: `npm run bench -- compaction` (builds
// first) or `node bench/compaction/run.mjs` after `npm run build`.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { estimateRequestTokens } = await import(join(root, 'dist/replay/replay-token-estimate.js'));
const { resolveRouteProfile } = await import(join(root, 'dist/replay/replay-route-profile.js'));
const { compactedMessages, planCompaction } = await import(join(root, 'dist/runtime/compaction-plan.js'));

const SIZES = (process.env.BENCH_SIZES ?? '1000,5000,20000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const WARMUP = 5;
const SETTINGS = { contextWindow: 200_000, threshold: 0.8, keepTurns: 20 };
const ROUTE = { api: 'chat_completions', provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' };

/** Deterministic text of about `size` characters. */
function text(seed, size) {
  const unit = `step ${seed}: weigh the options, check the arithmetic, keep the tests green; `;
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/**
 * A realistic mixed session: each user turn is a tool loop (1–3 tool calls) then an answer. The
 * assistant turns rotate through the providers a long session may have crossed, so every carrier
 * kind is present: OpenRouter signed + encrypted reasoning_details, DeepSeek reasoning_content
 * (" " pads included), Anthropic blocks with signatures and redacted_thinking, Bedrock blocks,
 * Responses encrypted reasoning items and compaction checkpoints, Gemini parts with signatures.
 * A provider usage anchor sits on every final answer.
 */
function buildHistory(count) {
  const messages = [{ role: 'system', content: text(0, 1200) }];
  let turn = 0;
  while (messages.length < count) {
    turn += 1;
    messages.push({ role: 'user', content: text(turn, 80 + (turn % 7) * 60), timestamp: 1_764_444_000_000 + turn });
    const calls = 1 + (turn % 3);
    for (let call = 0; call < calls && messages.length < count; call += 1) {
      const id = `call_${turn}_${call}`;
      const reasoning = text(turn * 10 + call, 600 + ((turn * 2_654_435_761) % 3000));
      messages.push(assistantToolTurn(turn, call, id, reasoning));
      messages.push({
        role: 'tool',
        tool_call_id: id,
        tool_name: 'read_file',
        content: text(call, 400 + (turn % 5) * 500),
      });
    }
    messages.push({
      role: 'assistant',
      content: text(turn + 7, 300),
      reasoning: 'Short.',
      reasoning_content: turn % 4 === 0 ? ' ' : 'Short.',
      finish_reason: 'stop',
      _usage: { input_tokens: 1000 + turn * 50, output_tokens: 120 },
    });
  }
  return messages.slice(0, count);
}

function assistantToolTurn(turn, call, id, reasoning) {
  const base = {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${turn}_${call}.txt"}` } },
    ],
    finish_reason: 'tool_calls',
  };
  switch ((turn + call) % 6) {
    case 0:
      return {
        ...base,
        reasoning,
        reasoning_details: [
          {
            type: 'reasoning.text',
            text: reasoning,
            signature: 'E'.repeat(400),
            format: 'anthropic-claude-v1',
            index: 0,
          },
          { type: 'reasoning.encrypted', data: 'gAAAA' + 'x'.repeat(1500), id: `rs_${turn}`, index: 1 },
        ],
      };
    case 1:
      return { ...base, reasoning_content: turn % 5 === 0 ? ' ' : reasoning };
    case 2:
      return {
        ...base,
        reasoning,
        anthropic_content_blocks: [
          { type: 'thinking', thinking: reasoning, signature: 'S'.repeat(600) },
          { type: 'redacted_thinking', data: 'R'.repeat(900) },
          { type: 'tool_use', id, name: 'read_file', input: { path: `f${turn}_${call}.txt` } },
        ],
      };
    case 3:
      return {
        ...base,
        reasoning,
        bedrock_content_blocks: [
          { reasoningContent: { reasoningText: { text: reasoning, signature: 'B'.repeat(500) } } },
          { toolUse: { toolUseId: id, name: 'read_file', input: { path: `f${turn}_${call}.txt` } } },
        ],
      };
    case 4:
      return {
        ...base,
        reasoning,
        codex_reasoning_items: [
          {
            type: 'reasoning',
            id: `rs_${turn}_${call}`,
            encrypted_content: 'gAAAA' + 'c'.repeat(2000),
            summary: [{ type: 'summary_text', text: reasoning.slice(0, 200) }],
          },
          ...(turn % 10 === 0 ? [{ type: 'compaction', encrypted_content: 'gAAAA' + 'k'.repeat(4000) }] : []),
        ],
      };
    default:
      return {
        ...base,
        reasoning,
        tool_calls: base.tool_calls.map((entry) => ({
          ...entry,
          extra_content: { google: { thought_signature: 'G'.repeat(300) } },
        })),
        gemini_content_parts: [
          { text: reasoning, thought: true },
          {
            functionCall: { name: 'read_file', args: { path: `f${turn}_${call}.txt` } },
            thoughtSignature: 'G'.repeat(300),
          },
        ],
      };
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function time(run) {
  for (let index = 0; index < WARMUP; index += 1) run();
  const samples = [];
  for (let index = 0; index < RUNS; index += 1) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const charge = resolveRouteProfile(ROUTE).chargeStaleThinking;
const rows = [];
for (const size of SIZES) {
  const history = buildHistory(size);
  const megabytes = Buffer.byteLength(JSON.stringify(history)) / 1048576;
  let plan;
  const estimate = time(() => estimateRequestTokens(history, { chargeStaleThinking: charge }));
  const cut = time(() => {
    plan = planCompaction(history, SETTINGS, charge, true);
  });
  const summary = { role: 'user', content: '[Summary of the earlier part of this session]\nshort' };
  const child = time(() => compactedMessages(history, plan, summary));
  rows.push({ size, megabytes, estimate, cut, child, plan });
}

console.log(
  `route openrouter (stale thinking charged: ${charge}); settings ${JSON.stringify(SETTINGS)}; median of ${RUNS} runs after ${WARMUP} warm-up`,
);
console.log(
  'messages   JSON MB  estimate ms  choose cut ms  build child ms  µs/msg (cut)  tokens est.  kept turns  salvaged',
);
for (const row of rows) {
  console.log(
    `${String(row.size).padStart(8)} ${row.megabytes.toFixed(1).padStart(8)} ${row.estimate.toFixed(2).padStart(12)} ` +
      `${row.cut.toFixed(2).padStart(14)} ${row.child.toFixed(2).padStart(15)} ${((row.cut * 1000) / row.size).toFixed(2).padStart(13)} ` +
      `${String(row.plan.estimate).padStart(12)} ${String(row.plan.keptTurns).padStart(11)} ${String(row.plan.salvaged).padStart(9)}`,
  );
}
for (let index = 1; index < rows.length; index += 1) {
  const [previous, current] = [rows[index - 1], rows[index]];
  console.log(
    `growth ${previous.size} → ${current.size} messages (×${(current.size / previous.size).toFixed(1)}): ` +
      `estimate ×${(current.estimate / previous.estimate).toFixed(2)}, choose cut ×${(current.cut / previous.cut).toFixed(2)}, ` +
      `build child ×${(current.child / previous.child).toFixed(2)} (linear = ×${(current.size / previous.size).toFixed(1)})`,
  );
}
