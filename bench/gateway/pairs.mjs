// Two servers side by side at 32 sessions, in pairs of levels: each pair runs one level on each
// (the order alternating from pair to pair), and prints both sides' CPU per turn and B / A, with
// the median and range over the pairs. On a shared machine the speed drifts by tens of percent
// over minutes; the ratio of two levels run back to back drifts far less, so this is the way to
// compare two builds of the gateway, or the gateway with one of the reference proxies. Run after
// `npm run build`:
//   node bench/gateway/pairs.mjs [--a floor] [--b gateway] [--b-root DIR] [--pairs 8] [--turns 2000]
//     [--warmup 3000] [--door DOOR]
// --a / --b: floor | reader | minimal | gateway (bench-server.mjs). --b-root DIR runs side B from
// another built checkout (its bench/gateway/bench-server.mjs and dist/), to measure a change.
// --door DOOR (a door of gateway-front-door-turns.mjs, for example gemini-sse) sends a gateway
// side's requests through that front door, and the other servers' through the floor's own
// client. Otherwise streaming chat completions. 10 turns per session; both servers keep their
// state in a fresh temporary directory.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChild, startDeepseekEmulator } from '../bench-child.mjs';
import { chatCompletionsScenario, runLevel } from './bench-client.mjs';
import { FLOOR_DOOR, GATEWAY_DOORS, measureDoor } from './gateway-front-door-turns.mjs';

const MODES = ['floor', 'reader', 'minimal', 'gateway'];
const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'floor' },
    b: { type: 'string', default: 'gateway' },
    'b-root': { type: 'string' },
    pairs: { type: 'string', default: '8' },
    turns: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    door: { type: 'string' },
  },
});
const pairs = Number(values.pairs);
const turns = Number(values.turns);
const warmup = Number(values.warmup);
const fail = (message) => {
  console.error(`pairs: ${message}`);
  process.exit(2);
};
for (const side of [values.a, values.b])
  if (!MODES.includes(side)) fail(`unknown server "${side}" (${MODES.join(', ')})`);
if (![pairs, turns, warmup].every((count) => Number.isInteger(count) && count > 0)) {
  fail('--pairs, --turns and --warmup take positive whole numbers');
}
if (values.door !== undefined && !GATEWAY_DOORS.includes(values.door)) {
  fail(`unknown door "${values.door}" (${GATEWAY_DOORS.join(', ')})`);
}
if (values.door !== undefined && values.a !== 'gateway' && values.b !== 'gateway') fail('--door needs a gateway side');

const here = new URL('.', import.meta.url).pathname;
const serverOf = (root) => (root ? join(root, 'bench/gateway/bench-server.mjs') : join(here, 'bench-server.mjs'));
const emulator = await startDeepseekEmulator();
const start = (mode, root) =>
  startChild(
    [serverOf(root), mode, emulator.url, join(mkdtempSync(join(tmpdir(), 'hermes-pairs-')), 'state.db')],
    true,
  );
const doorOf = (mode) => (values.door === undefined ? undefined : mode === 'gateway' ? values.door : FLOOR_DOOR);
const sides = [
  { name: 'A', server: await start(values.a), door: doorOf(values.a) },
  { name: 'B', server: await start(values.b, values['b-root']), door: doorOf(values.b) },
];

/** Server CPU ms per turn over `count` turns at 32 sessions. */
async function level(side, count) {
  if (side.door !== undefined) {
    const result = await measureDoor(side.server, side.door, {
      workers: 32,
      requests: count,
      requestsPerConversation: 10,
    });
    return result.cpuMsPerRequest;
  }
  const options = { scenario: chatCompletionsScenario, workers: 32, turns: count, turnsPerSession: 10, stream: true };
  return (await runLevel(side.server, options)).cpuMsPerTurn;
}

const median = (list) => {
  const sorted = [...list].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const format = (list, digits) => list.map((value) => value.toFixed(digits)).join(' ');
try {
  for (const side of sides) await level(side, warmup);
  const cpu = { A: [], B: [] };
  for (let pair = 0; pair < pairs; pair += 1) {
    for (const side of pair % 2 === 0 ? sides : [...sides].reverse()) cpu[side.name].push(await level(side, turns));
    console.log(`pair ${pair + 1}/${pairs}: A ${cpu.A.at(-1).toFixed(3)}, B ${cpu.B.at(-1).toFixed(3)} ms CPU/turn`);
  }
  const ratios = cpu.B.map((value, index) => value / cpu.A[index]);
  const label = (side) =>
    `${side === 'A' ? values.a : values.b}${side === 'B' && values['b-root'] ? ` (${values['b-root']})` : ''}`;
  const via = (side) => (side.door !== undefined && side.door !== FLOOR_DOOR ? ` via ${side.door}` : '');
  for (const side of sides) {
    const list = cpu[side.name];
    console.log(
      `${side.name} ${label(side.name)}${via(side)}: ${format(list, 3)}; median ${median(list).toFixed(3)} ms CPU/turn`,
    );
  }
  console.log(
    `B / A: ${format(ratios, 2)}; median ${median(ratios).toFixed(2)}× (range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
  );
} finally {
  for (const side of sides) await side.server.close();
  await emulator.close();
}
