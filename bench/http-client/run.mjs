// bench/http-client: which HTTP client the transports send provider requests through. One
// streaming chat-completions request (the DeepSeek emulator in its own process, SSE answer read
// to its end) costs this process's CPU, per client, at 32 requests in flight over keep-alive:
//   fetch        - Node's global fetch, the body read as a web stream (what the transports used);
//   undici Agent - undici's `request` on one pooled Agent, the body a Node stream;
//   undici dispatch - undici's handler API on the same Agent, the chunks in callbacks (what the
//                  transports use, src/transports/shared/transport-pooled-exchange.ts);
//   node:http    - node:http with a keep-alive Agent, the body read by async iteration and by
//                  'data' events.
// Rounds alternate the order of the clients, so a machine that gets busier or quieter affects
// them alike; the medians are printed with each client's ratio to the undici Agent.
// Run after `npm run build`: node bench/http-client/run.mjs [requests=2000] [rounds=5]
// (or `npm run bench -- http-client`).
/* global fetch */
import { Buffer } from 'node:buffer';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { Agent, request as undiciRequest } from 'undici';
import { startDeepseekEmulator } from '../bench-child.mjs';

const requests = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 5);
const CONCURRENCY = 32;

const emulator = await startDeepseekEmulator();
const baseUrl = emulator.url;
const url = `${baseUrl}/chat/completions`;
const body = JSON.stringify({
  model: 'deepseek-v4-flash',
  stream: true,
  messages: [{ role: 'user', content: 'hello there' }],
});
const headers = { 'content-type': 'application/json', accept: 'text/event-stream', authorization: 'Bearer bench' };
const agent = new Agent({ keepAliveTimeout: 30_000 });
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const nodeHeaders = { ...headers, 'content-length': Buffer.byteLength(body) };

/** Each client sends one request and reads the answer to its end, returning the bytes read. */
const clients = {
  fetch: async () => {
    const response = await fetch(url, { method: 'POST', headers, body });
    const reader = response.body.getReader();
    let bytes = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
    return bytes;
  },
  'undici Agent': async () => {
    const response = await undiciRequest(url, { method: 'POST', headers, body, dispatcher: agent });
    let bytes = 0;
    for await (const chunk of response.body) bytes += chunk.byteLength;
    return bytes;
  },
  // undici's handler API: the chunks arrive in callbacks, no stream object per request.
  'undici dispatch': () =>
    new Promise((resolve, reject) => {
      let bytes = 0;
      agent.dispatch(
        { origin: new URL(url).origin, path: new URL(url).pathname, method: 'POST', headers, body },
        {
          onConnect() {},
          onHeaders() {
            return true;
          },
          onData(chunk) {
            bytes += chunk.byteLength;
            return true;
          },
          onComplete() {
            resolve(bytes);
          },
          onError: reject,
        },
      );
    }),
  'node:http iterate': () =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(url, { method: 'POST', headers: nodeHeaders, agent: httpAgent }, async (answer) => {
        let bytes = 0;
        for await (const chunk of answer) bytes += chunk.byteLength;
        resolve(bytes);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    }),
  'node:http data': () =>
    new Promise((resolve, reject) => {
      const outgoing = httpRequest(url, { method: 'POST', headers: nodeHeaders, agent: httpAgent }, (answer) => {
        let bytes = 0;
        answer.on('data', (chunk) => (bytes += chunk.byteLength));
        answer.on('end', () => resolve(bytes));
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    }),
};

async function run(client, count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      if ((await client()) === 0) throw new Error('an empty answer');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const loadBefore = loadavg();
const names = Object.keys(clients);
// Warm-up: JIT and connections.
for (const name of names) await run(clients[name], requests);
const samples = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const name of round % 2 === 0 ? names : [...names].reverse()) {
    const before = process.cpuUsage();
    await run(clients[name], requests);
    const used = process.cpuUsage(before);
    samples[name].push((used.user + used.system) / 1000 / requests);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const reference = median(samples['undici Agent']);
console.log(
  `http-client bench: ${requests} streaming requests per client and round, ${CONCURRENCY} in flight, ${rounds} rounds (medians), ` +
    `DeepSeek emulator, Node ${process.version}; load average ${loadBefore.map((value) => value.toFixed(2)).join(' ')} before, ` +
    `${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} after`,
);
console.log(`${'client'.padEnd(20)}${'CPU ms/request'.padStart(16)}${'/undici Agent'.padStart(16)}`);
for (const name of names) {
  const value = median(samples[name]);
  console.log(`${name.padEnd(20)}${value.toFixed(3).padStart(16)}${(value / reference).toFixed(2).padStart(16)}`);
}
await emulator.close();
await agent.close();
httpAgent.destroy();
