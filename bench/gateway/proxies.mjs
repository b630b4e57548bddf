// The proxies bench/gateway measures the gateway against, each in front of the emulator's
// `/chat/completions` over a keep-alive agent:
//
// - `floor`: forwards the client's request and pipes the answer back as it arrives (the least a
//   server in front of the provider can cost).
// - `reader`: reads the client's JSON body, writes the upstream body, and reads the answer the
//   way any gateway that understands it must: each server-sent event's JSON parsed and written
//   again to the client (a non-streaming answer parsed and written again whole). It keeps no
//   state: the upstream body is the client's.
// - `minimal`: the reader plus what the least session-keeping gateway adds. It keeps each
//   session's history in memory (a session id minted on the first turn, answered in
//   `x-hermes-session-id`), sends the whole history upstream, and appends the turn's user and
//   assistant messages to a SQLite file in WAL mode with `synchronous = NORMAL` (the gateway's
//   durability), the writes of one event-loop turn sharing one transaction (the gateway's group
//   commit), before the answer ends.
//
// They have none of the gateway's routing, replay decisions, leases, verdicts, handles, request
// records, metrics, deadlines or retries: they show how much of the gateway's cost above the
// floor any gateway that reads the stream and keeps sessions pays.
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, createServer } from 'node:http';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';

const require = createRequire(import.meta.url);

/** One SQLite file the `minimal` server appends each turn to, commits grouped per event-loop turn. */
function openTurnLog(path) {
  const Database = require('better-sqlite3');
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.exec(
    'CREATE TABLE IF NOT EXISTS reference_messages (session_id TEXT NOT NULL, seq INTEGER NOT NULL, ' +
      'role TEXT NOT NULL, content TEXT, reasoning TEXT, PRIMARY KEY (session_id, seq))',
  );
  const insert = database.prepare('INSERT INTO reference_messages VALUES (?, ?, ?, ?, ?)');
  const commit = database.transaction((rows) => {
    for (const row of rows) insert.run(...row);
  });
  let queued = [];
  let waiting = [];
  return {
    /** Resolves once `rows` are committed. */
    append(rows) {
      return new Promise((resolve) => {
        if (queued.length === 0)
          setImmediate(() => {
            const [rowsNow, waitingNow] = [queued, waiting];
            queued = [];
            waiting = [];
            commit.immediate(rowsNow);
            for (const done of waitingNow) done();
          });
        queued.push(...rows);
        waiting.push(resolve);
      });
    },
  };
}

/** Server-sent events in `buffered` up to its last blank line: their `data` and the rest. */
function takeEvents(buffered) {
  const events = [];
  let start = 0;
  for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n', start)) {
    const lines = buffered.slice(start, end).split('\n');
    const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart());
    if (data.length > 0) events.push(data.join('\n'));
    start = end + 2;
  }
  return { events, rest: buffered.slice(start) };
}

/** What one streamed chunk or whole answer adds to the assistant message. */
function addAnswer(assistant, parsed) {
  const choice = parsed.choices?.[0];
  const part = choice?.delta ?? choice?.message;
  if (!part) return;
  if (typeof part.content === 'string') assistant.content += part.content;
  if (typeof part.reasoning_content === 'string') assistant.reasoning += part.reasoning_content;
}

/**
 * Sends `body` to `upstream` on `agent`; `onAnswer(answer)` runs once the client was answered the
 * upstream status, content type and `sessionId`. A request that failed on a reused keep-alive
 * socket is sent once more on a fresh one (the emulator may close an idle socket as it is reused,
 * Node's `request.reusedSocket`); any other failure answers the client 502.
 */
function forward(upstream, agent, outgoing, sessionId, body, onAnswer, retried = false) {
  const forwarded = httpRequest(
    upstream,
    { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: 'Bearer bench' } },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, {
        'content-type': answer.headers['content-type'] ?? 'application/json',
        'x-hermes-session-id': sessionId,
      });
      onAnswer(answer);
    },
  );
  forwarded.on('error', () => {
    if (!retried && forwarded.reusedSocket && !outgoing.headersSent) {
      forward(upstream, agent, outgoing, sessionId, body, onAnswer, true);
      return;
    }
    if (!outgoing.headersSent) outgoing.writeHead(502);
    outgoing.end();
  });
  forwarded.end(body);
}

