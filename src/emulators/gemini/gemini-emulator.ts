import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runScript } from '../shared/scripted-model.js';
import { buildChunks, buildResponse } from './gemini-emulator-respond.js';
import { checkRequest, type EmulatorFailure } from './gemini-emulator-rules.js';
import type { EmulatorIssuer } from './gemini-emulator-signatures.js';

/**
 * `hermes emulate gemini`: a loopback Gemini server speaking both the AI Studio
 * (`/v1beta/models/{model}:generateContent`) and the Vertex AI
 * (`/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent`) path
 * shapes — the path shape is the issuer, and each issuer signs with its own key — streaming
 * (`:streamGenerateContent?alt=sse`) and not, driven by the shared scripted model.
 */

/** One recorded request. */
export interface GeminiEmulatorRequest {
  path: string;
  /** Request headers; `x-goog-api-key` and `authorization` are redacted. */
  headers: Record<string, string>;
  raw: string;
  body: unknown;
  status: number;
  issuer: EmulatorIssuer | null;
}

/** A canned failure answered instead of the next request (fault injection). */
export interface GeminiEmulatorFault {
  status: number;
  message?: string;
  statusName?: string;
  /** Sent as `retry-after` (seconds). */
  retryAfterSeconds?: number;
}

/** Emulator options. */
export interface GeminiEmulatorOptions {
  port?: number;
  host?: string;
  /** Failures answered, in order, before normal service resumes. */
  faults?: GeminiEmulatorFault[];
}

/** A running emulator. */
export interface GeminiEmulator {
  /** AI Studio base URL (`http://127.0.0.1:PORT/v1beta`): use as `--base-url`. */
  baseUrl: string;
  /** Vertex AI base URL for a project and location on the same server. */
  vertexBaseUrl: string;
  port: number;
  requests: GeminiEmulatorRequest[];
  /** Queues failures for the next requests. */
  injectFaults(faults: GeminiEmulatorFault[]): void;
  close(): Promise<void>;
}

const AI_STUDIO_PATH = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const VERTEX_PATH =
  /^\/(?:v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
/** Largest accepted body; a bounded read keeps a runaway client from exhausting memory. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Starts the emulator on loopback (port 0 = any free port). */
export async function startGeminiEmulator(options: GeminiEmulatorOptions = {}): Promise<GeminiEmulator> {
  const requests: GeminiEmulatorRequest[] = [];
  const faults = [...(options.faults ?? [])];
  let served = 0;
  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      if (!outgoing.headersSent) sendError(outgoing, { status: 500, statusName: 'INTERNAL', message: String(error) });
      else outgoing.end();
    });
  });

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const raw = await readBody(incoming);
    const url = new URL(incoming.url ?? '/', 'http://emulator.local');
    const record: GeminiEmulatorRequest = {
      path: `${url.pathname}${url.search.replace(/([?&]key=)[^&]*/, '$1[redacted]')}`,
      headers: redactedHeaders(incoming),
      raw,
      body: parseJson(raw),
      status: 0,
      issuer: null,
    };
    requests.push(record);
    const answer = (status: number) => (record.status = status);
    const route = matchRoute(url.pathname);
    if (incoming.method !== 'POST' || !route) {
      answer(404);
      sendError(outgoing, { status: 404, statusName: 'NOT_FOUND', message: `Method not found: ${url.pathname}` });
      return;
    }
    record.issuer = route.issuer;
    const fault = faults.shift();
    if (fault) {
      answer(fault.status);
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      sendError(
        outgoing,
        {
          status: fault.status,
          statusName: fault.statusName ?? 'UNAVAILABLE',
          message: fault.message ?? 'injected fault',
        },
        headers,
      );
      return;
    }
    const authFailure = checkAuth(incoming, url, route.issuer);
    if (authFailure) {
      answer(authFailure.status);
      sendError(outgoing, authFailure);
      return;
    }
    if (record.body === undefined) {
      answer(400);
      sendError(outgoing, {
        status: 400,
        statusName: 'INVALID_ARGUMENT',
        message: `Invalid JSON payload received. Unexpected token.\n${raw.slice(0, 40)}\n^`,
      });
      return;
    }
    const checked = checkRequest(record.body, route.issuer, route.model);
    if (!checked.ok) {
      answer(checked.failure.status);
      sendError(outgoing, checked.failure);
      return;
    }
    served += 1;
    const responseAnswer = {
      output: runScript(checked.turn.script),
      issuer: route.issuer,
      model: route.model,
      includeThoughts: checked.turn.includeThoughts,
      responseId: `emulator-${route.issuer}-${served}`,
    };
    answer(200);
    if (route.method === 'generateContent') {
      outgoing.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      outgoing.end(JSON.stringify(buildResponse(responseAnswer)));
      return;
    }
    const chunks = buildChunks(responseAnswer);
    if (url.searchParams.get('alt') !== 'sse') {
      // Without `alt=sse` Google streams one JSON array of chunks.
      outgoing.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      outgoing.end(JSON.stringify(chunks));
      return;
    }
    outgoing.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of chunks) outgoing.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    outgoing.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${host}:${address.port}`;
  return {
    baseUrl: `${origin}/v1beta`,
    vertexBaseUrl: `${origin}/v1/projects/hermes-emulator/locations/us-central1`,
    port: address.port,
    requests,
    injectFaults: (more) => faults.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function matchRoute(
  pathname: string,
): { issuer: EmulatorIssuer; model: string; method: 'generateContent' | 'streamGenerateContent' } | null {
  const studio = AI_STUDIO_PATH.exec(pathname);
  if (studio) return { issuer: 'ai-studio', model: studio[1]!, method: studio[2] as 'generateContent' };
  const vertex = VERTEX_PATH.exec(pathname);
  if (vertex) return { issuer: 'vertex', model: vertex[3]!, method: vertex[4] as 'generateContent' };
  return null;
}

function checkAuth(incoming: IncomingMessage, url: URL, issuer: EmulatorIssuer): EmulatorFailure | null {
  const apiKey = incoming.headers['x-goog-api-key'] ?? url.searchParams.get('key');
  const bearer = /^Bearer \S+/.test(incoming.headers.authorization ?? '');
  if (issuer === 'ai-studio' && !apiKey) {
    return {
      status: 403,
      statusName: 'PERMISSION_DENIED',
      message:
        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    };
  }
  if (issuer === 'vertex' && !apiKey && !bearer) {
    return {
      status: 401,
      statusName: 'UNAUTHENTICATED',
      message:
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    };
  }
  return null;
}

function sendError(outgoing: ServerResponse, failure: EmulatorFailure, headers: Record<string, string> = {}): void {
  outgoing.writeHead(failure.status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  outgoing.end(
    JSON.stringify({ error: { code: failure.status, message: failure.message, status: failure.statusName } }),
  );
}

function redactedHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    const secret = name === 'x-goog-api-key' || name === 'authorization';
    headers[name] = secret ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        incoming.destroy();
        return;
      }
      chunks.push(chunk);
    });
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    incoming.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}
