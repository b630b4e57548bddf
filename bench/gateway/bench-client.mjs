// The client side of bench/gateway: the chat-completions turn, the load levels and the summary.
//
// A turn is any scenario's `turn(url, { text, sessionId, stream })`, returning the session id the
// server answered with. Its text carries a unique id (`bench turn N`), which both servers use to
// report how long the provider took for that turn (see bench-server.mjs), so the latency a server
// ADDS to a turn is the client round trip minus the provider's share.
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';

/** One keep-alive pool for every client request of the run (the client's own cost stays low). */
export const client = new Agent({ connections: 256, pipelining: 1 });

const MODEL = 'deepseek-v4-flash';

/** Reads an SSE answer to its end; throws when it carries an error or lacks `data: [DONE]`. */
export async function readEventStream(body) {
  let text = '';
  body.setEncoding('utf8');
  for await (const piece of body) text += piece;
  if (!text.trimEnd().endsWith('data: [DONE]') || /^data: \{"error"/m.test(text)) {
    throw new Error(`the stream did not end cleanly: ${text.slice(-300)}`);
  }
  return text;
}

/** The chat-completions front door: one user message, the session named by header. */
export const chatCompletionsScenario = {
  name: 'chat-completions',
  async turn(url, { text, sessionId, stream }) {
    const response = await request(`${url}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: client,
      headers: {
        'content-type': 'application/json',
        'x-bench-turn': /bench turn (\d+)/.exec(text)?.[1] ?? '',
        ...(sessionId ? { 'x-hermes-session-id': sessionId } : {}),
      },
      body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content: text }] }),
    });
    if (response.statusCode !== 200)
      throw new Error(`turn failed with HTTP ${response.statusCode}: ${await response.body.text()}`);
    if (stream) await readEventStream(response.body);
    else await response.body.json();
    return { sessionId: response.headers['x-hermes-session-id'] };
  },
};

let nextTurnId = 0;

/** Runs one turn of `scenario`, timed; `provider` is filled in from the server's report. */
async function timedTurn(server, scenario, sessionId, stream) {
  const id = ++nextTurnId;
  const started = performance.now();
  const answered = await scenario.turn(server.url, { text: `bench turn ${id}`, sessionId, stream });
  return { id, total: performance.now() - started, sessionId: answered.sessionId };
}

/**
 * Runs `turns` turns of `scenario` with `workers` concurrent sessions. Each worker owns one
 * session and sends its turns one after another (turns on one session are serialized by design),
 * starting a fresh session every `turnsPerSession` turns so history size is the same at every
 * level. With `longSessionId`, worker 0 keeps sending to that session until the others are done;
 * its turns are counted for CPU but are not in `samples`.
 */
export async function runLevel(server, options) {
  const { scenario, workers, turns, turnsPerSession, stream, longSessionId, watchLoop } = options;
  const samples = [];
  const longSamples = [];
  let next = 0;
  let done = false;
  const before = await server.report({ watchLoop });
  const started = performance.now();
  const runWorker = async (worker) => {
    if (longSessionId && worker === 0) {
      while (!done) longSamples.push(await timedTurn(server, scenario, longSessionId, stream));
      return;
    }
    let sessionId;
    let inSession = 0;
    while (next < turns) {
      next += 1;
      if (inSession === turnsPerSession) {
        sessionId = undefined;
        inSession = 0;
      }
      const sample = await timedTurn(server, scenario, sessionId, stream);
      sessionId = sample.sessionId;
      inSession += 1;
      samples.push(sample);
    }
  };
  const runs = Array.from({ length: workers }, (_, worker) => runWorker(worker));
  await Promise.all(longSessionId ? runs.slice(1) : runs);
  done = true;
  const wallMs = performance.now() - started;
  await runs[0];
  const after = await server.report();
  const cpuMs = (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000;
  for (const sample of [...samples, ...longSamples]) sample.provider = after.providerMs[sample.id] ?? NaN;
  return {
    samples,
    longSamples,
    wallMs,
    cpuMsPerTurn: cpuMs / (samples.length + longSamples.length),
    // How often the OS preempted the server, and with `watchLoop` its event-loop delay (bench-server.mjs).
    loop: after.loop,
    preempted: after.preempted - before.preempted,
  };
}

/** The `fraction` quantile of an ascending list (nearest rank). */
export function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** Added latency of each sample (round trip minus provider time), ascending. */
export function addedLatencies(samples) {
  return samples.map((sample) => sample.total - sample.provider).sort((a, b) => a - b);
}

/** Turns/s, CPU per turn and added p50/p99 of a level. */
export function summarize(result) {
  const added = addedLatencies(result.samples);
  return {
    turnsPerSecond: ((result.samples.length + result.longSamples.length) / result.wallMs) * 1000,
    cpuMsPerTurn: result.cpuMsPerTurn,
    p50: percentile(added, 0.5),
    p99: percentile(added, 0.99),
    loop: result.loop,
    preemptedPerTurn: result.preempted / (result.samples.length + result.longSamples.length),
  };
}

/** `turns` turns on one session alone: what one turn of a long session costs. */
export async function runAlone(server, scenario, sessionId, turns, stream) {
  const before = await server.report();
  const samples = [];
  for (let index = 0; index < turns; index += 1) samples.push(await timedTurn(server, scenario, sessionId, stream));
  const after = await server.report();
  for (const sample of samples) sample.provider = after.providerMs[sample.id] ?? NaN;
  return {
    cpuMsPerTurn: (after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system) / 1000 / turns,
    p50: percentile(addedLatencies(samples), 0.5),
  };
}
