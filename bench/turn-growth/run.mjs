// bench/turn-growth: how a turn's cost grows with history (SPEC §26.7), next to a plain proxy
// moving the same bytes. Run after `npm run build`:
//   node bench/turn-growth/run.mjs [requestsPerSize=12] [rounds=3]      (or: npm run bench -- turn-growth)
// BENCH_SERVER_PROFILE=DIR writes a V8 CPU profile of each server child into DIR;
// BENCH_TURN_GROWTH=warm or =door runs one part only; BENCH_TURN_GROWTH_TOOLS=1 gives every
// Messages request a Claude Code-sized tools list (16 tools, 41 KB of JSON).
//
// Two servers run in child processes (bench/gateway/bench-server.mjs) against the same zero-latency
// DeepSeek emulator: the gateway over a SQLite state.db and the floor, a `node:http` proxy that
// pipes the request to the emulator and the answer back. CPU is the server child's own
// (`process.cpuUsage` over IPC, read before and after each request, medians over requests).
//
// - Warm gateway turn: a stored session of N messages (written straight into state.db), one new
//   user message per request on `/v1/chat/completions` with `X-Hermes-Session-Id`; the floor
//   forwards a chat-completions body holding the same N messages + the new one (what the upstream
//   body is for anyone). N = 10, 1,000, 10,000.
// - Front-door Messages request: the client holds its conversation (Anthropic SDK-shaped JSON,
//   thinking blocks with the gateway's signatures echoed) and names its session with Claude
//   Code's `x-claude-code-session-id`; each request adds the answer and a new question. The floor
//   forwards the very same bytes. N = 10, 100, 1,000 client-held messages.
//
// Printed: gateway CPU, floor CPU, the gateway's CPU above the floor ("above") per size, and the
// growth of "above" against the smallest size (targets: warm turn ≤ 1.5× at 10,000 vs 10;
// front door ≤ 2.5× at 1,000 vs 10).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { openSqliteSessionStore } from '../../dist/storage/sqlite-session-store.js';
import { startChild, startDeepseekEmulator } from '../bench-child.mjs';

const requestsPerSize = Number(process.argv[2] ?? 12);
const rounds = Number(process.argv[3] ?? 3);
const WARM_SIZES = [10, 1000, 10_000];
const DOOR_SIZES = [10, 100, 1000];
const MODEL = 'deepseek-v4-flash';
const part = process.env.BENCH_TURN_GROWTH ?? 'both';
const TOOLS =
  process.env.BENCH_TURN_GROWTH_TOOLS === '1'
    ? Array.from({ length: 16 }, (_, index) => ({
        name: `tool_${index}`,
        description: `Tool ${index}. ${'Explains at length what the tool does, when to use it and when not to. '.repeat(36)}`,
        input_schema: {
          type: 'object',
          properties: { path: { type: 'string', description: 'A path.' }, limit: { type: 'number' } },
          required: ['path'],
        },
      }))
    : undefined;

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-turn-growth-'));
const statePath = join(home, 'state.db');
const dispatcher = new Agent({ connections: 8, pipelining: 1 });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const row = (cells, widths) => cells.map((cell, index) => String(cell).padStart(widths[index])).join('');

/** The stored messages of a session of `count` messages (system first, then user/assistant pairs). */
function storedHistory(count) {
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (let index = 1; index < count; index += 1) {
    messages.push(
      index % 2
        ? { role: 'user', content: `question ${index}: ${'lorem ipsum '.repeat(8)}` }
        : {
            role: 'assistant',
            content: `answer ${index}: ${'dolor sit amet '.repeat(12)}`,
            reasoning_content: `thinking ${index}`,
          },
    );
  }
  return messages;
}

async function seedSession(count) {
  const store = openSqliteSessionStore(statePath);
  const session = await store.createSession({ provider: 'deepseek', model: MODEL, api: 'chat_completions' });
  await store.appendMessages(
    session.id,
    storedHistory(count).map((message, index) => ({ ...message, timestamp: index + 1 })),
  );
  await store.close();
  return session.id;
}

