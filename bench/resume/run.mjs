// bench/resume: loading a session and building its next request, side by side with the floor:
// from state.db (SqliteSessionStore.listMessages) vs from a JSON-lines file of the same session
// (read + JSON.parse per line). Sizes 1,000 / 10,000 / 50,000 messages (BENCH_SIZES), two shapes
// (BENCH_SHAPES). Each measurement runs in a FRESH child process, the two sources alternating
// run by run so machine noise hits both alike. Reports min and median of load and load + build
// wall time, RSS / heap growth, and the ratio to the floor (target: load ≤ 1.0× the floor).
// Run: `npm run bench -- resume` (builds first) or `node bench/resume/run.mjs` after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,50000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A realistic mixed history: user, assistant tool calls with 2–8 KB reasoning, tool results,
 * answers. `openrouter` shape: reasoning three times (reasoning, reasoning_content, a signed
 * reasoning.text detail) plus an encrypted detail; `deepseek` shape: reasoning_content only.
 */
function buildHistory(count, shape) {
  const messages = [];
  for (let index = 0; messages.length < count; index += 1) {
    const size = 2048 + ((index * 2_654_435_761) % 6144);
    const unit = `step ${index}: weigh the options and check the arithmetic; `;
    const reasoning = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
    const origin = {
      api: 'chat_completions',
      provider: 'openrouter',
      host: 'openrouter.ai',
      model: 'anthropic/claude-sonnet-4.5',
    };
    messages.push({
      role: 'user',
      content: `question ${index}: what does file ${index} say?`,
      timestamp: 1_764_444_000 + index,
    });
    const toolTurn = {
      role: 'assistant',
      content: null,
      reasoning,
      reasoning_content: reasoning,
      reasoning_details: [
        {
          type: 'reasoning.text',
          text: reasoning,
          signature: 'E'.repeat(400) + index,
          format: 'anthropic-claude-v1',
          index: 0,
        },
        {
          type: 'reasoning.encrypted',
          data: 'gAAAA' + 'x'.repeat(1500 + (index % 1000)),
          id: `rs_${index}`,
          format: 'openai-responses-v1',
          index: 1,
        },
      ],
      tool_calls: [
        {
          id: `call_${index}`,
          type: 'function',
          function: { name: 'read_file', arguments: `{"path":"f${index}.txt"}` },
        },
      ],
      finish_reason: 'tool_calls',
      origin,
    };
    if (shape === 'deepseek') {
      delete toolTurn.reasoning;
      delete toolTurn.reasoning_details;
      toolTurn.origin = { ...origin, provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4-flash' };
    }
    messages.push(toolTurn);
    messages.push({
      role: 'tool',
      tool_call_id: `call_${index}`,
      tool_name: 'read_file',
      content: `contents of f${index}.txt`,
    });
    messages.push({
      role: 'assistant',
      content: `It says ${index}.`,
      reasoning: 'Short.',
      reasoning_content: 'Short.',
      finish_reason: 'stop',
      origin,
    });
  }
  return messages.slice(0, count);
}

const child = `
const [mode, path, sessionId, shape] = process.argv.slice(1);
const { prepareChatCompletions } = await import(${JSON.stringify(join(root, 'dist/transports/chat-completions/chat-completions-encode.js'))});
const { toolDefinitions } = await import(${JSON.stringify(join(root, 'dist/tools/tool-registry.js'))});
const { openSqliteSessionStore } = await import(${JSON.stringify(join(root, 'dist/storage/sqlite-session-store.js'))});
const { readFileSync } = await import('node:fs');
globalThis.gc?.();
const rss0 = process.memoryUsage().rss, heap0 = process.memoryUsage().heapUsed;
const start = performance.now();
let history;
if (mode === 'sqlite') {
  const store = openSqliteSessionStore(path);
  history = await store.listMessages(sessionId);
  await store.close();
} else {
  history = readFileSync(path, 'utf8').split('\\n').filter(Boolean).map((line) => JSON.parse(line));
}
const loaded = performance.now();
const prepared = prepareChatCompletions({
  route: shape === 'deepseek'
    ? { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: 'https://api.deepseek.com' }
    : { api: 'chat_completions', provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', baseUrl: 'https://openrouter.ai/api/v1' },
  history, tools: toolDefinitions(), reasoning: { enabled: true }, stream: true,
});
const built = performance.now();
const usage = process.memoryUsage();
console.log(JSON.stringify({ load: loaded - start, build: built - loaded, total: built - start,
  rss: (usage.rss - rss0) / 1048576, heap: (usage.heapUsed - heap0) / 1048576, messages: prepared.body.messages.length }));
`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const min = (values) => Math.min(...values);

async function measure(shape, count) {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-bench-resume-'));
  try {
    const history = buildHistory(count, shape);
    const { openSqliteSessionStore } = await import(join(root, 'dist/storage/sqlite-session-store.js'));
    const dbPath = join(directory, 'state.db');
    const store = openSqliteSessionStore(dbPath);
    const session = await store.createSession({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' });
    await store.appendMessages(session.id, history);
    await store.close();
    const jsonlPath = join(directory, 'session.jsonl');
    writeFileSync(jsonlPath, history.map((message) => JSON.stringify(message)).join('\n') + '\n');
    console.log(
      `\n${shape}-shaped session: ${count} messages; state.db ${(statSync(dbPath).size / 1048576).toFixed(1)} MB, ` +
        `JSON lines ${(statSync(jsonlPath).size / 1048576).toFixed(1)} MB; ${RUNS} fresh processes each`,
    );
    const samples = { sqlite: [], jsonl: [] };
    for (let run = 0; run < RUNS; run += 1) {
      for (const mode of ['sqlite', 'jsonl']) {
        const output = execFileSync(process.execPath, [
          '--expose-gc',
          '--input-type=module',
          '-e',
          child,
          mode,
          mode === 'sqlite' ? dbPath : jsonlPath,
          session.id,
          shape,
        ]);
        samples[mode].push(JSON.parse(output.toString()));
      }
    }
    const results = {};
    for (const [mode, list] of Object.entries(samples)) {
      const pick = (key) => list.map((sample) => sample[key]);
      results[mode] = {
        loadMin: min(pick('load')),
        load: median(pick('load')),
        total: median(pick('total')),
        rss: median(pick('rss')),
        heap: median(pick('heap')),
      };
    }
    console.log('source       load min  load med  load+build med  RSS growth MB  heap growth MB');
    for (const [mode, figures] of Object.entries(results)) {
      console.log(
        `${mode.padEnd(12)} ${figures.loadMin.toFixed(1).padStart(8)} ${figures.load.toFixed(1).padStart(9)} ` +
          `${figures.total.toFixed(1).padStart(15)} ${figures.rss.toFixed(1).padStart(14)} ${figures.heap.toFixed(1).padStart(15)}`,
      );
    }
    const loadRatio = results.sqlite.load / results.jsonl.load;
    console.log(
      `sqlite / JSON-lines floor: load ${(results.sqlite.loadMin / results.jsonl.loadMin).toFixed(2)}x min, ` +
        `${loadRatio.toFixed(2)}x median; load + build ${(results.sqlite.total / results.jsonl.total).toFixed(2)}x median ` +
        `(target load <= 1.0x: ${loadRatio <= 1 ? 'met' : 'missed'})`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

for (const count of SIZES) {
  for (const shape of (process.env.BENCH_SHAPES ?? 'deepseek,openrouter').split(',')) await measure(shape, count);
}
