import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { startChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import type { ChatPersonaName, RunningChatEmulator } from '../../../src/emulators/chat-completions/chat-emulator.js';
import { openPayload, signText } from '../../../src/emulators/shared/emulator-sealing.js';
import { sealReasoning } from '../../../src/emulators/shared/scripted-model.js';
import {
  CALL,
  READ_FILE_TOOL,
  accumulate,
  callTurn,
  chunkObjects,
  deltasOf,
  messageOf,
  postJson,
  sseData,
} from './chat-emulator-test-helpers.js';

// WIRE.md §1.1 field-name matrix, §1.7 OpenRouter, §1.8 Copilot, §1.9 Gemini OpenAI-compat:
// every persona answers the first turn with exactly its provider's carriers, streaming and not.

const TOOL_QUESTION = 'read the file notes.txt';
const TOOL_REASONING = sealReasoning(`Turn 1: to answer "${TOOL_QUESTION}" I should call read_file.`);
const TEXT_QUESTION = 'hello there';
const TEXT_REASONING = sealReasoning(`Turn 1: the user said "${TEXT_QUESTION}"; a direct answer fits.`);
const TEXT_CONTENT = `You said: ${TEXT_QUESTION}\nReasoning continuity: first turn.`;

interface FirstTurnCase {
  persona: ChatPersonaName;
  /** Expected `choices[0].message` of the tool-call turn. */
  toolTurn: JsonObject;
  /** Expected `choices[0].message` of the text turn. */
  textTurn: JsonObject;
  /** Keys of the non-streaming message that the accumulated stream must reproduce. */
  streamKeys: string[];
  /** Gemini returns no readable reasoning, so its tool-call stream is just the call, finish and usage. */
  minimumChunks?: number;
}

/** Both turns of a persona whose reasoning travels in the one message key `key`. */
function carriedIn(key: 'reasoning' | 'reasoning_content'): Omit<FirstTurnCase, 'persona'> {
  return {
    toolTurn: callTurn({ [key]: TOOL_REASONING }),
    textTurn: { role: 'assistant', content: TEXT_CONTENT, [key]: TEXT_REASONING },
    streamKeys: [key, 'tool_calls', 'content'],
  };
}

const anyString = expect.any(String) as unknown as string;

const CASES: FirstTurnCase[] = [
  {
    persona: 'openrouter',
    toolTurn: {
      role: 'assistant',
      content: '',
      refusal: null,
      reasoning: TOOL_REASONING,
      reasoning_details: [
        {
          type: 'reasoning.text',
          text: TOOL_REASONING,
          signature: signText('openrouter-thinking-signature', TOOL_REASONING),
          format: 'anthropic-claude-v1',
          index: 0,
        },
        {
          type: 'reasoning.encrypted',
          data: anyString,
          id: expect.stringMatching(/^rs_[0-9a-f]{32}$/) as unknown as string,
          format: 'openai-responses-v1',
          index: 1,
        },
      ],
      tool_calls: [CALL],
    },
    textTurn: {
      role: 'assistant',
      content: TEXT_CONTENT,
      refusal: null,
      reasoning: TEXT_REASONING,
      reasoning_details: [
        {
          type: 'reasoning.text',
          text: TEXT_REASONING,
          signature: signText('openrouter-thinking-signature', TEXT_REASONING),
          format: 'anthropic-claude-v1',
          index: 0,
        },
        { type: 'reasoning.encrypted', data: anyString, id: anyString, format: 'openai-responses-v1', index: 1 },
      ],
    },
    streamKeys: ['reasoning', 'reasoning_details', 'tool_calls', 'content'],
  },
  { persona: 'deepseek', ...carriedIn('reasoning_content') },
  {
    persona: 'strict-mistral',
    toolTurn: {
      role: 'assistant',
      content: [{ type: 'thinking', thinking: [{ type: 'text', text: TOOL_REASONING }] }],
      tool_calls: [{ ...CALL, index: 0 }],
    },
    textTurn: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: [{ type: 'text', text: TEXT_REASONING }] },
        { type: 'text', text: TEXT_CONTENT },
      ],
    },
    streamKeys: [],
  },
  { persona: 'strict-groq', ...carriedIn('reasoning') },
  { persona: 'strict-cerebras', ...carriedIn('reasoning') },
  { persona: 'strict-fireworks', ...carriedIn('reasoning_content') },
  {
    persona: 'copilot',
    toolTurn: {
      role: 'assistant',
      content: null,
      reasoning_text: TOOL_REASONING,
      reasoning_opaque: anyString,
      tool_calls: [CALL],
    },
    textTurn: { role: 'assistant', content: TEXT_CONTENT, reasoning_text: TEXT_REASONING, reasoning_opaque: anyString },
    streamKeys: ['reasoning_text', 'reasoning_opaque'],
  },
  {
    persona: 'gemini-openai',
    toolTurn: {
      role: 'assistant',
      content: null,
      tool_calls: [{ ...CALL, extra_content: { google: { thought_signature: anyString } } }],
    },
    textTurn: {
      role: 'assistant',
      content: TEXT_CONTENT,
      extra_content: { google: { thought: true, thought_signature: anyString } },
    },
    streamKeys: ['tool_calls'],
    minimumChunks: 3,
  },
  {
    persona: 'local',
    toolTurn: {
      role: 'assistant',
      content: '',
      reasoning: TOOL_REASONING,
      reasoning_content: TOOL_REASONING,
      tool_calls: [CALL],
    },
    textTurn: {
      role: 'assistant',
      content: TEXT_CONTENT,
      reasoning: TEXT_REASONING,
      reasoning_content: TEXT_REASONING,
    },
    streamKeys: ['reasoning', 'reasoning_content', 'tool_calls', 'content'],
  },
];

