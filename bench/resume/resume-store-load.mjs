// Measures loading a 10,000-message session from state.db through the SQLite SessionStore
// ("loading a 10,000-message session ... must be fast", target < 100 ms).
// Run after `npm run build`: node bench/resume/resume-store-load.mjs [messages] [runs] [copies]
// Half the messages are assistant turns with 2-8 KB of reasoning text, stored in `copies`
// carriers: 1 = reasoning_content only (DeepSeek raw RC), 2 = + reasoning (R), 3 = + a
// reasoning_details text entry (the OpenRouter shape, default). The rest are user and tool
// messages. Reported: wall and CPU median / min of `listMessages`, database size, RSS.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';

const messageCount = Number(process.argv[2] ?? 10_000);
const runs = Number(process.argv[3] ?? 15);
const copies = Number(process.argv[4] ?? 3);

/** Deterministic pseudo-random reasoning size between 2 and 8 KB. */
function reasoningSize(index) {
  return 2048 + ((index * 2_654_435_761) % 6144);
}

function message(index) {
  if (index % 4 === 0) return { role: 'user', content: `question ${index}`, timestamp: 1_764_444_000 + index };
  if (index % 4 === 2)
    return { role: 'tool', tool_call_id: `call_${index - 1}`, tool_name: 'read_file', content: `result ${index}` };
  const unit = `step ${index}: weigh the options and check the arithmetic; `;
  const reasoning = unit.repeat(Math.ceil(reasoningSize(index) / unit.length)).slice(0, reasoningSize(index));
  return {
    role: 'assistant',
    content: index % 4 === 1 ? null : `answer ${index}`,
    reasoning_content: reasoning,
    reasoning: copies >= 2 ? reasoning : undefined,
    reasoning_details: [
      {
        type: 'reasoning.text',
        text: copies >= 3 ? reasoning : '',
        signature: `sig-${index}`,
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ],
    tool_calls:
      index % 4 === 1
        ? [{ id: `call_${index}`, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }]
        : undefined,
    finish_reason: index % 4 === 1 ? 'tool_calls' : 'stop',
    origin: {
      api: 'chat_completions',
      provider: 'openrouter',
      host: 'openrouter.ai',
      model: 'anthropic/claude-sonnet-4.5',
    },
  };
}

const directory = mkdtempSync(join(tmpdir(), 'hermes-bench-'));
try {
  const path = join(directory, 'state.db');
  const writer = openSqliteSessionStore(path);
  const session = await writer.createSession({ title: 'bench' });
  const messages = Array.from({ length: messageCount }, (_, index) => JSON.parse(JSON.stringify(message(index))));
  const writeStart = performance.now();
  await writer.appendMessages(session.id, messages);
  const writeMs = performance.now() - writeStart;
  await writer.close();

  const reader = openSqliteSessionStore(path);
  const timings = [];
  const cpuTimings = [];
  let loaded = [];
  for (let run = 0; run < runs; run += 1) {
    loaded = [];
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    loaded = await reader.listMessages(session.id);
    const cpu = process.cpuUsage(cpuStart);
    timings.push(performance.now() - start);
    cpuTimings.push((cpu.user + cpu.system) / 1000);
  }
  await reader.close();
  if (loaded.length !== messageCount) throw new Error(`loaded ${loaded.length} of ${messageCount}`);
  const firstLoadMs = timings[0];
  const byValue = (a, b) => a - b;
  timings.sort(byValue);
  cpuTimings.sort(byValue);
  const median = (values) => Number(values[Math.floor(values.length / 2)].toFixed(1));
  const megabytes = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  console.log(
    JSON.stringify({
      messages: messageCount,
      reasoningCopies: copies,
      databaseMegabytes: megabytes(
        statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0),
      ),
      batchAppendMs: Math.round(writeMs),
      firstLoadMs: Number(firstLoadMs.toFixed(1)),
      listMessagesMedianMs: median(timings),
      listMessagesMinMs: Number(timings[0].toFixed(1)),
      listMessagesCpuMedianMs: median(cpuTimings),
      listMessagesCpuMinMs: Number(cpuTimings[0].toFixed(1)),
      rssMegabytes: megabytes(process.memoryUsage().rss),
      heapUsedMegabytes: megabytes(process.memoryUsage().heapUsed),
    }),
  );
} finally {
  rmSync(directory, { recursive: true, force: true });
}
