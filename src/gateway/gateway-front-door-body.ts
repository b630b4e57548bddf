import { MAX_REQUEST_BYTES } from './gateway-chat.js';
import { parseBoundedJsonBytes } from './gateway-bounded-json.js';
import { CLIENT_SESSION_HEADERS } from './gateway-front-door-session.js';
import type { PiecesMemory } from './gateway-json-pieces.js';
import { GatewayHttpError } from './gateway-errors.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * The JSON body of a front-door request, read under the gateway's size cap. These clients send
 * the whole conversation every turn, handles included, so the cap is the chat route's generous
 * one; past it the answer is a 413 telling the client to compact.
 */
export async function readFrontDoorBody(source: ChatRequestSource, bodies?: FrontDoorBodies): Promise<unknown> {
  const bytes = await source.bytes(MAX_REQUEST_BYTES);
  if (bytes === null) {
    throw new GatewayHttpError(
      413,
      `the request body is larger than ${MAX_REQUEST_BYTES / 1024 / 1024} MiB; compact the conversation (Claude Code: /compact) and try again`,
      'invalid_request_error',
      'request_too_large',
    );
  }
  // Depth and value count are bounded before the text is parsed (docs/architecture.md, Security).
  const key = bodies ? bodyKey(source) : undefined;
  if (!bodies || key === undefined) return parseBoundedJsonBytes(bytes);
  return parseBoundedJsonBytes(bytes, undefined, {
    previous: bodies.take(key),
    remember: (memory) => bodies.keep(key, memory),
  });
}

/** The conversation a body belongs to: the client's session header, within its gateway user. */
function bodyKey(source: ChatRequestSource): string | undefined {
  for (const name of CLIENT_SESSION_HEADERS) {
    const value = source.header(name);
    if (value) return `${source.owner ?? ''}\0${name}\0${value}`;
  }
  return undefined;
}

/**
 * The last large body of each client conversation, parsed (gateway-json-pieces.ts): the next
 * body of the conversation takes the elements it repeats from it. Bounded: least recently used
 * conversations are dropped past `maxConversations` or `maxBytes` of bodies held.
 */
export class FrontDoorBodies {
  private readonly entries = new Map<string, PiecesMemory>();
  private held = 0;

  constructor(
    private readonly maxConversations = 64,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** The conversation's last body, taken out (a parallel request of it parses whole). */
  take(key: string): PiecesMemory | undefined {
    const memory = this.entries.get(key);
    if (memory === undefined) return undefined;
    this.entries.delete(key);
    this.held -= memory.bytes.byteLength;
    return memory;
  }

  keep(key: string, memory: PiecesMemory): void {
    this.take(key);
    if (memory.bytes.byteLength > this.maxBytes / 4) return;
    this.entries.set(key, memory);
    this.held += memory.bytes.byteLength;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.maxConversations && this.held <= this.maxBytes) break;
      this.take(oldest);
    }
  }
}

/** A JSON response, built from its serialized text (see gateway-chat.ts `jsonResponse`). */
export function frontDoorJson(body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