const emulators = new Map<ChatPersonaName, RunningChatEmulator>();

beforeAll(async () => {
  for (const testCase of CASES) emulators.set(testCase.persona, await startChatEmulator({ persona: testCase.persona }));
});

afterAll(async () => {
  await Promise.all([...emulators.values()].map((emulator) => emulator.close()));
});

function emulatorFor(persona: ChatPersonaName): RunningChatEmulator {
  const emulator = emulators.get(persona);
  if (!emulator) throw new Error(`no emulator for ${persona}`);
  return emulator;
}

function toolRequest(stream: boolean): JsonObject {
  return {
    model: 'echo-model-7',
    stream,
    messages: [{ role: 'user', content: TOOL_QUESTION }],
    tools: [READ_FILE_TOOL],
  };
}

describe.each(CASES)('first turn, $persona (WIRE.md §1.1)', (testCase) => {
  it('answers a tool-call turn with its carriers, non-streaming', async () => {
    const result = await postJson(`${emulatorFor(testCase.persona).baseUrl}/chat/completions`, toolRequest(false));
    expect(result.status).toBe(200);
    expect(messageOf(result.json)).toEqual(testCase.toolTurn);
    const completion = result.json as JsonObject;
    expect(completion['model']).toBe('echo-model-7');
    expect(completion['choices']).toMatchObject([{ finish_reason: 'tool_calls' }]);
    expect(completion['usage']).toEqual({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
      total_tokens: expect.any(Number),
      completion_tokens_details: { reasoning_tokens: Math.ceil(TOOL_REASONING.length / 4) },
    });
  });

  it('answers a text turn with its carriers, non-streaming', async () => {
    const result = await postJson(`${emulatorFor(testCase.persona).baseUrl}/chat/completions`, {
      model: 'echo-model-7',
      messages: [{ role: 'user', content: TEXT_QUESTION }],
    });
    expect(result.status).toBe(200);
    expect(messageOf(result.json)).toEqual(testCase.textTurn);
    expect((result.json as JsonObject)['choices']).toMatchObject([{ finish_reason: 'stop' }]);
  });

  it('streams the same carriers in fragments, then finish, usage and [DONE]', async () => {
    const baseUrl = emulatorFor(testCase.persona).baseUrl;
    const whole = messageOf((await postJson(`${baseUrl}/chat/completions`, toolRequest(false))).json);
    const streamed = await postJson(`${baseUrl}/chat/completions`, toolRequest(true));
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    const data = sseData(streamed.text);
    expect(data[data.length - 1]).toBe('[DONE]');
    const chunks = chunkObjects(streamed.text);
    expect(
      chunks.every((chunk) => chunk['object'] === 'chat.completion.chunk' && chunk['model'] === 'echo-model-7'),
    ).toBe(true);
    // Realistic splits: reasoning arrives over several chunks, never in one piece.
    expect(chunks.length).toBeGreaterThanOrEqual(testCase.minimumChunks ?? 7);
    const usageChunk = chunks.find((chunk) => chunk['usage'] !== undefined);
    expect(usageChunk?.['usage']).toMatchObject({
      completion_tokens_details: { reasoning_tokens: expect.any(Number) },
    });
    expect(chunks.some((chunk) => JSON.stringify(chunk['choices']).includes('"finish_reason":"tool_calls"'))).toBe(
      true,
    );
    const accumulated = accumulate(chunks);
    for (const key of testCase.streamKeys) expect(accumulated[key], key).toEqual(whole[key]);
  });
});

