import type { ServerResponse } from 'node:http';
import type { EmulatorHttpRequest } from './emulator-http-server.js';
import type { HostileFault, KeyEchoPlace } from './emulator-hostile-faults.js';

/**
 * Plays a {@link HostileFault} on one response. What differs per wire API (how a text delta,
 * an in-band error or a JSON error body looks) comes from the emulator's {@link HostileDialect};
 * the timing and sizes are the same for every emulator. Every loop ends when the client
 * disconnects or the server closes, and has a hard cap besides.
 */

/** One frame as written on the wire. */
export type HostileFrame = string | Uint8Array;

/** The wire shapes of one API. */
export interface HostileDialect {
  /** Content type of a streaming answer (default `text/event-stream`). */
  streamContentType?: string;
  /** Frames a valid stream starts with (message start and the like). */
  preamble(): HostileFrame[];
  /** One frame carrying the text delta `text`. */
  deltaFrame(text: string, index: number): HostileFrame;
  /** One in-band error frame whose message is `message`. */
  errorFrame(message: string): HostileFrame;
  /** A frame that does not parse, containing `text`. */
  malformedFrame(text: string): HostileFrame;
  /** A JSON body that is an error saying `message` (sent with status 200). */
  errorBody(message: string): unknown;
}

const DEFAULT_KEEP_ALIVE_MS = 200;
const DEFAULT_DELTA_MS = 5;
const DEFAULT_HUGE_BYTES = 64 * 1024 * 1024;
const PIECE_BYTES = 64 * 1024;
/** Upper bound of any emulator loop, whatever the client does. */
const MAX_FRAMES = 1_000_000;

/** The credential headers of `request`, as a provider that echoes them would print them. */
export function echoedCredentials(request: EmulatorHttpRequest): string {
  const parts: string[] = [];
  for (const name of ['authorization', 'x-api-key', 'x-goog-api-key']) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') parts.push(`${name}: ${value}`);
  }
  return parts.length === 0 ? 'no credentials' : parts.join(', ');
}

/** The request's credential value alone (no header name, no `Bearer `), as a careless provider echoes it. */
function bareCredential(request: EmulatorHttpRequest): string {
  for (const name of ['x-api-key', 'x-goog-api-key', 'authorization']) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') return value.replace(/^Bearer\s+/i, '');
  }
  return 'no-credentials';
}

/** Serves `fault`; resolves with the status sent (0 when none) once the response is over. */
export async function serveHostileFault(
  fault: HostileFault,
  request: EmulatorHttpRequest,
  response: ServerResponse,
  dialect: HostileDialect,
): Promise<number> {
  const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
  const open = () => !response.destroyed && !response.writableEnded;
  const startStream = () => {
    response.writeHead(200, {
      'content-type': dialect.streamContentType ?? 'text/event-stream',
      'cache-control': 'no-cache',
    });
    response.flushHeaders();
  };
  switch (fault.kind) {
    case 'stall-before-headers':
      await closed;
      return 0;
    case 'stall-after-headers':
      startStream();
      await closed;
      return 200;
    case 'keep-alive-only':
      startStream();
      await repeat(open, closed, fault.intervalMs ?? DEFAULT_KEEP_ALIVE_MS, () => response.write(': keep-alive\n\n'));
      return 200;
    case 'endless-deltas': {
      startStream();
      for (const frame of dialect.preamble()) response.write(frame);
      let index = 0;
      await repeat(open, closed, fault.intervalMs ?? DEFAULT_DELTA_MS, () =>
        response.write(dialect.deltaFrame(`delta ${index} `, index++)),
      );
      return 200;
    }
    case 'huge-error-body': {
      const status = fault.status ?? 500;
      response.writeHead(status, { 'content-type': 'application/json' });
      await writeLarge(response, open, '{"error":{"message":"', fault.bytes ?? DEFAULT_HUGE_BYTES, '"}}');
      return status;
    }
    case 'huge-event':
      startStream();
      await writeLarge(response, open, 'data: {"text":"', fault.bytes ?? DEFAULT_HUGE_BYTES, '"}\n\n');
      return 200;
    case 'key-echo':
      return echoKey(fault.where, request, response, dialect, startStream);
  }
}

function echoKey(
  where: KeyEchoPlace,
  request: EmulatorHttpRequest,
  response: ServerResponse,
  dialect: HostileDialect,
  startStream: () => void,
): number {
  const message = `invalid credentials (the request carried ${echoedCredentials(request)})`;
  if (where === 'error-body') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(dialect.errorBody(message)));
    return 200;
  }
  if (where === 'request-id-header') {
    const echoed = bareCredential(request);
    response.writeHead(401, {
      'content-type': 'application/json',
      'x-request-id': echoed,
      'x-amzn-requestid': echoed,
      'x-amzn-errortype': 'UnrecognizedClientException',
    });
    response.end(JSON.stringify(dialect.errorBody('invalid credentials')));
    return 401;
  }
  startStream();
  for (const frame of dialect.preamble()) response.write(frame);
  if (where === 'split-malformed-chunks') {
    const echoed = bareCredential(request);
    const half = Math.ceil(echoed.length / 2);
    response.write(dialect.malformedFrame(`credential ${echoed.slice(0, half)}`));
    response.end(dialect.malformedFrame(echoed.slice(half)));
    return 200;
  }
  response.end(where === 'error-chunk' ? dialect.errorFrame(message) : dialect.malformedFrame(message));
  return 200;
}

/** Calls `step` every `intervalMs` while `open()`, until `closed` or {@link MAX_FRAMES} steps. */
async function repeat(open: () => boolean, closed: Promise<void>, intervalMs: number, step: () => void): Promise<void> {
  let count = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (!open() || count++ >= MAX_FRAMES) {
        clearInterval(timer);
        resolve();
        return;
      }
      step();
    }, intervalMs);
    void closed.then(() => {
      clearInterval(timer);
      resolve();
    });
  });
}

/** Writes `head`, `bytes` filler bytes in pieces (honouring backpressure), then `tail`, while `open()`. */
async function writeLarge(
  response: ServerResponse,
  open: () => boolean,
  head: string,
  bytes: number,
  tail: string,
): Promise<void> {
  const piece = 'x'.repeat(PIECE_BYTES);
  response.write(head);
  for (let written = 0; written < bytes && open(); written += PIECE_BYTES) {
    const chunk = bytes - written >= PIECE_BYTES ? piece : piece.slice(0, bytes - written);
    if (!response.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }
  if (open()) response.end(tail);
}
