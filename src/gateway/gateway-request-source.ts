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
  /** Aborts when the client goes away before the response finished. */
  readonly signal: AbortSignal;
  /** The body of a streamed answer to this request; `onCancel` runs when the client goes away before it closed. */
  eventBody(onCancel: () => void): EventBody;
}

/** A web `Request` as a {@link ChatRequestSource}. */
export function webRequestSource(request: Request): ChatRequestSource {
  return {
    header: (name) => request.headers.get(name),
    get signal() {
      return request.signal;
    },
    eventBody: webEventBody,
    async text(maxBytes) {
      const declared = Number(request.headers.get('content-length') ?? '0');
      if (declared > maxBytes) return null;
      if (!request.body) return '';
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
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** Leading and trailing HTTP whitespace, which `Headers` strips from values (Fetch §2.2 "normalize"). */
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * The Node request and response as a {@link ChatRequestSource}. The signal follows the adapter's
 * rule: the response closed before it finished (or the request errored) means the client left.
 */
export function nodeRequestSource(incoming: IncomingMessage, outgoing: ServerResponse): ChatRequestSource {
  let controller: AbortController | null = null;
  // The adapter's abort reasons, so a turn sees the same reason whichever way it was read.
  const leftReason = () => (incoming.errored ? incoming.errored.toString() : 'Client connection prematurely closed.');
  outgoing.once('close', () => {
    if (controller && (incoming.errored || !outgoing.writableFinished)) controller.abort(leftReason());
  });
  return {
    header(name) {
      const wanted = name.toLowerCase();
      const raw = incoming.rawHeaders;
      let value: string | null = null;
      for (let index = 0; index < raw.length; index += 2) {
        if ((raw[index] as string).toLowerCase() !== wanted) continue;
        const found = (raw[index + 1] as string).replace(HTTP_WHITESPACE, '');
        value = value === null ? found : `${value}, ${found}`;
      }
      return value;
    },
    get signal() {
      controller ??= new AbortController();
      if (outgoing.destroyed && !outgoing.writableFinished) controller.abort(leftReason());
      return controller.signal;
    },
    text: (maxBytes) => readIncoming(incoming, maxBytes),
    eventBody: (onCancel) => nodeEventBody(outgoing, onCancel),
  };
}

/**
 * Reads the body up to `maxBytes`. Past the cap the rest is left unread (the adapter drains it
 * once the response finished), so the 413 answer still goes out on the open connection.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<string | null> {
  if (Number(incoming.headers['content-length'] ?? '0') > maxBytes) return Promise.resolve(null);
  if (incoming.readableEnded) return Promise.resolve('');
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
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'));
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

/**
 * An abort controller that follows the client: it fires when the client goes away. Its listener
 * closes over the controller alone, so a request's signal holds no turn state.
 */
export function clientAbort(source: ChatRequestSource): AbortController {
  const abort = new AbortController();
  source.signal.addEventListener('abort', () => abort.abort(), { once: true });
  return abort;
}