describe('stream shapes that need more than accumulation', () => {
  it('OpenRouter mirrors delta.reasoning and delta.reasoning_details per fragment, signature last, encrypted whole (WIRE.md §1.7)', async () => {
    const streamed = await postJson(`${emulatorFor('openrouter').baseUrl}/chat/completions`, toolRequest(true));
    expect(streamed.text.startsWith(': OPENROUTER PROCESSING\n\n')).toBe(true);
    const deltas = deltasOf(chunkObjects(streamed.text));
    const textFragments = deltas.filter((delta) => typeof delta['reasoning'] === 'string' && delta['reasoning'] !== '');
    expect(textFragments.length).toBeGreaterThan(2);
    for (const delta of textFragments) {
      expect(delta['reasoning_details']).toEqual([
        { type: 'reasoning.text', text: delta['reasoning'], format: 'anthropic-claude-v1', index: 0 },
      ]);
    }
    const signatureDelta = deltas.find((delta) => JSON.stringify(delta).includes('"signature"'));
    expect(signatureDelta?.['reasoning_details']).toEqual([
      {
        type: 'reasoning.text',
        text: '',
        signature: signText('openrouter-thinking-signature', TOOL_REASONING),
        format: 'anthropic-claude-v1',
        index: 0,
      },
    ]);
    const encrypted = deltas.find((delta) => JSON.stringify(delta).includes('reasoning.encrypted'));
    const detail = (encrypted?.['reasoning_details'] as JsonObject[])[0] as JsonObject;
    expect(openPayload('openrouter-encrypted-reasoning', String(detail['data']))).toEqual({ text: TOOL_REASONING });
  });

  it('Copilot streams a fresh reasoning_opaque right before the tool call (SPEC §7.3)', async () => {
    const baseUrl = emulatorFor('copilot').baseUrl;
    const deltas = deltasOf(chunkObjects((await postJson(`${baseUrl}/chat/completions`, toolRequest(true))).text));
    const opaquePositions = deltas.flatMap((delta, position) => (delta['reasoning_opaque'] ? [position] : []));
    expect(opaquePositions).toHaveLength(2);
    const [first, second] = opaquePositions as [number, number];
    expect(deltas[first]?.['reasoning_opaque']).not.toBe(deltas[second]?.['reasoning_opaque']);
    expect(deltas[second + 1]?.['tool_calls']).toEqual([
      { index: 0, id: 'call_1_1', function: { name: 'read_file', arguments: '{"path":"notes.txt"}' } },
    ]);
    const whole = messageOf((await postJson(`${baseUrl}/chat/completions`, toolRequest(false))).json);
    expect(whole['reasoning_opaque']).toBe(deltas[second]?.['reasoning_opaque']);
  });

  it('Mistral streams thinking as content chunks and the tool call whole (WIRE.md §1.1 Mistral row)', async () => {
    const deltas = deltasOf(
      chunkObjects(
        (await postJson(`${emulatorFor('strict-mistral').baseUrl}/chat/completions`, toolRequest(true))).text,
      ),
    );
    const thinking = deltas.filter((delta) => Array.isArray(delta['content']));
    expect(thinking.length).toBeGreaterThan(2);
    expect(thinking[0]?.['content']).toEqual([
      { type: 'thinking', thinking: [{ type: 'text', text: expect.any(String) }], closed: true },
    ]);
    expect(
      accumulate(
        chunkObjects(
          (await postJson(`${emulatorFor('strict-mistral').baseUrl}/chat/completions`, toolRequest(true))).text,
        ),
      )['thinking'],
    ).toBe(TOOL_REASONING);
    expect(deltas.filter((delta) => delta['tool_calls'] !== undefined)).toEqual([
      { tool_calls: [{ index: 0, id: 'call_1_1', type: 'function', function: CALL.function }] },
    ]);
  });

  it('DeepSeek streams reasoning_content first with content null, usage on the finish chunk (WIRE.md §1.1 stream shape)', async () => {
    const chunks = chunkObjects(
      (await postJson(`${emulatorFor('deepseek').baseUrl}/chat/completions`, toolRequest(true))).text,
    );
    const deltas = deltasOf(chunks);
    expect(deltas[0]).toEqual({ role: 'assistant', content: null, reasoning_content: '' });
    expect(deltas[1]).toEqual({ content: null, reasoning_content: expect.any(String) });
    const last = chunks[chunks.length - 1] as JsonObject;
    expect(last['choices']).toEqual([
      { index: 0, delta: { content: '', reasoning_content: null }, finish_reason: 'tool_calls', logprobs: null },
    ]);
    expect(last['usage']).toMatchObject({ completion_tokens_details: { reasoning_tokens: expect.any(Number) } });
  });

  it('tool-call arguments stream in fragments for OpenAI-style personas', async () => {
    const deltas = deltasOf(
      chunkObjects((await postJson(`${emulatorFor('local').baseUrl}/chat/completions`, toolRequest(true))).text),
    );
    const argumentFragments = deltas.filter(
      (delta) => Array.isArray(delta['tool_calls']) && !JSON.stringify(delta).includes('"id"'),
    );
    expect(argumentFragments.length).toBeGreaterThan(1);
  });
});
