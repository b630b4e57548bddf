import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiEmulator, type GeminiEmulator } from '../../../src/emulators/gemini/gemini-emulator.js';
import { INCLUDE_THOUGHTS_WITHOUT_THINKING_TEXT } from '../../../src/emulators/gemini/gemini-emulator-thinking-rules.js';
import { prepareGemini } from '../../../src/transports/gemini/gemini-encode.js';

/**
 * WIRE §8, Gemini thinking off: Vertex refuses `includeThoughts` on a request whose thinking is
 * off ("… Thinking_config.include_thoughts is only enabled when thinking is enabled."), and Hermes
 * never sends it so.
 */

let emulator: GeminiEmulator;
beforeAll(async () => {
  emulator = await startGeminiEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function generate(thinkingConfig: Record<string, unknown>): Promise<Response> {
  return fetch(`${emulator.vertexBaseUrl}/publishers/google/models/gemini-2.5-flash:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer token' },
    body: JSON.stringify({
      contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
      generationConfig: { thinkingConfig },
    }),
  });
}

describe('include_thoughts with thinking off (WIRE §8)', () => {
  it('the emulator refuses it in Vertex’s words, and takes it with thinking on', async () => {
    const refused = await generate({ includeThoughts: true, thinkingBudget: 0 });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      INCLUDE_THOUGHTS_WITHOUT_THINKING_TEXT,
    );
    expect((await generate({ includeThoughts: true, thinkingBudget: 1024 })).status).toBe(200);
  });

  it('Hermes leaves includeThoughts off when effort none turns a 2.5 model’s thinking off', () => {
    const prepared = prepareGemini({
      route: { api: 'gemini', provider: 'google', model: 'gemini-2.5-flash' },
      history: [{ role: 'user', content: 'hello' }],
      tools: [],
      reasoning: { enabled: true, effort: 'none' },
      stream: false,
    });
    const generation = prepared.body['generationConfig'] as { thinkingConfig?: Record<string, unknown> };
    expect(generation.thinkingConfig).toEqual({ includeThoughts: false, thinkingBudget: 0 });
  });
});
