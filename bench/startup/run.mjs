// bench/startup: what a command costs to start, side by side with `node -e 0` (the floor: Node
// itself). Measures `hermes --help`, `hermes sessions list` (a state.db with 20 sessions) and
// `hermes replay preview --json` (a 40-message history file) and an offline turn (`hermes chat -q`
// on the in-process DeepSeek emulator, once as shipped and once with what src/cli.ts changes at
// start undone: NODE_DISABLE_COMPILE_CACHE=1 and V8's default WebAssembly tiering budget) in fresh
// processes, interleaved
// round by round so machine load hits every command alike. Reports wall time and process CPU
// (user + system), min and median over rounds, and the ratio of each to the floor.
// Target: `hermes --help` ≤ 3× `node -e 0`.
// Run: `npm run bench -- startup` (builds first) or `node bench/startup/run.mjs [rounds=7]`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROUNDS = Number(process.argv[2] ?? process.env.BENCH_ROUNDS ?? 7);
const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/cli.js');

// Each command runs under `sh`, whose `times` builtin then prints the CPU (user + system) its
// one child used: no preload in the measured process, so `node -e 0` stays the bare floor.
const TIMED = '"$0" "$@" >/dev/null; status=$?; times >&3; exit $status';

const home = mkdtempSync(join(tmpdir(), 'hermes-bench-startup-'));
const historyPath = join(home, 'history.json');
try {
  await seed();
  const commands = [
    { name: 'node -e 0', args: ['-e', '0'] },
    { name: 'hermes --help', args: [cli, '--help'] },
    { name: 'hermes sessions list', args: [cli, 'sessions', 'list'] },
    {
      name: 'hermes replay preview',
      args: [cli, 'replay', 'preview', '--provider', 'deepseek', '--history', historyPath, '--json'],
    },
    { name: 'hermes chat -q', args: [cli, 'chat', '--provider', 'emulator:deepseek', '-q', 'hello'] },
    {
      name: 'chat -q, start-up as V8',
      args: ['--wasm-tiering-budget=1800000', cli, 'chat', '--provider', 'emulator:deepseek', '-q', 'hello'],
      env: { NODE_DISABLE_COMPILE_CACHE: '1' },
    },
  ];
  const samples = new Map(commands.map((command) => [command.name, { wall: [], cpu: [] }]));
  run(commands[0]); // warm the file cache once
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const command of commands) {
      const sample = run(command);
      const entry = samples.get(command.name);
      entry.wall.push(sample.wall);
      entry.cpu.push(sample.cpu);
    }
  }
  report(commands, samples);
} finally {
  rmSync(home, { recursive: true, force: true });
}

function run(command) {
  const start = process.hrtime.bigint();
  const result = spawnSync('/bin/sh', ['-c', TIMED, process.execPath, ...command.args], {
    env: { ...process.env, HERMES_HOME: home, NO_COLOR: '1', ...command.env },
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) {
    throw new Error(`${command.name} exited ${result.status}: ${result.stderr.toString().slice(0, 400)}`);
  }
  // `times`: the shell's user and system time, then its children's: "0m0.310s 0m0.052s".
  const children = result.output[3].toString().trim().split('\n').at(-1).split(/\s+/);
  const seconds = (text) => {
    const [, minutes, rest] = /^(\d+)m([\d.]+)s$/.exec(text);
    return Number(minutes) * 60 + Number(rest);
  };
  return { wall, cpu: (seconds(children[0]) + seconds(children[1])) * 1000 };
}

async function seed() {
  const { openSqliteSessionStore } = await import(join(root, 'dist/storage/sqlite-session-store.js'));
  const store = openSqliteSessionStore(join(home, 'state.db'));
  for (let index = 0; index < 20; index += 1) {
    const session = await store.createSession({ provider: 'deepseek', model: 'deepseek-v4-flash', title: `s${index}` });
    await store.appendMessages(session.id, [
      { role: 'user', content: `question ${index}` },
      { role: 'assistant', content: `answer ${index}`, reasoning_content: 'thought', finish_reason: 'stop' },
    ]);
  }
  await store.close();
  const history = [];
  for (let index = 0; index < 20; index += 1) {
    history.push({ role: 'user', content: `question ${index}` });
    history.push({
      role: 'assistant',
      content: `answer ${index}`,
      reasoning_content: `step ${index}`.repeat(50),
      finish_reason: 'stop',
      origin: { api: 'chat_completions', provider: 'deepseek', host: 'api.deepseek.com', model: 'deepseek-v4-flash' },
    });
  }
  writeFileSync(historyPath, JSON.stringify(history));
}

function report(commands, samples) {
  const min = (values) => Math.min(...values);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const floor = samples.get(commands[0].name);
  console.log(`startup, ${ROUNDS} rounds (fresh process each; min / median)`);
  console.log(
    'command'.padEnd(24) +
      'wall ms'.padStart(16) +
      'cpu ms'.padStart(16) +
      '× floor wall'.padStart(16) +
      '× floor cpu'.padStart(16),
  );
  for (const command of commands) {
    const entry = samples.get(command.name);
    const pair = (values) => `${min(values).toFixed(0)} / ${median(values).toFixed(0)}`;
    const ratio = (values, base) =>
      `${(min(values) / min(base)).toFixed(2)} / ${(median(values) / median(base)).toFixed(2)}`;
    console.log(
      command.name.padEnd(24) +
        pair(entry.wall).padStart(16) +
        pair(entry.cpu).padStart(16) +
        ratio(entry.wall, floor.wall).padStart(16) +
        ratio(entry.cpu, floor.cpu).padStart(16),
    );
  }
  const help = samples.get('hermes --help');
  const helpRatio = median(help.wall) / median(floor.wall);
  console.log(
    `target: hermes --help ≤ 3.00× node -e 0 (median wall): ${helpRatio.toFixed(2)}× — ${helpRatio <= 3 ? 'met' : 'missed'}`,
  );
}
