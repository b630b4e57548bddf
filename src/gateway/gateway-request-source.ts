import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeEventBody, webEventBody, type EventBody } from './gateway-event-body.js';

/**
 * What the chat route reads of a request: headers, the body text under a size cap, and a signal
 * that aborts when the client disconnects; and where a streamed answer goes
 * (`gateway-event-body.ts`). Two sources give the same answers:
 * - {@link webRequestSource}: a web `Request` (`app.request()` in tests, any fetch-style host);
 * - {@link nodeRequestSource}: the Node `IncomingMessage` and `ServerResponse` that
 *   `@hono/node-server` hands the app. Reading them directly skips the web `Request` the adapter
 *   would otherwise build on first use of the body or the signal (a `Headers` copy, a web stream
 *   over the socket, an `AbortController`), which is a measurable share of a turn's CPU
 *   (bench/gateway).
 */
export interface ChatRequestSource {
  /** The header's value as `Headers.get` gives it (duplicates joined by `, `), or null. */
  header(name: string): string | null;
  /** The body as UTF-8 text, or null once it exceeds `maxBytes` (reading stops there). */
  text(maxBytes: number): Promise<string | null>;
  /** The body's bytes, or null once it exceeds `maxBytes` (reading stops there). */
  bytes(maxBytes: number): Promise<Buffer | null>;
  /** Aborts when the client goes away before the response finished. */
  readonly signal: AbortSignal;
  /**
   * The controller behind a turn's signal: it aborts when the client goes away, and the turn's
   * own code may abort it too (a streamed answer the client cancelled). One per request.
   */
  turnAbort(): AbortController;
  /** The body of a streamed answer to this request; `onCancel` runs when the client goes away before it closed. */
  eventBody(onCancel: () => void): EventBody;
  /**
   * The gateway user whose sessions this request sees (`gateway-access.ts`, SPEC §26.10), set once
   * its key was checked; null for the gateway's token, or a gateway without one.
   */
  owner: string | null;
}

/** A web `Request` as a {@link ChatRequestSource}. */
export function webRequestSource(request: Request): ChatRequestSource {
  return new WebRequestSource(request);
}

class WebRequestSource implements ChatRequestSource {
  owner: string | null = null;

  constructor(private readonly request: Request) {}

  header(name: string): string | null {
    return this.request.headers.get(name);
  }

  get signal(): AbortSignal {
    return this.request.signal;
  }

  turnAbort(): AbortController {
    // The listener closes over the controller alone, so the request's signal holds no turn state.
    const abort = new AbortController();
    this.request.signal.addEventListener('abort', () => abort.abort(), { once: true });
    return abort;
  }

  eventBody(onCancel: () => void): EventBody {
    return webEventBody(onCancel);
  }

  async text(maxBytes: number): Promise<string | null> {
    return (await this.bytes(maxBytes))?.toString('utf8') ?? null;
  }

  async bytes(maxBytes: number): Promise<Buffer | null> {
    const { request } = this;
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > maxBytes) return null;
    if (!request.body) return Buffer.alloc(0);
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  }
}

/** Leading and trailing HTTP whitespace, which `Headers` strips from values (Fetch §2.2 "normalize"). */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The Node request and response as a {@link ChatRequestSource}. The signal follows the adapter's
 * rule: the response closed before it finished (or the request errored) means the client left.
 */
export function nodeRequestSource(incoming: IncomingMessage, outgoing: ServerResponse): ChatRequestSource {
  return new NodeRequestSource(incoming, outgoing);
}

/** A class, so the `signal` getter is shared (no hidden class per request, core/lazy-property.ts). */
class NodeRequestSource implements ChatRequestSource {
  owner: string | null = null;
  private controller: AbortController | null = null;

  constructor(
    private readonly incoming: IncomingMessage,
    private readonly outgoing: ServerResponse,
  ) {
    outgoing.once('close', () => {
      if (this.controller && (incoming.errored || !outgoing.writableFinished)) this.controller.abort(this.leftReason());
    });
  }

  /** The adapter's abort reasons, so a turn sees the same reason whichever way it was read. */
  private leftReason(): string {
    return this.incoming.errored ? this.incoming.errored.toString() : 'Client connection prematurely closed.';
  }

  header(name: string): string | null {
    const wanted = name.toLowerCase();
    const raw = this.incoming.rawHeaders;
    let value: string | null = null;
    for (let index = 0; index < raw.length; index += 2) {
      if ((raw[index] as string).toLowerCase() !== wanted) continue;
      const found = (raw[index + 1] as string).replace(HTTP_WHITESPACE, '');
      value = value === null ? found : `${value}, ${found}`;
    }
    return value;
  }

  get signal(): AbortSignal {
    return this.turnAbort().signal;
  }

  /** The source's own controller: a second one following it would cost a turn another signal. */
  turnAbort(): AbortController {
    this.controller ??= new AbortController();
    if (this.outgoing.destroyed && !this.outgoing.writableFinished) this.controller.abort(this.leftReason());
    return this.controller;
  }

  async text(maxBytes: number): Promise<string | null> {
    return (await readIncoming(this.incoming, maxBytes))?.toString('utf8') ?? null;
  }

  bytes(maxBytes: number): Promise<Buffer | null> {
    return readIncoming(this.incoming, maxBytes);
  }

  eventBody(onCancel: () => void): EventBody {
    return nodeEventBody(this.outgoing, onCancel);
  }
}

/**
 * Reads the body up to `maxBytes`. Past the cap the rest is left unread (the adapter drains it
 * once the response finished), so the 413 answer still goes out on the open connection.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(incoming.headers['content-length'] ?? '0') > maxBytes) return Promise.resolve(null);
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        cleanup();
        incoming.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error('the client closed the connection before the request body ended'));
    };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onError);
    incoming.once('close', onClose);
  });
}

/** An abort controller that fires when the client goes away (see {@link ChatRequestSource.turnAbort}). */
export function clientAbort(source: ChatRequestSource): AbortController {
  return source.turnAbort();
}
