// bench/compaction-retained: how many tokens a ~500K-token agent session keeps after one
// compaction, `tail: lean` (SPEC §26.6, the default) against `tail: turns` (keep_turns 20, the
// earlier default), for several context windows. Each row runs the real `compressSession` in
// place on an in-memory store; the summariser is a stand-in that answers every summary request
// with the same ~1,500-token text (what a model writes varies; the tail and head do not), so the
// difference between the rows is the tail. Also prints how many summary requests the window
// needed and the time to plan and write the compaction (the model call aside).
// Run: `npm run bench -- compaction-retained` (builds first) or `node bench/compaction-retained/run.mjs`.
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { agentSession } from './history.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { compressSession } = await import(join(root, 'dist/runtime/compaction-run.js'));
const { createMemorySessionStore } = await import(join(root, 'dist/storage/memory-session-store.js'));
const { EventStream } = await import(join(root, 'dist/core/event-stream.js'));
const { estimateRequestTokens } = await import(join(root, 'dist/replay/replay-token-estimate.js'));

const TARGET_TOKENS = Number(process.env.BENCH_SESSION_TOKENS ?? 500_000);
const WINDOWS = (process.env.BENCH_WINDOWS ?? '128000,200000,400000,1000000').split(',').map(Number);
const ROUTE = { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash' };
const SUMMARY = `The session worked through the refactor step by step. ${'It read files, ran the tests and fixed what failed. '.repeat(110)}`;

/** A transport that answers every request with {@link SUMMARY}, counting requests. */
function summariser() {
  const counter = { requests: 0 };
  const transport = {
    api: 'chat_completions',
    prepare: () => ({ url: 'http://x', body: {}, decisions: [], carriersSent: [], routeKey: 'deepseek|x|m' }),
    send() {
      counter.requests += 1;
      const stream = new EventStream();
      globalThis.queueMicrotask(() =>
        stream.end({
          type: 'finish',
          message: { role: 'assistant', content: SUMMARY },
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: null,
        }),
      );
      return stream;
    },
  };
  return { transport, counter };
}

async function compactOnce(history, compaction) {
  const store = createMemorySessionStore();
  const session = await store.createSession({ provider: ROUTE.provider, model: ROUTE.model });
  await store.appendMessages(session.id, history);
  const { transport, counter } = summariser();
  const started = performance.now();
  const outcome = await compressSession({
    store,
    sessionId: session.id,
    route: ROUTE,
    apiKey: 'k',
    reasoning: { enabled: false },
    transportFor: () => transport,
    compaction,
  });
  const elapsed = performance.now() - started;
  const live = await store.listMessages(session.id);
  return {
    outcome,
    retained: estimateRequestTokens(live, { chargeStaleThinking: true }),
    requests: counter.requests,
    elapsed,
  };
}

const history = agentSession(TARGET_TOKENS);
const before = estimateRequestTokens(history, { chargeStaleThinking: true });
const users = history.filter((message) => message.role === 'user').length;
console.log(
  `session: ${history.length} messages, ${users} user turns, about ${before.toLocaleString('en-US')} tokens (SPEC §15 estimate); summary stand-in ${estimateRequestTokens([{ role: 'user', content: SUMMARY }], { chargeStaleThinking: true })} tokens`,
);
console.log('window     tail    tail tokens  user msgs kept  retained after  summary requests  plan+write ms');
const ratios = [];
for (const window of WINDOWS) {
  const rows = {};
  for (const tail of ['lean', 'turns']) {
    const compaction = { contextWindow: window, threshold: 0.8, keepTurns: 20, tail };
    const run = await compactOnce(history, compaction);
    const record = run.outcome.record ?? {};
    rows[tail] = run;
    console.log(
      `${String(window).padStart(9)}  ${tail.padEnd(5)} ${String(record.tail_tokens ?? '-').padStart(12)} ${String(record.kept_turns ?? '-').padStart(15)} ` +
        `${run.retained.toLocaleString('en-US').padStart(15)} ${String(run.requests).padStart(17)} ${run.elapsed.toFixed(0).padStart(14)}`,
    );
  }
  ratios.push(
    `window ${window.toLocaleString('en-US')}: lean retains ${rows.lean.retained.toLocaleString('en-US')} tokens, turns ${rows.turns.retained.toLocaleString('en-US')} ` +
      `(lean/turns ×${(rows.lean.retained / rows.turns.retained).toFixed(2)}; of the session before: lean ${((100 * rows.lean.retained) / before).toFixed(1)} %, turns ${((100 * rows.turns.retained) / before).toFixed(1)} %)`,
  );
}
for (const line of ratios) console.log(line);
