import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of an emulator that can hold model requests: while the gate is
 * closed, each request waits (after being counted) until the test opens it. It lets a test keep
 * a real `hermes` process inside its turn — holding the session lease — without any timing.
 */
export interface GatedProvider {
  /** Base URL to give hermes (same path as the target's, e.g. `http://127.0.0.1:N/v1`). */
  baseUrl: string;
  /** Requests received so far. */
  readonly received: number;
  /** Resolves once `count` requests have been received in total. */
  whenReceived(count: number): Promise<void>;
  /** Holds every request from now on until {@link open}. */
  close(): void;
  /** Lets every held and later request through. */
  open(): void;
  /** Requests waiting at the closed gate. */
  readonly held: number;
  /** Drops every held request without forwarding it (its client sees the connection close). */
  dropHeld(): void;
  stop(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Starts a gated proxy to `targetBaseUrl` (the gate starts open). */
export async function startGatedProvider(targetBaseUrl: string): Promise<GatedProvider> {
  const target = new URL(targetBaseUrl);
  let received = 0;
  let gate: Promise<void> | null = null;
  let openGate: () => void = () => undefined;
  const waiting = new Set<{ drop: () => void }>();
  const watchers: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      if (!request.url?.startsWith('/_emulator')) {
        received += 1;
        for (const watcher of watchers.splice(0)) {
          if (received >= watcher.count) watcher.resolve();
          else watchers.push(watcher);
        }
        if (gate) {
          let dropped = false;
          const entry = {
            drop: () => {
              dropped = true;
              response.destroy();
            },
          };
          waiting.add(entry);
          await Promise.race([gate, new Promise<void>((resolve) => response.once('close', () => resolve()))]);
          waiting.delete(entry);
          if (dropped || response.destroyed) return;
        }
      }
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && key !== 'host' && key !== 'content-length') headers[key] = value;
      }
      const answer = await fetch(`${target.origin}${request.url ?? '/'}`, {
        method: request.method ?? 'GET',
        headers,
        ...(body.length ? { body } : {}),
      });
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    get received() {
      return received;
    },
    get held() {
      return waiting.size;
    },
    dropHeld() {
      for (const entry of [...waiting]) entry.drop();
      waiting.clear();
    },
    whenReceived(count) {
      if (received >= count) return Promise.resolve();
      return new Promise((resolve) => watchers.push({ count, resolve }));
    },
    close() {
      if (gate) return;
      gate = new Promise((resolve) => {
        openGate = () => {
          gate = null;
          resolve();
        };
      });
    },
    open() {
      openGate();
    },
    stop() {
      openGate();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Why `messages` is not a valid tool pairing (each tool call answered once, right after it), or null. */
export function toolPairingProblem(messages: readonly Record<string, unknown>[]): string | null {
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as Record<string, unknown>;
    if (message['role'] === 'tool') return `message ${index} is a tool result no call precedes`;
    const calls = message['role'] === 'assistant' ? (message['tool_calls'] as { id: string }[] | undefined) : undefined;
    if (!calls?.length) continue;
    for (const [offset, call] of calls.entries()) {
      const result = messages[index + 1 + offset];
      if (result?.['role'] !== 'tool' || result['tool_call_id'] !== call.id) {
        return `tool call ${call.id} of message ${index} is not answered at position ${index + 1 + offset}`;
      }
    }
    index += calls.length;
  }
  return null;
}
