import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OTLP/HTTP receiver for the tracing tests: it answers every `POST /v1/traces` with 200
 * and keeps what arrived (raw bytes, for "no key anywhere" checks), and reads OTLP/JSON bodies
 * into flat spans.
 */

/** One span as the tests read it. */
export interface ReceivedSpan {
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  /** Epoch nanoseconds, as strings (OTLP/JSON). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT` (the `OTEL_EXPORTER_OTLP_ENDPOINT`). */
  endpoint: string;
  /** Every export request: its path, content type and body bytes. */
  readonly exports: { path: string; contentType: string; body: Buffer }[];
  /** Every span of the OTLP/JSON exports so far. */
  spans(): ReceivedSpan[];
  /** Everything received, as one string (latin1: bytes kept one to one). */
  raw(): string;
  /** Resolves once `predicate` holds for the spans received (polled; bounded by `timeoutMs`). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: { key: string; value?: OtlpValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

/** Starts a receiver on an ephemeral loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpReceiver['exports'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports.push({
        path: request.url ?? '',
        contentType: String(request.headers['content-type'] ?? ''),
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const spans = (): ReceivedSpan[] => {
    const found: ReceivedSpan[] = [];
    for (const entry of exports) {
      if (!entry.contentType.includes('json')) continue;
      const body = JSON.parse(entry.body.toString('utf8')) as {
        resourceSpans?: {
          resource?: { attributes?: { key: string; value?: OtlpValue }[] };
          scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: [] })[] }[];
        }[];
      };
      for (const resourceSpans of body.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            found.push({
              ...span,
              parentSpanId: span.parentSpanId ?? '',
              attributes: attributesOf(span.attributes),
              resource,
            });
          }
        }
      }
    }
    return found;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    spans,
    raw: () => exports.map((entry) => entry.body.toString('latin1')).join('\n'),
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const current = spans();
        if (predicate(current)) return current;
        if (Date.now() > deadline)
          throw new Error(`spans never matched; got: ${current.map((span) => span.name).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
