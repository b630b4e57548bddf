import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { COALESCE_BYTES } from '../../../src/transports/shared/request-body-chunks.js';
import {
  markStableWireValue,
  SERIALIZED_GROUP_SIZE,
  serializeRequestBodyChunks,
} from '../../../src/transports/shared/request-body.js';
import { seededRandom } from '../../support/random.js';

/**
 * Joined runs of cached texts (request-body-chunks.ts): a growing history's body is the bytes of
 * `JSON.stringify` on every turn, and a warm body writes the runs an earlier body joined as the
 * same buffers instead of copying them again.
 */

function message(next: () => number, index: number): JsonObject {
  const words = 'lorem ipsum dolor "sit" amet é 日本 🙂 '.repeat(1 + Math.floor(next() * 30));
  const value: JsonObject = { role: index % 2 ? 'assistant' : 'user', content: `${index} ${words}` };
  markStableWireValue(value);
  return value;
}

const bytesOf = (chunks: readonly Uint8Array[]) => Buffer.concat(chunks);

describe('joined runs of a request body', () => {
  test('a growing history: every body is exactly JSON.stringify, and warm bodies reuse the joined runs', () => {
    const next = seededRandom(41);
    const history: JsonObject[] = [];
    let previous: readonly Uint8Array[] = [];
    let reusedBytes = 0;
    let totalBytes = 0;
    for (let turn = 0; turn < 120; turn++) {
      const added = 1 + Math.floor(next() * 12);
      for (let index = 0; index < added; index++) history.push(message(next, history.length));
      const body: JsonObject = { model: 'm', messages: [...history], stream: true };
      const chunks = serializeRequestBodyChunks({ body });
      expect(bytesOf(chunks).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
      const before = new Set(previous);
      for (const chunk of chunks) {
        totalBytes += chunk.byteLength;
        if (before.has(chunk)) reusedBytes += chunk.byteLength;
      }
      previous = chunks;
    }
    // Only the head run, the last run and the new messages are copied on a turn: most bytes repeat.
    expect(history.length).toBeGreaterThan(SERIALIZED_GROUP_SIZE * 8);
    expect(reusedBytes / totalBytes).toBeGreaterThan(0.7);
  });

  test('the same body twice: every chunk but the first and last is the buffer the first body joined', () => {
    const next = seededRandom(42);
    const messages = Array.from({ length: SERIALIZED_GROUP_SIZE * 20 }, (_, index) => message(next, index));
    const body: JsonObject = { model: 'm', messages };
    const first = serializeRequestBodyChunks({ body });
    const second = serializeRequestBodyChunks({ body });
    expect(bytesOf(second).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(second.length).toBe(first.length);
    expect(second.length).toBeGreaterThan(4);
    for (let index = 1; index < second.length - 1; index++) expect(second[index]).toBe(first[index]);
    // Runs are about COALESCE_BYTES: no two small chunks side by side.
    const small = second.map((chunk) => chunk.byteLength < COALESCE_BYTES);
    expect(small.some((isSmall, index) => isSmall && small[index + 1] === true)).toBe(false);
  });

  test('kept runs survive a history that shifts, drops and reorders messages', () => {
    const next = seededRandom(43);
    const messages = Array.from({ length: SERIALIZED_GROUP_SIZE * 12 + 7 }, (_, index) => message(next, index));
    const bodies: JsonObject[] = [
      { model: 'm', messages },
      { model: 'a much longer model name than before', messages },
      { model: 'm', messages: messages.slice(SERIALIZED_GROUP_SIZE) },
      { model: 'm', messages: messages.slice(3) },
      { model: 'm', messages: [...messages.slice(SERIALIZED_GROUP_SIZE * 6), ...messages] },
      { model: 'm', messages: [...messages, ...messages] },
      { model: 'm', messages: messages.slice(0, SERIALIZED_GROUP_SIZE * 5) },
    ];
    for (let round = 0; round < 3; round++) {
      for (const body of bodies) {
        expect(bytesOf(serializeRequestBodyChunks({ body })).equals(Buffer.from(JSON.stringify(body)))).toBe(true);
      }
    }
  });
});