/** The floor's request handler: the client's bytes forwarded, the answer's piped back. */
function floorHandler(upstream, agent, onProviderMs) {
  return (incoming, outgoing) => {
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      const started = performance.now();
      const turnId = incoming.headers['x-bench-turn'];
      const sessionId = incoming.headers['x-hermes-session-id'] ?? 'floor';
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      forward(upstream, agent, outgoing, sessionId, body, (answer) => {
        answer.on('end', () => {
          if (typeof turnId === 'string') onProviderMs(turnId, performance.now() - started);
        });
        answer.pipe(outgoing);
      });
    });
  };
}

/**
 * Starts a proxy (`floor`, `reader`, or `minimal` with `statePath`) in front of
 * `${baseUrl}/chat/completions`; `onProviderMs(turnId, ms)` gets request sent → answer read.
 * Resolves with its URL.
 */
export async function startProxyServer(mode, baseUrl, statePath, onProviderMs) {
  const upstream = new URL(`${baseUrl}/chat/completions`);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  const server = createServer(
    mode === 'floor'
      ? floorHandler(upstream, agent, onProviderMs)
      : readingHandler(upstream, agent, mode, statePath, onProviderMs),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/** The request handler of `reader` and `minimal`. */
function readingHandler(upstream, agent, mode, statePath, onProviderMs) {
  const log = mode === 'minimal' ? openTurnLog(statePath) : null;
  /** Session id → its messages as sent upstream. */
  const sessions = new Map();

  return (incoming, outgoing) => {
    const chunks = [];
    incoming.on('data', (chunk) => chunks.push(chunk));
    incoming.on('end', () => {
      const started = performance.now();
      const turnId = incoming.headers['x-bench-turn'];
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      let sessionId = incoming.headers['x-hermes-session-id'];
      let history = body.messages;
      if (log) {
        if (typeof sessionId !== 'string' || !sessions.has(sessionId)) {
          sessionId = randomUUID();
          sessions.set(sessionId, []);
        }
        history = [...sessions.get(sessionId), ...body.messages];
      }
      const answered = typeof sessionId === 'string' ? sessionId : 'reference';
      const upstreamBody = JSON.stringify({ ...body, messages: history });
      forward(upstream, agent, outgoing, answered, upstreamBody, (answer) => {
        const assistant = { role: 'assistant', content: '', reasoning: '' };
        const streamed = String(answer.headers['content-type']).startsWith('text/event-stream');
        let buffered = '';
        answer.setEncoding('utf8');
        answer.on('data', (text) => {
          buffered += text;
          if (!streamed) return;
          const { events, rest } = takeEvents(buffered);
          buffered = rest;
          let written = '';
          for (const data of events) {
            if (data === '[DONE]') {
              written += 'data: [DONE]\n\n';
              continue;
            }
            const parsed = JSON.parse(data);
            addAnswer(assistant, parsed);
            written += `data: ${JSON.stringify(parsed)}\n\n`;
          }
          if (written) outgoing.write(written);
        });
        answer.on('end', async () => {
          if (typeof turnId === 'string') onProviderMs(turnId, performance.now() - started);
          let whole = '';
          if (!streamed) {
            const parsed = JSON.parse(buffered);
            addAnswer(assistant, parsed);
            whole = JSON.stringify(parsed);
          }
          if (log) {
            const kept = sessions.get(sessionId);
            const seq = kept.length;
            const user = body.messages.at(-1);
            await log.append([
              [sessionId, seq + 1, user.role, String(user.content), null],
              [sessionId, seq + 2, 'assistant', assistant.content, assistant.reasoning],
            ]);
            kept.push(user, {
              role: 'assistant',
              content: assistant.content,
              ...(assistant.reasoning ? { reasoning_content: assistant.reasoning } : {}),
            });
          }
          outgoing.end(whole);
        });
      });
    });
  };
}
