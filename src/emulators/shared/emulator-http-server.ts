import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A loopback HTTP server shared by every provider emulator. It owns what each emulator would
 * otherwise repeat: reading the whole body as raw bytes (the request log must hold exactly what
 * the client sent), tracking sockets so `close()` never hangs on a keep-alive connection, and
 * turning a handler crash into a 500 instead of a hung client.
 */

/** One request as an emulator handler sees it: the body already read, bytes untouched. */
export interface EmulatorHttpRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Exact body bytes received. */
  raw: Buffer;
}

/** Answers one request. It may write a stream, or destroy the socket to emulate a dropped connection. */
export type EmulatorHttpHandler = (request: EmulatorHttpRequest, response: ServerResponse) => void | Promise<void>;

/** Options of {@link startLoopbackServer}. */
export interface LoopbackServerOptions {
  handler: EmulatorHttpHandler;
  /** Default `127.0.0.1`: emulators are for offline trials and never listen publicly by default. */
  host?: string;
  /** Default 0 (an ephemeral port chosen by the operating system). */
  port?: number;
  /** Largest body read (default 32 MiB); a larger one is answered 413 and the connection closed. */
  maxBodyBytes?: number;
}

/** A listening emulator server. */
export interface LoopbackServer {
  host: string;
  port: number;
  /** `http://HOST:PORT` (IPv6 hosts bracketed). */
  origin: string;
  /** Stops listening and destroys open connections (including streams still being written). */
  close(): Promise<void>;
}

/** Starts a loopback HTTP server and resolves once it listens. */
export async function startLoopbackServer(options: LoopbackServerOptions): Promise<LoopbackServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const sockets = new Set<Socket>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBodyBytes) chunks.push(chunk);
      else if (!response.headersSent) answerTooLarge(response, maxBodyBytes);
    });
    incoming.on('error', () => response.destroy());
    incoming.on('end', () => {
      if (size > maxBodyBytes) return;
      const url = new URL(incoming.url ?? '/', 'http://emulator.invalid');
      const request: EmulatorHttpRequest = {
        method: (incoming.method ?? 'GET').toUpperCase(),
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        raw: Buffer.concat(chunks),
      };
      Promise.resolve()
        .then(() => options.handler(request, response))
        .catch((error: unknown) => answerCrash(response, error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    host,
    port,
    origin,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/** A bounded read keeps a runaway client from exhausting the emulator's memory. */
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

function answerTooLarge(response: ServerResponse, limit: number): void {
  response.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ error: { message: `request body larger than ${limit} bytes`, type: 'too_large' } }));
}

function answerCrash(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  response.writeHead(500, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message: `emulator crashed: ${message}`, type: 'server_error' } }));
}

/** Writes a JSON answer with its exact bytes and returns the status (for the request log). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): number {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
  return status;
}