async function post(url, path, headers, body) {
  const response = await request(`${url}${path}`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`${path} answered HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

/** CPU ms the server spent on `send()`, read over IPC around it. */
async function cpuOf(server, send) {
  const before = await server.cpu();
  const result = await send();
  const after = await server.cpu();
  return { ms: (after.user - before.user + after.system - before.system) / 1000, result };
}

// Warm gateway turns on stored sessions.
async function warmTurns(gateway, floor, sessions) {
  const results = {};
  for (const size of WARM_SIZES) {
    const sessionId = sessions[size];
    const floorHistory = storedHistory(size);
    const gatewayCpu = [];
    const floorCpu = [];
    for (let index = 0; index < requestsPerSize; index += 1) {
      const question = { role: 'user', content: `bench turn ${size}-${index}` };
      const measured = await cpuOf(gateway, () =>
        post(
          gateway.url,
          '/v1/chat/completions',
          { 'x-hermes-session-id': sessionId },
          JSON.stringify({ model: MODEL, messages: [question] }),
        ),
      );
      gatewayCpu.push(measured.ms);
      const forwarded = JSON.stringify({ model: MODEL, messages: [...floorHistory, question] });
      floorCpu.push((await cpuOf(floor, () => post(floor.url, '/v1/chat/completions', {}, forwarded))).ms);
      floorHistory.push(question, { role: 'assistant', content: 'ok' });
    }
    results[size] = { gateway: median(gatewayCpu), floor: median(floorCpu) };
  }
  return results;
}

/** A Claude Code-like conversation on the Messages door: the client holds and resends everything. */
function messagesConversation(name) {
  const messages = [];
  let turn = 0;
  const sessionId = `bench-${name}`;
  return {
    get size() {
      return messages.length;
    },
    /** The next request's bytes (a new question appended to what the client holds). */
    nextBody() {
      messages.push({
        role: 'user',
        content: [{ type: 'text', text: `bench turn ${name}-${(turn += 1)}: ${'lorem ipsum '.repeat(8)}` }],
      });
      return JSON.stringify({ model: MODEL, max_tokens: 1024, messages, tools: TOOLS });
    },
    headers: { 'x-claude-code-session-id': sessionId, 'anthropic-version': '2023-06-01', 'x-api-key': 'bench' },
    /** Folds the door's answer into the history, as the SDK's client does. */
    answered(text) {
      const answer = JSON.parse(text);
      messages.push({ role: 'assistant', content: answer.content });
    },
  };
}

async function frontDoor(gateway, floor, round) {
  const results = {};
  for (const size of DOOR_SIZES) {
    const conversation = messagesConversation(`r${round}-n${size}`);
    // Grow the conversation to `size` client-held messages (not measured).
    while (conversation.size + 1 < size) {
      conversation.answered(await post(gateway.url, '/v1/messages', conversation.headers, conversation.nextBody()));
    }
    const gatewayCpu = [];
    const floorCpu = [];
    for (let index = 0; index < requestsPerSize; index += 1) {
      const body = conversation.nextBody();
      const measured = await cpuOf(gateway, () => post(gateway.url, '/v1/messages', conversation.headers, body));
      gatewayCpu.push(measured.ms);
      floorCpu.push((await cpuOf(floor, () => post(floor.url, '/v1/chat/completions', {}, body))).ms);
      conversation.answered(measured.result);
    }
    results[size] = { gateway: median(gatewayCpu), floor: median(floorCpu) };
  }
  return results;
}

function startServer(mode, emulator) {
  const profile = process.env.BENCH_SERVER_PROFILE;
  const script = new URL('../gateway/bench-server.mjs', import.meta.url).pathname;
  return startChild(
    [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), script, mode, emulator.url, statePath],
    true,
  );
}

function printTable(title, perRound, sizes, target) {
  const cells = {};
  for (const size of sizes) {
    const pick = (field) => median(perRound.map((round) => round[size][field]));
    const above = median(perRound.map((round) => round[size].gateway - round[size].floor));
    cells[size] = { gateway: pick('gateway'), floor: pick('floor'), above };
  }
  const base = cells[sizes[0]].above;
  console.log(`\n${title}`);
  const widths = [10, 13, 16, 11, 13, 14];
  console.log(row(['messages', 'gateway ms', 'gateway growth', 'floor ms', 'above ms', 'above growth'], widths));
  for (const size of sizes) {
    const cell = cells[size];
    console.log(
      row(
        [
          size,
          fixed(cell.gateway),
          `×${fixed(cell.gateway / cells[sizes[0]].gateway)}`,
          fixed(cell.floor),
          fixed(cell.above),
          `×${fixed(cell.above / base)}`,
        ],
        widths,
      ),
    );
  }
  const last = sizes.at(-1);
  // The floor moves the whole history twice (in from the client, out to the provider) where a
  // gateway holding the session receives one message: "above" can be below zero there.
  console.log(`${target}: above at ${last} / above at ${sizes[0]} = ×${fixed(cells[last].above / base)}`);
  return cells;
}

const emulator = await startDeepseekEmulator();
const servers = [];
try {
  const sessions = {};
  for (const size of WARM_SIZES) sessions[size] = await seedSession(size);
  const floor = await startServer('floor', emulator);
  servers.push(floor);
  const gateway = await startServer('gateway', emulator);
  servers.push(gateway);
  // Warm-up: JIT, page cache, keep-alive sockets (a short session and a short conversation).
  const warmupSession = await seedSession(10);
  for (let index = 0; index < 200; index += 1) {
    await post(
      gateway.url,
      '/v1/chat/completions',
      { 'x-hermes-session-id': warmupSession },
      JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'warm' }] }),
    );
    await post(
      floor.url,
      '/v1/chat/completions',
      {},
      JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'warm' }] }),
    );
  }
  const warmConversation = messagesConversation('warmup');
  for (let index = 0; index < 100; index += 1) {
    warmConversation.answered(
      await post(gateway.url, '/v1/messages', warmConversation.headers, warmConversation.nextBody()),
    );
  }
  const warm = [];
  const doors = [];
  for (let round = 0; round < rounds; round += 1) {
    if (part !== 'door') warm.push(await warmTurns(gateway, floor, sessions));
    if (part !== 'warm') doors.push(await frontDoor(gateway, floor, round));
  }
  console.log(
    `turn-growth: server CPU per request (median of ${requestsPerSize} requests, median of ${rounds} rounds), Node ${process.version}`,
  );
  const warmCells =
    warm.length > 0 &&
    printTable(
      'warm gateway turn (stored session, one new message; floor forwards the whole history)',
      warm,
      WARM_SIZES,
      'target ≤ 1.5×',
    );
  const doorCells =
    doors.length > 0 &&
    printTable(
      'front-door Messages request with x-claude-code-session-id (floor forwards the same bytes)',
      doors,
      DOOR_SIZES,
      'target ≤ 2.5×',
    );
  console.log(`json ${JSON.stringify({ warm: warmCells, door: doorCells })}`);
} finally {
  for (const server of servers) await server.close();
  await emulator.close();
  await dispatcher.close();
  rmSync(home, { recursive: true, force: true });
}
