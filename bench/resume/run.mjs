// bench/resume: loading a 10,000-message session and building its next request,
// side by side: from state.db (SqliteSessionStore.listMessages) vs from a JSON-lines file
// (read + JSON.parse per line). Each measurement runs in a FRESH child process so memory
// figures are one load's, not a pile-up. Reports medians of wall time (load + build) and the
// RSS / heap growth. Targets: under 150 ms and 60 MB. Run: `npm run bench -- resume`
// (builds first) or `node bench/resume/run.mjs` after `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 10_000);
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

async function measure(shape) {
  const directory = mkdtempSync(join(tmpdir(), 'hermes-bench-resume-'));
  try {
    const history = buildHistory(MESSAGES, shape);
    const { openSqliteSessionStore } = await import(join(root, 'dist/storage/sqlite-session-store.js'));
    const dbPath = join(directory, 'state.db');
    const store = openSqliteSessionStore(dbPath);
    const session = await store.createSession({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5' });
    await store.appendMessages(session.id, history);
    await store.close();
    const jsonlPath = join(directory, 'session.jsonl');
    writeFileSync(jsonlPath, history.map((message) => JSON.stringify(message)).join('\n') + '\n');
    console.log(
      `\n${shape}-shaped session: ${MESSAGES} messages; state.db ${(statSync(dbPath).size / 1048576).toFixed(1)} MB, ` +
        `JSON lines ${(statSync(jsonlPath).size / 1048576).toFixed(1)} MB; ${RUNS} fresh processes each`,
    );
    const results = {};
    for (const mode of ['sqlite', 'jsonl']) {
      const samples = [];
      for (let run = 0; run < RUNS; run += 1) {
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
        samples.push(JSON.parse(output.toString()));
      }
      results[mode] = {
        load: median(samples.map((sample) => sample.load)),
        build: median(samples.map((sample) => sample.build)),
        total: median(samples.map((sample) => sample.total)),
        rss: median(samples.map((sample) => sample.rss)),
        heap: median(samples.map((sample) => sample.heap)),
      };
    }
    console.log('source        load ms  build ms  total ms  RSS growth MB  heap growth MB');
    for (const [mode, figures] of Object.entries(results)) {
      console.log(
        `${mode.padEnd(12)} ${figures.load.toFixed(1).padStart(8)} ${figures.build.toFixed(1).padStart(9)} ${figures.total
          .toFixed(1)
          .padStart(9)} ${figures.rss.toFixed(1).padStart(14)} ${figures.heap.toFixed(1).padStart(15)}`,
      );
    }
    console.log(
      `ratio sqlite/jsonl total: ${(results.sqlite.total / results.jsonl.total).toFixed(2)}x; ` +
        `targets: total < 150 ms (${results.sqlite.total < 150 ? 'met' : 'missed'}), heap growth < 60 MB (${results.sqlite.heap < 60 ? 'met' : 'missed'})`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

for (const shape of (process.env.BENCH_SHAPES ?? 'deepseek,openrouter').split(',')) await measure(shape);
