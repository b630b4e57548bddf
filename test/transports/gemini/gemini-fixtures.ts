import { readdirSync, readFileSync } from 'node:fs';
import { fixturePath } from '../../support/fixtures.js';
import type { GeminiDecodeContext } from '../../../src/transports/gemini/gemini-decode.js';
import type { GeminiResponse } from '../../../src/transports/gemini/gemini-wire.js';

/** Shared helpers for Gemini tests: the recorded fixtures and a seeded PRNG. */

/** `test/fixtures/gemini/`. */
export const GEMINI_FIXTURE_DIRECTORY = fixturePath('gemini/');

/**
 * The decode context of an AI Studio route (issuer `ai-studio`, host generativelanguage.googleapis.com),
 * as the recorded fixtures were taken.
 */
export function studioContext(
  createToolCallId?: (index: number) => string,
  model = 'gemini-3-pro-preview',
): GeminiDecodeContext {
  return {
    origin: { api: 'gemini', provider: 'gemini', host: 'generativelanguage.googleapis.com', model },
    issuer: 'ai-studio',
    ...(createToolCallId ? { createToolCallId } : {}),
  };
}

/** One recorded response: SSE bytes of a stream, or a whole JSON body. */
export interface RecordedResponse {
  name: string;
  streaming: boolean;
  /** SSE text for streams (as the wire carried it), JSON text otherwise. */
  wireText: string;
  /** The parsed chunks (one for a non-streaming body). */
  chunks: GeminiResponse[];
}

/** Files recorded from the Gemini Interactions API, a different wire API than generateContent. */
export const INTERACTIONS_API_FILES = [
  'vercel-interactions-tool-call-step1.chunks.txt',
  'vercel-interactions-tool-call-step1.json',
];

/** Every generateContent response recorded in the fixture directory. */
export function recordedResponses(): RecordedResponse[] {
  const responses: RecordedResponse[] = [];
  for (const file of readdirSync(GEMINI_FIXTURE_DIRECTORY).sort()) {
    if (INTERACTIONS_API_FILES.includes(file)) continue;
    const text = readFileSync(GEMINI_FIXTURE_DIRECTORY + file, 'utf8');
    if (file.endsWith('.chunks.txt')) {
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      responses.push({
        name: file,
        streaming: true,
        wireText: lines.map((line) => `data: ${line}\r\n\r\n`).join(''),
        chunks: lines.map((line) => JSON.parse(line) as GeminiResponse),
      });
    } else if (file.endsWith('.cassette.json')) {
      const cassette = JSON.parse(text) as { interactions: { response: { status: number; body: unknown } }[] };
      cassette.interactions.forEach((interaction, index) => {
        const body = interaction.response.body;
        const name = `${file}#${index}`;
        if (typeof body === 'string') {
          const chunks = body
            .split(/\r?\n\r?\n/)
            .filter((event) => event.startsWith('data: '))
            .map((event) => JSON.parse(event.slice('data: '.length)) as GeminiResponse);
          responses.push({ name, streaming: true, wireText: body, chunks });
        } else
          responses.push({ name, streaming: false, wireText: JSON.stringify(body), chunks: [body as GeminiResponse] });
      });
    } else {
      responses.push({ name: file, streaming: false, wireText: text, chunks: [JSON.parse(text) as GeminiResponse] });
    }
  }
  return responses;
}

/** Reads one cassette's interactions. */
export function readCassette(
  file: string,
): { request: { uri: string; body: Record<string, unknown> }; response: { body: unknown } }[] {
  return (JSON.parse(readFileSync(GEMINI_FIXTURE_DIRECTORY + file, 'utf8')) as { interactions: never[] }).interactions;
}

/** Splits bytes at `count` random boundaries. */
export function randomSplit(bytes: Uint8Array, random: () => number, count: number): Uint8Array[] {
  const cuts = new Set<number>();
  for (let index = 0; index < count && bytes.length > 1; index++)
    cuts.add(1 + Math.floor(random() * (bytes.length - 1)));
  const sorted = [...cuts].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
