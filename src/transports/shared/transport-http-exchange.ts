// The shapes of one provider request and its answer, shared by the HTTP client
// (transport-http-client.ts), its pooled exchange (transport-pooled-exchange.ts) and the transports.

import type { RequestBodyChunks } from './request-body.js';

/** Response headers, read by name (case-insensitive) or all at once: what `Headers` offers. */
export interface HeaderLookup {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/** A response body, read one network chunk at a time. */
export interface HttpBody {
  /** The next chunk; null at the end. Rejects when the connection fails or the request is aborted. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading and lets the connection go (idempotent, never rejects). */
  cancel(): Promise<void>;
}

/** One provider answer. */
export interface HttpAnswer {
  status: number;
  headers: HeaderLookup;
  /** The address that answered: the request URL (no redirect is ever followed). */
  url: string;
  body: HttpBody;
}

/**
 * What an exchange reads of its abort: an `AbortSignal` has all of it, and so has the request's
 * own `RequestAbort` (transport-request-abort.ts). Listeners are called once.
 */
export interface ExchangeAbort {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One HTTP request a transport sends. */
export interface HttpExchange {
  url: string;
  /** Default `POST`. */
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  /** Byte chunks are written in order (request-body.ts); their total is the content length. */
  body?: string | Uint8Array | RequestBodyChunks | undefined;
  signal: ExchangeAbort;
}
