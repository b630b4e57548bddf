// The server side of bench/front-doors, in its own process so its CPU time is its own:
//   node bench/front-doors/front-door-server.mjs gateway EMULATOR_BASE_URL STATE_DB
//   node bench/front-doors/front-door-server.mjs floor EMULATOR_BASE_URL
// `gateway` is `startGateway` (every door) over the SQLite store at STATE_DB, its route the
// DeepSeek emulator; `floor` is a plain `node:http` proxy that forwards each request body to the
// emulator's chat completions and pipes the answer back (the least a proxy in front of the
// provider can cost, bench/gateway's floor). Both print `listening on URL` and answer the IPC
// message `cpu` with `process.cpuUsage()`.
import { Buffer } from 'node:buffer';
import { request as httpRequest, createServer } from 'node:http';
import { performance } from 'node:perf_hooks';

const [mode, emulatorBaseUrl, statePath] = process.argv.slice(2);

async function startGatewayServer() {
  const { startGateway } = await import('../../dist/gateway/gateway-serve.js');
  const { silentLogger } = await import('../../dist/logging/logger.js');
  const { openSqliteSessionStore } = await import('../../dist/storage/sqlite-session-store.js');
  const store = openSqliteSessionStore(statePath);
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
  });
  return gateway.url;
}

async function startFloorServer() {
  const upstream = new URL(`${emulatorBaseUrl}/chat/completions`);
  const server = createServer((incoming, outgoing) => {
    const started = performance.now();
    const forwarded = httpRequest(
      upstream,
      { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } },
      (answer) => {
        const chunks = [];
        answer.on('data', (chunk) => chunks.push(chunk));
        answer.on('end', () => {
          outgoing.writeHead(answer.statusCode ?? 502, {
            'content-type': answer.headers['content-type'] ?? 'application/json',
            'server-timing': `provider;dur=${(performance.now() - started).toFixed(2)}`,
          });
          outgoing.end(Buffer.concat(chunks));
        });
      },
    );
    forwarded.on('error', () => {
      outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

const url = mode === 'floor' ? await startFloorServer() : await startGatewayServer();
process.on('message', (message) => {
  if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
console.log(`listening on ${url}`);
process.on('SIGTERM', () => process.exit(0));
