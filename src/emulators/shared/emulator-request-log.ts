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

/** Builds the log entry for a request; `body` is the parsed JSON when parsing succeeded. */
export function receivedRequestFrom(request: EmulatorHttpRequest, body: unknown): ReceivedRequest {
  return {
    method: request.method,
    path: request.path,
    query: redactQuery(request.query),
    headers: redactHeaders(request.headers),
    raw: request.raw.toString('utf8'),
    body,
    status: 0,
  };
}

/** Parses a JSON body; `undefined` when it is not valid JSON. */
export function parseJsonBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
