// bench/front-doors: the gateway's CPU per request on each front door (Anthropic Messages,
// Responses, chat completions with client tools; JSON and SSE) next to the plain proxy floor,
// with a zero-latency provider (the in-repo chat emulator, DeepSeek persona, in its own process).
// Same method and servers as bench/gateway: bench/gateway/bench-server.mjs in child processes
// (the gateway, whose app serves every door, and the plain proxy floor), one after the other
// against the same emulator, server CPU from `process.cpuUsage` over IPC, a warm-up
// before each measured level. Clients (bench/gateway/gateway-front-door-turns.mjs) hold their
// conversations and run their tool; a conversation restarts every `requestsPerConversation`
// requests, so every door carries the same history length.
//
// Run after `npm run build`:
//   node bench/front-doors/run.mjs [requestsPerLevel=200] [requestsPerConversation=10]
//   (or: npm run bench -- front-doors)
// Printed per door and concurrency: server CPU ms per request, requests/s, CPU ratio door/floor.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, startDeepseekEmulator } from '../bench-child.mjs';
import { FLOOR_DOOR, GATEWAY_DOORS, measureDoor } from '../gateway/gateway-front-door-turns.mjs';

const requestsPerLevel = Number(process.argv[2] ?? 200);
const requestsPerConversation = Number(process.argv[3] ?? 10);
const LEVELS = [1, 8];

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-front-doors-'));

async function runServer(mode, emulatorUrl, doors) {
  const server = await startChild(
    [new URL('../gateway/bench-server.mjs', import.meta.url).pathname, mode, emulatorUrl, join(home, 'state.db')],
    true,
  );
  try {
    const results = {};
    for (const door of doors) {
      // Warm-up: JIT, keep-alive sockets, the handle key.
      await measureDoor(server, door, { workers: 4, requests: 20, requestsPerConversation });
      results[door] = {};
      for (const workers of LEVELS) {
        results[door][workers] = await measureDoor(server, door, {
          workers,
          requests: requestsPerLevel,
          requestsPerConversation,
        });
      }
    }
    return results;
  } finally {
    await server.close();
  }
}

const row = (cells, widths) => cells.map((cell, index) => String(cell).padStart(widths[index])).join('');
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

const emulator = await startDeepseekEmulator();
try {
  const floor = await runServer('floor', emulator.url, [FLOOR_DOOR]);
  const gateway = await runServer('gateway', emulator.url, GATEWAY_DOORS);
  console.log(
    `front-door bench: ${requestsPerLevel} requests per level, conversations of ${requestsPerConversation} requests (tool loops, client-held history), DeepSeek emulator, Node ${process.version}`,
  );
  const widths = [18, 9, 10, 9, 10];
  console.log(row(['door', 'clients', 'CPU ms', 'req/s', 'CPU'], widths));
  console.log(row(['', '', '/request', '', '/floor'], widths));
  for (const workers of LEVELS) {
    const base = floor[FLOOR_DOOR][workers];
    console.log(row([FLOOR_DOOR, workers, fixed(base.cpuMsPerRequest), fixed(base.requestsPerSecond, 0), ''], widths));
    for (const door of GATEWAY_DOORS) {
      const result = gateway[door][workers];
      console.log(
        row(
          [
            door,
            workers,
            fixed(result.cpuMsPerRequest),
            fixed(result.requestsPerSecond, 0),
            fixed(result.cpuMsPerRequest / base.cpuMsPerRequest, 1),
          ],
          widths,
        ),
      );
    }
  }
} finally {
  await emulator.close();
  rmSync(home, { recursive: true, force: true });
}
