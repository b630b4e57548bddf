// Child processes the benches run their servers in (their CPU time is then their own).
import { spawn } from 'node:child_process';

/**
 * Spawns `node ARGS` and resolves once it prints `listening on URL`. With `withIpc`, `report()`
 * asks a bench-server child for its CPU and per-turn provider times (bench/gateway/bench-server.mjs),
 * `report({ watchLoop: true })` also starts timing its event loop until the next report, and
 * `cpu()` asks for its CPU alone. `env` is added to this process's environment for the child.
 */
export function startChild(args, withIpc = false, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: withIpc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const ask = (message, pick) =>
    new Promise((done) => {
      child.once('message', (answer) => done(pick(answer)));
      child.send(message);
    });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+(?:\/v1)?)/.exec(output);
      if (!match) return;
      child.stdout.off('data', onData);
      resolve({
        url: match[1],
        report: (options = {}) => ask(options.watchLoop ? 'report watch' : 'report', (answer) => answer),
        cpu: () => ask('cpu', (answer) => answer.cpu),
        close: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`child exited (${code}): ${output}`)));
  });
}

/** The in-repo chat emulator (DeepSeek persona) on a free loopback port, from `dist/cli.js`. */
export function startDeepseekEmulator() {
  const cli = new URL('../dist/cli.js', import.meta.url).pathname;
  return startChild([cli, 'emulate', 'chat', '--persona', 'deepseek', '--host', '127.0.0.1', '--port', '0']);
}
