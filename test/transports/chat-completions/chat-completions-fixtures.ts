import { readFixtureText } from '../../support/fixtures.js';
import { decodeServerSentEvents } from '../../../src/transports/shared/transport-sse-reader.js';
import {
  createChatCompletionsDecoder,
  type ChatCompletionsDecoderOptions,
} from '../../../src/transports/chat-completions/chat-completions-decode.js';
import type { StreamEvent } from '../../../src/core/stream-event.js';
import { seededRandom, splitRandomly } from '../../support/random.js';

/** Test helpers: load recorded fixtures (test/fixtures) and replay them through the decoder. */

/** Reads a fixture file as text. */
export function fixtureText(relativePath: string): string {
  return readFixtureText(relativePath);
}

/** One cassette interaction (see fixtures/INDEX.md). */
export interface CassetteInteraction {
  request: { uri: string; body: unknown };
  response: { status: number; content_type?: string; body: unknown };
}

/** The interactions of a `*.cassette.json` file. */
export function cassette(relativePath: string): CassetteInteraction[] {
  return (JSON.parse(fixtureText(relativePath)) as { interactions: CassetteInteraction[] }).interactions;
}

/**
 * The SSE text of a streaming fixture: a cassette's SSE body verbatim, or a `*.chunks.txt` file
 * (one chunk JSON per line) framed as `data:` events.
 */
export function sseTextOf(relativePath: string): string {
  if (relativePath.endsWith('.chunks.txt')) {
    return chunkLines(relativePath)
      .map((line) => `data: ${line}\n\n`)
      .join('');
  }
  const body = cassette(relativePath)[0]?.response.body;
  if (typeof body !== 'string') throw new Error(`${relativePath} has no SSE body`);
  return body;
}

/** The raw chunk JSON texts of a chunks file. */
export function chunkLines(relativePath: string): string[] {
  return fixtureText(relativePath)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

/** Every parsed chunk of a streaming fixture (the test oracle reads these directly). */
export function parsedChunks(relativePath: string): Record<string, unknown>[] {
  const chunks: Record<string, unknown>[] = [];
  for (const block of sseTextOf(relativePath).split('\n\n')) {
    for (const line of block.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data !== '[DONE]') chunks.push(JSON.parse(data) as Record<string, unknown>);
    }
  }
  return chunks;
}

/** Splits bytes at random boundaries seeded by `seed` (pieces of 1..maxPiece bytes). */
export function splitBytes(bytes: Uint8Array, seed: number, maxPiece = 97): Uint8Array[] {
  return splitRandomly(bytes, seededRandom(seed), maxPiece);
}

/** Feeds SSE text (whole, or split by `seed`) through the SSE reader and the decoder; returns every event. */
export function decodeSse(text: string, options: ChatCompletionsDecoderOptions, seed?: number): StreamEvent[] {
  const bytes = new TextEncoder().encode(text);
  const pieces = seed === undefined ? [bytes] : splitBytes(bytes, seed);
  return decodeServerSentEvents(createChatCompletionsDecoder(options), pieces);
}

/** The terminal event of an event list, asserting there is exactly one and it is last. */
export function terminalOf(events: readonly StreamEvent[]): Extract<StreamEvent, { type: 'finish' | 'error' }> {
  const terminals = events.filter((event) => event.type === 'finish' || event.type === 'error');
  const last = events[events.length - 1];
  if (terminals.length !== 1 || last === undefined || last !== terminals[0]) {
    throw new Error(`expected exactly one terminal event at the end, got ${terminals.length}`);
  }
  return last as Extract<StreamEvent, { type: 'finish' | 'error' }>;
}

/** Concatenation of a delta field over all chunks (choice 0), strings only: the oracle for verbatim carriers. */
export function concatDeltaField(chunks: readonly Record<string, unknown>[], field: string): string | undefined {
  let out: string | undefined;
  for (const chunk of chunks) {
    const choices = chunk['choices'] as { delta?: Record<string, unknown> }[] | undefined;
    const value = choices?.[0]?.delta?.[field];
    if (typeof value === 'string') out = (out ?? '') + value;
  }
  return out;
}
