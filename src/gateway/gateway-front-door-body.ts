import { MAX_REQUEST_BYTES } from './gateway-chat.js';
import { parseBoundedJson } from './gateway-bounded-json.js';
import { GatewayHttpError } from './gateway-errors.js';
import type { ChatRequestSource } from './gateway-request-source.js';

/**
 * The JSON body of a front-door request, read under the gateway's size cap. These clients send
 * the whole conversation every turn, handles included, so the cap is the chat route's generous
 * one; past it the answer is a 413 telling the client to compact.
 */
export async function readFrontDoorBody(source: ChatRequestSource): Promise<unknown> {
  const text = await source.text(MAX_REQUEST_BYTES);
  if (text === null) {
    throw new GatewayHttpError(
      413,
      `the request body is larger than ${MAX_REQUEST_BYTES / 1024 / 1024} MiB; compact the conversation (Claude Code: /compact) and try again`,
      'invalid_request_error',
      'request_too_large',
    );
  }
  // Depth and value count are bounded before the text is parsed (docs/architecture.md, Security).
  return parseBoundedJson(text);
}

/** A JSON response, built from its serialized text (see gateway-chat.ts `jsonResponse`). */
export function frontDoorJson(body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
  });
}
