import type { IncomingHttpHeaders } from 'node:http';
import type { EmulatorHttpRequest } from './emulator-http-server.js';

/**
 * The request log every emulator keeps: tests assert on the exact bytes a client sent (carriers
 * replayed verbatim, nothing extra) and on how many requests arrived (retry-once rules).
 */

/** One model request as the emulator received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  /** Query string without the `?` (empty when none); an API key in it (`key=`) replaced by `REDACTED`. */
  query: string;
  /** Lower-cased header names; credentials replaced by `REDACTED`. */
  headers: Record<string, string>;
  /** Exact body bytes received, as UTF-8 text. */
  raw: string;
  /** Parsed JSON body, or `undefined` when the body was not JSON. */
  body: unknown;
  /** HTTP status answered; 0 while unanswered or when the connection was dropped before a status line. */
  status: number;
}

/** Header names whose values never reach a log, a test snapshot or `/_emulator/requests`. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'api-key', 'x-goog-api-key', 'proxy-authorization']);

/** Copies headers with credentials redacted (multi-value headers joined with `, `). */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    copy[lower] = CREDENTIAL_HEADERS.has(lower) ? 'REDACTED' : Array.isArray(value) ? value.join(', ') : value;
  }
  return copy;
}

/** Query parameters that carry credentials (Google's `?key=`). */
const CREDENTIAL_QUERY_PARAMETERS = new Set(['key', 'api_key']);

/** Copies a query with credential values redacted. */
export function redactQuery(query: URLSearchParams): string {
  const copy = new URLSearchParams();
  for (const [name, value] of query) copy.append(name, CREDENTIAL_QUERY_PARAMETERS.has(name) ? 'REDACTED' : value);
  return copy.toString();
}

/**
 * A request's log entry and its body parsed as JSON for the handler (`undefined` when it is not
 * JSON). The body is decoded from UTF-8 once; the entry keeps that text and parses its `body`
 * again only when the log is read. A client resending a long conversation sends megabytes per
 * request: the log holding every kept request's parsed objects made each garbage collection mark
 * them all, where text is never scanned.
 */
export function receivedRequestFrom(request: EmulatorHttpRequest): { entry: ReceivedRequest; body: unknown } {
  const raw = request.raw.toString('utf8');
  let logged: { value: unknown } | undefined;
  const entry: ReceivedRequest = {
    method: request.method,
    path: request.path,
    query: redactQuery(request.query),
    headers: redactHeaders(request.headers),
    raw,
    get body() {
      logged ??= { value: parseJsonBody(raw) };
      return logged.value;
    },
    status: 0,
  };
  return { entry, body: parseJsonBody(raw) };
}

/** Parses a JSON body (bytes or their UTF-8 text); `undefined` when it is not valid JSON. */
export function parseJsonBody(raw: Buffer | string): unknown {
  try {
    return JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * How much of the request log an emulator keeps. A client that resends a long conversation
 * every turn sends megabytes per request; past either bound the oldest entries are dropped, so a
 * long-running `hermes emulate` stays within a fixed amount of memory. Unset: everything is kept
 * (the in-process emulators of the tests, which read the whole log).
 */
export interface RequestLogLimits {
  /** Entries kept at most. */
  maxRequests?: number | undefined;
  /** Body bytes (`raw`, as UTF-16 text) kept at most over all entries; the newest entry is always kept. */
  maxBytes?: number | undefined;
}

/** Appends `entry` to `log`, then drops the oldest entries past `limits`. */
export function keepRequest<Entry extends ReceivedRequest>(
  log: Entry[],
  entry: Entry,
  limits: RequestLogLimits | undefined,
): void {
  log.push(entry);
  if (!limits) return;
  let drop = limits.maxRequests === undefined ? 0 : Math.max(0, log.length - limits.maxRequests);
  if (limits.maxBytes !== undefined) {
    let bytes = 0;
    for (let index = log.length - 1; index >= drop; index -= 1) {
      bytes += (log[index] as Entry).raw.length * 2;
      if (bytes > limits.maxBytes && index < log.length - 1) {
        drop = index + 1;
        break;
      }
    }
  }
  if (drop > 0) log.splice(0, drop);
}
