// The server side of bench/gateway, in its own process so its CPU time is its own:
//   node bench/gateway/bench-server.mjs gateway EMULATOR_BASE_URL STATE_DB
//   node bench/gateway/bench-server.mjs floor EMULATOR_BASE_URL
//   node bench/gateway/bench-server.mjs reader|minimal EMULATOR_BASE_URL STATE_DB
// `gateway` is `startGateway` over the SQLite store at STATE_DB (over the in-memory store with
// BENCH_GATEWAY_STORE=memory); `floor`, `reader` and `minimal` are the proxies of proxies.mjs
// (`floor` pipes the answer back as it arrives, the least a server in front of the provider can
// cost; `minimal` appends each turn to STATE_DB). All print
// `listening on URL` and answer the IPC message `report` with `process.cpuUsage()` and the
// provider time of each turn since the last report, keyed by the turn's id (`bench turn N`):
// the proxies time request sent → upstream answer read, the gateway times each transport
// `send` → its terminal event, through a wrapper that reads the id from the last user message.
// Each report also carries how many times the OS took the CPU from the process (involuntary
// context switches): on a small machine the provider and the client run on the same cores, so a
// turn's latency holds waits that are not the server's work. After a `report watch`, the next
// report also carries how long the event loop was held in between (`monitorEventLoopDelay`,
// 1 ms resolution: p99 and max, ms). Only then: its timer costs an idle process about 16 ms of
// CPU a second, which would weigh on the CPU rows.
// The gateway keeps its Prometheus metrics unless BENCH_GATEWAY_METRICS=0, and traces when the
// OTEL_* variables ask for it (docs/operations.md; bench/operations compares the three).
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const [mode, emulatorBaseUrl, statePath] = process.argv.slice(2);
/** Provider milliseconds per turn id since the last report. */
let providerMs = {};

/** The turn id in a history's last user message (`bench turn N`), if any. */
function turnIdOf(history) {
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history[index];
    if (message.role !== 'user') continue;
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    return /bench turn (\d+)/.exec(text)?.[1];
  }
  return undefined;
}

/** `transport` with its `send` timed per turn (the stream's result settles at its terminal event). */
function timedTransport(transport) {
  const timed = Object.create(transport);
  timed.send = (request, prepared) => {
    const started = performance.now();
    const stream = transport.send(request, prepared);
    const id = turnIdOf(request.history);
    const record = () => {
      if (id !== undefined) providerMs[id] = (providerMs[id] ?? 0) + performance.now() - started;
    };
    stream.result().then(record, record);
    return stream;
  };
  return timed;
}

async function startGatewayServer() {
  const { startGateway } = await import('../../dist/gateway/gateway-serve.js');
  const { silentLogger } = await import('../../dist/logging/logger.js');
  const { openSqliteSessionStore } = await import('../../dist/storage/sqlite-session-store.js');
  const { loadTransport } = await import('../../dist/transports/transport-registry.js');
  const transports = {};
  for (const api of ['chat_completions']) transports[api] = timedTransport(await loadTransport(api));
  const { startTracing } = await import('../../dist/telemetry/telemetry-tracing.js');
  const store =
    process.env.BENCH_GATEWAY_STORE === 'memory'
      ? (await import('../../dist/storage/memory-session-store.js')).createMemorySessionStore()
      : openSqliteSessionStore(statePath);
  const tracing = await startTracing(process.env, {
    name: 'hermes-bench',
    version: '0',
    warn: (line) => console.error(line),
  });
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    store,
    route: {
      route: { api: 'chat_completions', provider: 'deepseek', model: 'deepseek-v4-flash', baseUrl: emulatorBaseUrl },
      apiKey: 'bench',
    },
    workspace: process.cwd(),
    yolo: false,
    logger: silentLogger(),
    metrics: process.env.BENCH_GATEWAY_METRICS !== '0',
    tracing,
    turn: { transportFor: (api) => transports[api] },
  });
  return gateway.url;
}

async function startServer() {
  if (mode === 'gateway') return startGatewayServer();
  const { startProxyServer } = await import('./proxies.mjs');
  return startProxyServer(mode, emulatorBaseUrl, statePath, (id, ms) => {
    providerMs[id] = ms;
  });
}

const url = await startServer();
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
let watchingLoop = false;
process.on('message', (message) => {
  // `cpu` (CPU only) is what bench/front-doors asks.
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  if (message !== 'report' && message !== 'report watch') return;
  const cpu = process.cpuUsage();
  const loop = watchingLoop ? { p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 } : undefined;
  const preempted = process.resourceUsage().involuntaryContextSwitches;
  process.send?.({ cpu, providerMs, loop, preempted });
  providerMs = {};
  loopDelay.disable();
  loopDelay.reset();
  watchingLoop = message === 'report watch';
  if (watchingLoop) loopDelay.enable();
});
console.log(`listening on ${url}`);
// A normal exit, so `--cpu-prof` (BENCH_SERVER_PROFILE in run.mjs) writes its profile.
process.on('SIGTERM', () => process.exit(0));
